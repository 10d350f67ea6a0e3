import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import {
  CLIENT_CAPABILITIES_META_KEY,
  classifyInboundRequest,
  createMcpHandler,
  SERVER_INFO_META_KEY,
  type AuthInfo,
  type CallToolResult,
  type ClientCapabilities,
  type InboundClassificationOutcome,
  type RequestId,
} from '@modelcontextprotocol/server';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Credential } from '../core/accounts/api-keys.ts';
import type { Runtime } from '../core/context.ts';
import type { RateLimitState } from '../core/errors.ts';
import type { ToolDescriptor } from '../../tools/index.ts';
import { callTool, createMcpServer, rendersViews, serverInfoFor } from './server.ts';

/** What one request's server is built for: the credential, the tools it sees, where rate-limit state goes. */
export interface McpCall {
  authorization: string | undefined;
  /** What the route authenticated `authorization` to, for this request (see McpServerOptions.credential). */
  credential: Credential;
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

export interface McpRequestServerOptions {
  /**
   * Answer well-formed 2026-07-28 `tools/call` requests directly (see directToolCall); on by default.
   * Off, every 2026-07-28 request goes through the SDK's handler: the tests compare both answers.
   */
  directToolCalls?: boolean;
}

/** The revision the direct path answers: a request claiming any other goes to the SDK, which refuses or serves it. */
const DIRECT_REVISION = '2026-07-28';

/**
 * Serves streamable-HTTP MCP statelessly, both revisions on one endpoint (so any process behind any
 * balancer answers any request), JSON responses, no SSE stream. `body` is the JSON body the route has
 * already parsed, or undefined when it read none (the legacy transport then answers).
 * - a 2026-07-28 `tools/call` whose envelope and standard headers are in order, naming a tool this
 *   request may call, with nothing in its params but `name`, `arguments` and `_meta`, is answered
 *   directly (directToolCall): the tool runs and its result is written as the SDK's 2026-07-28 codec
 *   writes it. A server, a transport and web Request/Response objects built per call cost several
 *   times the tool's own work (docs/decisions.md, "The direct tools/call path").
 * - 2025-era traffic (initialize and what follows, no envelope), as the SDK's own classifier tells it
 *   (the step createMcpHandler and isLegacyRequest run), goes to a per-request stateless transport in
 *   JSON mode, as before v2. The SDK's own legacy fallback would answer it with an SSE stream, which
 *   clients read, but scripts posting JSON would no longer get JSON back.
 * - every other 2026-07-28 request (server/discover, tools/list, an unknown tool, any header or
 *   envelope the ladder refuses) goes to the SDK's createMcpHandler with a fresh server, which checks
 *   MCP-Protocol-Version, Mcp-Method and Mcp-Name against the body (-32020 HeaderMismatch), answers
 *   server/discover and stamps the cache hints.
 */
export function mcpRequestServer(runtime: Runtime, options: McpRequestServerOptions = {}): McpRequestServer {
  const directToolCalls = options.directToolCalls ?? true;
  const serverInfo = serverInfoFor(runtime.config);
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
    const direct = directToolCalls ? directToolCall(req, body, call.tools) : undefined;
    if (direct) {
      // The envelope's capabilities, as the SDK's server would read them for the same request.
      const views = rendersViews(direct.capabilities) ? call.tools : undefined;
      const result = await callTool({ runtime, ...call, views }, direct.tool, direct.arguments);
      const answer = { result: { ...result, resultType: 'complete', _meta: withServerInfo(result, serverInfo) } };
      const payload = JSON.stringify({ ...answer, jsonrpc: '2.0', id: direct.id });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
      res.end(payload);
      return;
    }
    // No JSON body, or one without the 2026-07-28 envelope: what isLegacyRequest calls legacy.
    if (body === undefined || classify(req, body).kind === 'legacy') {
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

/** The SDK's classification of a POST with a JSON body: the routing step of createMcpHandler and isLegacyRequest. */
function classify(req: IncomingMessage, body: unknown): InboundClassificationOutcome {
  return classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: headerOf(req, 'mcp-protocol-version'),
    mcpMethodHeader: headerOf(req, 'mcp-method'),
    mcpNameHeader: headerOf(req, 'mcp-name'),
    body,
  });
}

/**
 * The tool call to answer without the SDK's per-request server, or undefined to leave the request to
 * the SDK. Taken only when the SDK would serve the request as it stands:
 * - MCP-Protocol-Version is 2026-07-28, Mcp-Method is `tools/call`, and Mcp-Name is exactly the
 *   body's `params.name` (what the SDK's standard-header rung requires);
 * - the body is one JSON-RPC request (`jsonrpc`, a string or integer `id`, `method`, `params` and
 *   nothing else) calling `tools/call`, whose `_meta` envelope the SDK's classifier finds valid and
 *   claiming 2026-07-28 (envelopeServed);
 * - the name is a tool this request may call (an unknown tool's -32602 is the SDK's to answer);
 * - `arguments` is absent or an object, and params hold nothing else but `_meta` (a multi-round-trip
 *   `requestState` or `inputResponses`, a task, is the SDK's to check).
 * Anything else, every refusal included, is answered by the SDK, so the error cells stay its own.
 */
function directToolCall(
  req: IncomingMessage,
  body: unknown,
  tools: readonly ToolDescriptor[],
):
  | {
      id: RequestId;
      tool: ToolDescriptor;
      arguments: Record<string, unknown> | undefined;
      capabilities: ClientCapabilities | undefined;
    }
  | undefined {
  if (headerOf(req, 'mcp-protocol-version') !== DIRECT_REVISION || headerOf(req, 'mcp-method') !== 'tools/call') {
    return undefined;
  }
  if (!isObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call' || !isObject(body.params)) {
    return undefined;
  }
  if (!hasOnlyKeys(body, REQUEST_KEYS) || !hasOnlyKeys(body.params, CALL_PARAMS_KEYS)) return undefined;
  const { id, params } = body;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  const { name, arguments: args, _meta: meta } = params;
  if (typeof name !== 'string' || headerOf(req, 'mcp-name') !== name) return undefined;
  if (args !== undefined && !isObject(args)) return undefined;
  if (!isObject(meta) || !envelopeServed(meta)) return undefined;
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) return undefined;
  const capabilities = meta[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  return { id: id as RequestId, tool, arguments: args, capabilities };
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const CALL_PARAMS_KEYS = new Set(['name', 'arguments', '_meta']);

/**
 * The SDK classifier's verdict on a tools/call carrying this `_meta` under the direct path's headers:
 * served as 2026-07-28, or not. For the bodies directToolCall lets through, nothing else in the body
 * bears on the verdict (name and arguments are not part of it), so it is asked with the envelope
 * alone. A client sends the same envelope with every request, so verdicts are kept by the envelope's
 * JSON (a small, bounded table; an envelope too long to keep is asked about every time).
 */
function envelopeServed(meta: Record<string, unknown>): boolean {
  const key = JSON.stringify(meta);
  const known = envelopeVerdicts.get(key);
  if (known !== undefined) return known;
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: DIRECT_REVISION,
    mcpMethodHeader: 'tools/call',
    body: { jsonrpc: '2.0', id: 0, method: 'tools/call', params: { _meta: meta } },
  });
  const served =
    outcome.kind === 'modern' &&
    outcome.messageKind === 'request' &&
    outcome.classification.revision === DIRECT_REVISION;
  if (key.length <= MAX_ENVELOPE_KEY_CHARS) {
    if (envelopeVerdicts.size >= MAX_ENVELOPE_VERDICTS) envelopeVerdicts.clear();
    envelopeVerdicts.set(key, served);
  }
  return served;
}

const envelopeVerdicts = new Map<string, boolean>();
const MAX_ENVELOPE_VERDICTS = 1_000;
const MAX_ENVELOPE_KEY_CHARS = 4_096;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const hasOnlyKeys = (value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean =>
  Object.keys(value).every((key) => allowed.has(key));

/** The result's `_meta` with the server's identity, as the 2026-07-28 codec stamps it (a value the tool set wins). */
function withServerInfo(result: CallToolResult, serverInfo: unknown): Record<string, unknown> {
  const meta = result._meta ?? {};
  return meta[SERVER_INFO_META_KEY] === undefined ? { ...meta, [SERVER_INFO_META_KEY]: serverInfo } : meta;
}

/** A request header as the web Headers class reads it: repeated fields joined with ", ". */
function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
