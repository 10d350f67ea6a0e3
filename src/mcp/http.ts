import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, isLegacyRequest, type AuthInfo } from '@modelcontextprotocol/server';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Runtime } from '../core/context.ts';
import type { RateLimitState } from '../core/errors.ts';
import type { ToolDescriptor } from '../../tools/index.ts';
import { createMcpServer } from './server.ts';

/** What one request's server is built for: the credential, the tools it sees, where rate-limit state goes. */
export interface McpCall {
  authorization: string | undefined;
  tools: readonly ToolDescriptor[];
  onRateLimit: (state: RateLimitState) => void;
}

/** The request's call rides on the SDK's pass-through `authInfo` (the one thing it hands the factory). */
type CallAuthInfo = AuthInfo & { extra: { call: McpCall } };

export type McpRequestServer = (
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  call: McpCall,
) => Promise<void>;

/**
 * Serves streamable-HTTP MCP statelessly, both revisions on one endpoint, a fresh server per request
 * (so any process behind any balancer answers any request), JSON responses, no SSE stream:
 * - 2026-07-28 (a request whose `_meta` carries the protocol version) goes to the SDK's
 *   createMcpHandler, which checks the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers against
 *   the body (-32020 HeaderMismatch), answers server/discover and stamps the cache hints;
 * - 2025-era traffic (initialize and what follows, no envelope) goes to a per-request stateless
 *   transport in JSON mode, as before v2. The SDK's own legacy fallback would answer it with an SSE
 *   stream, which clients read, but scripts posting JSON would no longer get JSON back.
 * `body` is the parsed JSON body (the route has read it to check scopes before anything runs).
 */
export function mcpRequestServer(runtime: Runtime): McpRequestServer {
  const handler = createMcpHandler(
    ({ authInfo }) => {
      const { call } = (authInfo as CallAuthInfo).extra;
      return createMcpServer({ runtime, ...call });
    },
    // 'auto' answers JSON unless a handler sends a notification before its result, which none does.
    { legacy: 'reject', onerror: (error) => runtime.log.debug({ err: error }, 'MCP request refused') },
  );
  const modern = toNodeHandler(handler);
  return async (req, res, body, call) => {
    const headersOnly = new Request('http://mcp.invalid/mcp', { method: 'POST', headers: webHeaders(req) });
    if (await isLegacyRequest(headersOnly, body)) {
      const server = createMcpServer({ runtime, ...call });
      const transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    const authInfo: CallAuthInfo = { token: '', clientId: '', scopes: [], extra: { call } };
    await modern(Object.assign(req, { auth: authInfo }), res, body);
  };
}

function webHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  return headers;
}
