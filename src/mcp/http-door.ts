import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { TOOLS, type ToolDescriptor } from '../../tools/index.ts';
import { authenticateCredential, type Credential } from '../core/accounts/api-keys.ts';
import type { Runtime } from '../core/context.ts';
import { ServiceError } from '../core/errors.ts';
import {
  insufficientScopeChallenge,
  mcpChallenge,
  resourceUrl,
  type OAuthScope,
  type ProtectedResource,
} from '../core/oauth/metadata.ts';
import { requiredScope, scopeAllows } from '../core/oauth/scopes.ts';
import { LOOPBACK_HOSTNAMES } from '../http/host-check.ts';
import { sendError, setRateLimitHeaders } from '../http/errors.ts';
import { mcpRequestServer } from './http.ts';
import { connectionTools, exposedTools, parseToolNames, unknownToolNames } from './tool-selection.ts';

/**
 * The service's own origins: PUBLIC_BASE_URL's, and when that is a loopback URL the same scheme and
 * port under each loopback spelling (a browser client on http://localhost:3000 calls a service whose
 * base is http://127.0.0.1:3000; it is the same machine and the same port, which a rebinding page
 * cannot be).
 */
export function ownOrigins(publicBaseUrl: string): string[] {
  const base = new URL(publicBaseUrl);
  if (!LOOPBACK_HOSTNAMES.includes(base.hostname)) return [base.origin];
  return LOOPBACK_HOSTNAMES.map((hostname) => {
    const url = new URL(base.origin);
    url.hostname = hostname;
    return url.origin;
  });
}

/**
 * Browsers send Origin; a page on another site must not drive the tools with a key it holds
 * (DNS rebinding). Non-browser clients send no Origin and pass.
 */
function originAllowed(req: Request, allowed: readonly string[]): boolean {
  const origin = req.get('origin');
  if (!origin) return true;
  return allowed.includes(origin);
}

/**
 * Authenticates the request's credential without plan checks, answering 401 with the OAuth challenge.
 * Its scopes decide which tools this request sees; a tool call then checks only the plan.
 */
async function authenticateRequest(runtime: Runtime, door: McpDoor, req: Request, res: Response): Promise<Credential> {
  try {
    return await authenticateCredential(runtime, req.get('authorization'), { planChecks: false });
  } catch (error) {
    if (error instanceof ServiceError) {
      // RFC 6750 and RFC 9728: every 401 says where the OAuth metadata is; a credential that was sent
      // (an unknown, revoked or expired key, or a token of no kind the service issues) is invalid_token.
      const sent = /^Bearer\s+\S/i.test(req.get('authorization') ?? '');
      res.setHeader(
        'WWW-Authenticate',
        mcpChallenge(
          runtime.config,
          door,
          sent || error.code !== 'missing_key' ? { description: error.message } : undefined,
        ),
      );
    }
    throw error;
  }
}

/** The JSON of a body read as bytes; `invalid` when it is no JSON, undefined when no JSON body was read. */
function parseBody(rawBody: unknown): { json: unknown } | 'invalid' | undefined {
  if (!Buffer.isBuffer(rawBody)) return undefined;
  try {
    return { json: JSON.parse(rawBody.toString('utf8')) as unknown };
  } catch {
    return 'invalid';
  }
}

/** The names of the tools a JSON-RPC message (or batch) calls. */
function calledToolNames(parsed: unknown): string[] {
  const messages: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  return messages.flatMap((message) => {
    if (typeof message !== 'object' || message === null) return [];
    const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
    return method === 'tools/call' && typeof params?.name === 'string' ? [params.name] : [];
  });
}

/**
 * The two doors of MCP over HTTP, each a protected resource of its own (with its own metadata and
 * challenge): every tool the process exposes, or only the read tools.
 */
type McpDoor = Extract<ProtectedResource, 'mcp' | 'readonly'>;
const MCP_DOORS: ReadonlyArray<readonly [string, McpDoor]> = [
  ['/mcp', 'mcp'],
  ['/mcp/readonly', 'readonly'],
];

/**
 * Streamable HTTP MCP on the service's HTTP port (mounted by src/app.ts): POST only, Bearer on every request, stateless. The process's
 * tool selection is settled here, once, so a bad SERVICE_TOOLS stops the app from being built; each
 * request then narrows it by the route it came in by (`/mcp/readonly`), its X-MCP-Readonly and X-MCP-Tools headers,
 * and its token's scopes.
 */
