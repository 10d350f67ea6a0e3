/**
 * The view's side of MCP Apps (SEP-1865, revision 2026-01-26): JSON-RPC 2.0 over postMessage with the
 * host window. Written here rather than taken from ext-apps' `App` class, which bundles to about
 * 650 KB with the SDK and zod behind it (measured with esbuild, minified), over the 150 KB a view may
 * take; the messages used are few and fixed by the spec.
 */

export const APPS_PROTOCOL_VERSION = '2026-01-26';

type Json = Record<string, unknown>;

export interface HostContext {
  theme?: 'light' | 'dark';
  styles?: { variables?: Record<string, string | undefined> };
  [key: string]: unknown;
}

export interface ToolResult {
  content?: { type: string; text?: string }[];
  structuredContent?: Json;
  isError?: boolean;
  _meta?: Json;
}

/** A failed request: the host's JSON-RPC error, or a tool's isError answer, with the API's message. */
export class HostCallError extends Error {}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export class HostConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly handlers = new Map<string, ((params: Json) => void)[]>();

  constructor(private readonly host: Window = window.parent) {
    window.addEventListener('message', (event) => {
      // Only the host that embeds this view speaks to it.
      if (event.source !== this.host) return;
      this.receive(event.data as Json);
    });
  }

  private receive(message: Json): void {
    if (typeof message !== 'object' || message === null || message.jsonrpc !== '2.0') return;
    if (typeof message.id === 'number' && !('method' in message)) {
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      const error = message.error as { message?: string } | undefined;
      if (error) waiting.reject(new HostCallError(error.message ?? 'The host refused the request.'));
      else waiting.resolve(message.result);
      return;
    }
    if (typeof message.method !== 'string') return;
    if ('id' in message) {
      // Requests from the host: teardown is acknowledged; anything else is not offered by this view.
      const reply =
        message.method === 'ui/resource-teardown' || message.method === 'ping'
          ? { jsonrpc: '2.0', id: message.id, result: {} }
          : { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `${message.method} is not supported.` } };
      this.host.postMessage(reply, '*');
      return;
    }
    for (const handler of this.handlers.get(message.method) ?? []) handler((message.params ?? {}) as Json);
  }

  request<T>(method: string, params: Json = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.host.postMessage({ jsonrpc: '2.0', id, method, params }, '*');
    });
  }

  notify(method: string, params: Json = {}): void {
    this.host.postMessage({ jsonrpc: '2.0', method, params }, '*');
  }

  on(method: string, handler: (params: Json) => void): void {
    this.handlers.set(method, [...(this.handlers.get(method) ?? []), handler]);
  }

  /** The handshake: ui/initialize, then ui/notifications/initialized. Answers the host context. */
  async initialize(appInfo: { name: string; version: string }): Promise<HostContext> {
    const result = await this.request<{ hostContext?: HostContext }>('ui/initialize', {
      appInfo,
      appCapabilities: {},
      protocolVersion: APPS_PROTOCOL_VERSION,
    });
    this.notify('ui/notifications/initialized');
    return result.hostContext ?? {};
  }

  /**
   * A tools/call through the host. A tool's isError answer rejects with the API's message
   * (`{"error":{"code","message"}}` in its text), as does a host's JSON-RPC error.
   */
  async callTool(name: string, args: Json): Promise<ToolResult> {
    const result = await this.request<ToolResult>('tools/call', { name, arguments: args });
    if (result.isError) throw new HostCallError(errorMessageOf(result));
    return result;
  }

  openLink(url: string): Promise<unknown> {
    return this.request('ui/open-link', { url });
  }
}

function errorMessageOf(result: ToolResult): string {
  const text = result.content?.find((block) => block.type === 'text')?.text ?? '';
  try {
    const parsed = JSON.parse(text) as { error?: { message?: string } };
    if (parsed.error?.message) return parsed.error.message;
  } catch {
    // Not the API's envelope: the text itself is the message.
  }
  return text || 'The call failed.';
}