export function mcpRoutes(runtime: Runtime): Router {
  const router = Router();
  const processTools = exposedTools(runtime.config.mcpTools);
  const { docsUrl } = runtime.config;
  const allowedOrigins = [...ownOrigins(runtime.config.publicBaseUrl), ...runtime.config.mcpAllowedOrigins];
  // The Host header is not checked here: the app-wide check (src/http/host-check.ts) runs before every
  // route, this one included, and refuses a name rebound to a loopback base before anything else.
  const serveMcp = mcpRequestServer(runtime);
  // Read here (after the gate), not by the transport, to see which tools a message calls before it runs; the parsed
  // body is handed to the SDK, which then reads nothing from the stream.
  const readBody = express.raw({ type: 'application/json', limit: runtime.config.bodyLimitBytes });
  /**
   * Origin, credential and the connection's headers: all checked before the body is read, as on REST.
   * `door` is the route that matched: Express matches `/MCP/READONLY` and `/mcp/readonly/` to the
   * read-only route too, so the limit is the route's, never a comparison of the path's text.
   */
  const gate =
    (door: McpDoor): RequestHandler =>
    async (req, res, next) => {
      if (!originAllowed(req, allowedOrigins)) {
        return sendError(
          res,
          new ServiceError('origin_not_allowed', `Origin ${req.get('origin')} may not call /mcp.`),
          docsUrl,
        );
      }
      res.locals.credential = await authenticateRequest(runtime, door, req, res);
      const names = parseToolNames(req.get('x-mcp-tools'));
      const unknown = unknownToolNames(names);
      if (unknown.length > 0) {
        throw new ServiceError(
          'unknown_tool',
          `X-MCP-Tools names ${unknown.join(', ')}, which ${unknown.length === 1 ? 'is not a tool' : 'are not tools'}; ` +
            `the tools are ${TOOLS.map((tool) => tool.name).join(', ')}.`,
        );
      }
      const readOnly = door === 'readonly' || req.get('x-mcp-readonly')?.trim().toLowerCase() === 'true';
      res.locals.selectedTools = connectionTools(processTools, { readOnly, names });
      next();
    };
  const serve =
    (door: McpDoor): RequestHandler =>
    async (req, res) => {
      const credential = res.locals.credential as Credential;
      const { scopes } = credential;
      const selected = res.locals.selectedTools as readonly ToolDescriptor[];
      const body = parseBody(req.body);
      if (body === 'invalid') {
        // JSON-RPC's own answer to a body that is no JSON (a request without id: id null).
        res
          .status(400)
          .json({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the body is not JSON.' }, id: null });
        return;
      }
      const forbidden = forbiddenCall(selected, scopes, body === undefined ? [] : calledToolNames(body.json));
      if (forbidden) {
        const needed = requiredScope(forbidden.operation);
        res.setHeader('WWW-Authenticate', insufficientScopeChallenge(runtime.config, door, needed));
        // A token for the read-only door never writes: a wider grant is a new authorization for /mcp itself.
        const reason =
          credential.resource === 'readonly'
            ? `${forbidden.name} needs the ${needed} scope, and this token was issued for the read-only door ` +
              `(${resourceUrl(runtime.config, 'readonly')}), which only reads; authorize again for ` +
              `${resourceUrl(runtime.config, 'mcp')} asking for ${needed}.`
            : `${forbidden.name} needs the ${needed} scope, which this token does not carry; authorize again asking for it.`;
        throw new ServiceError('insufficient_scope', reason);
      }
      const tools = selected.filter((tool) => scopeAllows(scopes, tool.operation));
      await serveMcp(req, res, body?.json, {
        authorization: req.get('authorization'),
        credential,
        tools,
        onRateLimit: (state) => setRateLimitHeaders(res, state),
      });
    };
  const refuseMethod: RequestHandler = (_req, res) => {
    res.setHeader('Allow', 'POST');
    sendError(
      res,
      new ServiceError(
        'method_not_allowed',
        'This server is stateless: send MCP messages with POST; there is no SSE stream or session to delete.',
      ),
      docsUrl,
    );
  };
  for (const [path, door] of MCP_DOORS) {
    router.post(path, gate(door), readBody, serve(door));
    router.all(path, refuseMethod);
  }
  return router;
}

/**
 * The first called tool this connection selects but the token's scopes do not allow. Such a call is
 * refused with HTTP 403 before the transport runs (MCP authorization, scope challenge); a tool the
 * connection does not select at all stays an unknown tool, answered in JSON-RPC terms.
 */
function forbiddenCall(
  selected: readonly ToolDescriptor[],
  scopes: readonly OAuthScope[],
  called: readonly string[],
): ToolDescriptor | undefined {
  return selected.find((tool) => called.includes(tool.name) && !scopeAllows(scopes, tool.operation));
}
