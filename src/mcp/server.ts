import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
  type CallToolResult,
  type ClientCapabilities,
  type Implementation,
  type Tool,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { TOOLS, type ToolDescriptor } from '../../tools/index.ts';
import { authenticateCredential, checkPlan, type Credential } from '../core/accounts/api-keys.ts';
import type { Config } from '../core/config.ts';
import { contextFor, type Runtime } from '../core/context.ts';
import type { Workspace } from '../core/accounts/workspaces.ts';
import { errorEnvelope, RateLimitError, type RateLimitState } from '../core/errors.ts';
import {
  executeCall,
  IdempotencyKeyArgument,
  idempotencyKeyArgument,
  isStoredError,
  TOOL_CALL_STATUS,
} from '../core/idempotency.ts';
import { answerSchema, operationFor } from '../core/operation.ts';
import { consumeRateLimit } from '../core/rate-limits.ts';
import { getUiCapability } from '@modelcontextprotocol/ext-apps/server';
import { appToolsFor, type AppTool } from './apps/app-tools.ts';
import { viewResultMeta } from './apps/result-meta.ts';
import { listViewResources, readViewResource, TOOL_VIEWS, toolViewMeta } from './apps/views.ts';
import { toolErrorResult, toToolError } from './errors.ts';
import { leanInputSchema, leanOutputSchema } from './lean-schema.ts';

/**
 * What initialize answers as serverInfo (and 2026-07-28 answers in every result's
 * `_meta['io.modelcontextprotocol/serverInfo']`, server/discover's included): the constant part;
 * websiteUrl is the deployment's PUBLIC_BASE_URL.
 */
export const SERVER_INFO = {
  name: 'content-publishing-service',
  title: 'Content Publishing Service',
  version: '0.1.0',
};

export const serverInfoFor = (config: Pick<Config, 'publicBaseUrl'>): Implementation => ({
  ...SERVER_INFO,
  websiteUrl: config.publicBaseUrl,
});

/**
 * The most characters a tool's text result may have. Clients put the text into the model's context
 * and cap it (Claude Code at about 25k tokens); a list page is cut below it (see toPage's budget).
 */
export const MAX_TOOL_TEXT_CHARS = 100_000;

const INSTRUCTIONS =
  'Draft, approve, schedule and publish social media content for one workspace. Recommended flow: read the brand ' +
  'profile, list social accounts, list media, create content, update its status to approved, then publish. A failed ' +
  "call answers isError with {error:{code,message}} as its text (a tool's description names the codes it answers " +
  'itself; an unknown id is not_found); only code internal is worth retrying blind, and rate_limit_exceeded carries ' +
  'retry_after. Lists may return fewer items than limit, to keep an answer short: follow next_cursor while has_more. ' +
  'A creating tool takes an optional idempotency_key: a retry with the same key and arguments within 24 hours answers ' +
  'the first result instead of acting twice; other arguments fail with idempotency_key_reused, and a retry while the ' +
  'first call still runs with idempotency_conflict.';
/** Said when SERVICE_READ_ONLY or SERVICE_TOOLS hides tools, so the flow above is not taken for a promise. */
const SUBSET_NOTE =
  ' This server exposes only some of the tools (tools/list names them): steps of the flow without their tool are not available here.';

export interface McpServerOptions {
  runtime: Runtime;
  /** The `Authorization` header value to act with; checked on every call, so a revoked key stops at once. */
  authorization: string | undefined;
  /**
   * The credential of `authorization`, when the HTTP route has just authenticated it for this one
   * request (without plan checks): a call then checks only the plan, instead of authenticating again.
   */
  credential?: Credential;
  /** Told the rate-limit state of each call (the HTTP transport puts it into headers). */
  onRateLimit?: (state: RateLimitState) => void;
  /** The tools to list and serve, from exposedTools(config.mcpTools); any other name is an unknown tool. */
  tools: readonly ToolDescriptor[];
}

/**
 * Descriptions are built once per tool and process: the HTTP transport creates a server per request,
 * and converting the twenty input schemas to JSON Schema each time cost about 1.6 ms (measured).
 */
const descriptions = new WeakMap<ToolDescriptor, Tool>();

/**
 * How long a client may keep tools/list and server/discover (revision 2026-07-28). Never public:
 * the list depends on the credential's scopes, on `X-MCP-Tools` and on `/mcp/readonly`. Five
 * minutes: a deployment changes its tools only with a restart, and a revoked scope still stops a
 * call at once (every call is authorized again), so a stale list costs at most a refused call.
 */
export const LIST_CACHE_HINT = { ttlMs: 300_000, cacheScope: 'private' } as const;

/**
 * The MCP App views (resources/list, resources/read) are the same for every caller and change only
 * with a deployment: public, for as long as the tools list.
 */
export const VIEW_CACHE_HINT = { ttlMs: 300_000, cacheScope: 'public' } as const;

function describeTool(tool: ToolDescriptor): Tool {
  let description = descriptions.get(tool);
  if (!description) {
    const input = z.toJSONSchema(tool.operation.input, { io: 'input', unrepresentable: 'any' }) as Json;
    if (tool.idempotencyKey) {
      const { $schema: _dialect, ...keySchema } = z.toJSONSchema(IdempotencyKeyArgument) as Json;
      input.properties = { ...(input.properties as Json), idempotency_key: keySchema };
    }
    const inputSchema = leanInputSchema(input);
    description = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: inputSchema as Tool['inputSchema'],
      outputSchema: leanOutputSchema(
        outputSchemaOf(answerSchema(tool.operation)) as Json,
        inputSchema,
      ) as Tool['outputSchema'],
      annotations: { title: tool.title, ...tool.annotations },
      // MCP Apps: a host with the extension shows the result in this view; any other ignores the keys.
      ...(TOOL_VIEWS[tool.name] ? { _meta: toolViewMeta(TOOL_VIEWS[tool.name]) } : {}),
    };
    descriptions.set(tool, description);
  }
  return description;
}

type Json = Record<string, unknown>;

/**
 * The operation's output schema as the tool's outputSchema, which MCP wants with an object at the
 * root. zod writes a schema the core names (`.meta({ id })`) as a bare `$ref` into `$defs`: the root
 * definition is inlined. A union of objects (`anyOf`) is given `type: 'object'` beside it.
 */
export function outputSchemaOf(schema: z.ZodType): Tool['outputSchema'] {
  const { $ref, $defs, $schema, ...rest } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Json;
  const defs = { ...($defs as Record<string, Json> | undefined) };
  let root: Json = rest;
  if (typeof $ref === 'string' && $ref.startsWith('#/$defs/')) {
    const name = $ref.slice('#/$defs/'.length);
    root = { ...defs[name], ...rest };
    // Kept only when something else still points at it (a recursive schema).
    if (!JSON.stringify([root, defs]).includes(`"${$ref}"`)) delete defs[name];
  }
  if (root.type !== 'object') root = { type: 'object', ...root };
  return {
    ...($schema ? { $schema } : {}),
    ...root,
    ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
  } as Tool['outputSchema'];
}

/**
 * The text of a success: its JSON, like structuredContent. Lists are cut to fit (toPage's budget);
 * any other answer fits unless an item was stored with extreme values (a content item's per-platform
 * overrides, each with 20 very long media URLs): such an answer keeps its whole JSON in
 * structuredContent, and its text says so instead of passing the limit. A list page holding such an
 * item (toPage keeps one item per page) keeps its envelope and cursor in the text, so paging goes on,
 * with that item reduced to its id.
 */
function resultText(result: unknown): string {
  const text = JSON.stringify(result);
  if (text.length < MAX_TOOL_TEXT_CHARS) return text;
  const notice = (characters: number) =>
    `This answer is ${characters} characters of JSON, over the ${MAX_TOOL_TEXT_CHARS} a tool's text holds; ` +
    'structuredContent holds it whole, and the REST API answers it too.';
  const page = result as { object?: unknown; data?: unknown };
  if (page.object === 'list' && Array.isArray(page.data)) {
    const data = page.data.map((item: { id?: unknown; object?: unknown }) => {
      const characters = JSON.stringify(item).length;
      if (characters < MAX_TOOL_TEXT_CHARS / 2) return item;
      return { id: item.id, object: item.object, omitted: notice(characters), characters };
    });
    const cut = JSON.stringify({ ...page, data });
    if (cut.length < MAX_TOOL_TEXT_CHARS) return cut;
  }
  return JSON.stringify({ notice: notice(text.length), characters: text.length });
}

const toolResult = (result: unknown, meta?: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text: resultText(result) }],
  structuredContent: result as Record<string, unknown>,
  ...(meta ? { _meta: meta } : {}),
});

/**
 * The view's data for a result (MCP Apps), or nothing. The call has already succeeded: a failure
 * here costs the view its extras, never the caller its answer.
 */
async function viewMeta(...args: Parameters<typeof viewResultMeta>): Promise<Record<string, unknown> | undefined> {
  try {
    return await viewResultMeta(...args);
  } catch (error) {
    args[0].log.warn({ err: error, tool: args[1].name }, 'MCP App view data not attached');
    return undefined;
  }
}

/**
 * Whether the client may show MCP App views, so that the result's `_meta.ui` is worth its cost (the
 * item's previews and history are several reads). A client that declared its capabilities says so:
 * 2026-07-28 on every request, a 2025-era one at initialize on a connection that lasts (stdio). A
 * stateless 2025-era HTTP request comes without them (initialize came on another request): it may be
 * a host that shows views, so it gets the data.
 */
export function rendersViews(capabilities: ClientCapabilities | undefined): boolean {
  return capabilities === undefined || getUiCapability(capabilities) !== undefined;
}

/** The arguments as fields; anything else is left for the operation's schema to refuse. */
const argumentsOf = (args: unknown): Record<string, unknown> =>
  typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};

/**
 * The one server factory, used by stdio, streamable HTTP and tests. The SDK's low-level Server is
 * used on purpose: McpServer validates arguments itself and reports failures as plain text, while
 * the spec wants every failure, invalid arguments included, to carry the API's code and details.
 */
export function createMcpServer({ runtime, authorization, credential, onRateLimit, tools }: McpServerOptions): Server {
  const server = new Server(serverInfoFor(runtime.config), {
    capabilities: { tools: {}, resources: {} },
    instructions: tools.length < TOOLS.length ? INSTRUCTIONS + SUBSET_NOTE : INSTRUCTIONS,
    cacheHints: {
      'tools/list': LIST_CACHE_HINT,
      'server/discover': LIST_CACHE_HINT,
      'resources/list': VIEW_CACHE_HINT,
      'resources/read': VIEW_CACHE_HINT,
    },
  });
  // The view-only tools are served beside the listed ones but never listed (see apps/app-tools.ts).
  const byName = new Map<string, ToolDescriptor | AppTool>([
    ...tools.map((tool) => [tool.name, tool] as const),
    ...appToolsFor(tools).map((tool) => [tool.name, tool] as const),
  ]);
  const listing = tools.map(describeTool);

  server.setRequestHandler('tools/list', () => ({ tools: listing }));
  server.setRequestHandler('resources/list', () => ({ resources: listViewResources(runtime.config) }));
  server.setRequestHandler('resources/read', async (request) => {
    const result = await readViewResource(runtime.config, request.params.uri);
    if (!result) throw new ResourceNotFoundError(request.params.uri, `No resource at ${request.params.uri}.`);
    return result;
  });
  server.setRequestHandler('tools/call', async (request): Promise<CallToolResult> => {
    const tool = byName.get(request.params.name);
    // The protocol's answer to a tool that is not listed (MCP spec, Tools, Error handling): a JSON-RPC
    // error -32602, the same for a name that never existed and one this process does not expose. The
    // message carries no "MCP error" prefix: clients add it themselves.
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool ${request.params.name}.`);
    const views = rendersViews(server.getClientCapabilities()) ? tools : undefined;
    return callTool({ runtime, authorization, credential, onRateLimit, views }, tool, request.params.arguments);
  });
  return server;
}

/**
 * Runs one listed tool with the caller's arguments, as every MCP door answers it: the credential is
 * authenticated for the call (unless the request has just been), and every failure, invalid arguments included, is an isError
 * result carrying the API's code (it never throws). Shared by the SDK's tools/call handler and the
 * HTTP door's direct path for 2026-07-28 calls (see ./http.ts).
 */
export async function callTool(
  {
    runtime,
    authorization,
    credential: authenticated,
    onRateLimit,
    views,
  }: Pick<McpServerOptions, 'runtime' | 'authorization' | 'credential' | 'onRateLimit'> & {
    /** The tools whose views the result's `_meta.ui` may point at, when the client renders views. */
    views?: readonly ToolDescriptor[] | undefined;
  },
  tool: ToolDescriptor | AppTool,
  args: unknown,
): Promise<CallToolResult> {
  // A request the operation did not run for (a replay, a refused key) still counts, as over REST.
  let counted = false;
  const report = (state: RateLimitState) => {
    counted = true;
    onRateLimit?.(state);
  };
  let workspace: Workspace | undefined;
  try {
    const { operation } = tool;
    const planChecks = operation.planChecks ?? true;
    const credential = authenticated ?? (await authenticateCredential(runtime, authorization, { planChecks }));
    if (authenticated && planChecks) checkPlan(authenticated.workspace);
    workspace = credential.workspace;
    // A list answers as many items as fit the text limit (the result's text is the JSON of its data).
    const ctx = {
      ...contextFor(runtime, workspace, 'mcp', credential.principal, credential.scopes),
      answerBudget: MAX_TOOL_TEXT_CHARS - 1,
    };
    const { idempotency_key: rawKey, ...input } = argumentsOf(args);
    const key = tool.idempotencyKey ? idempotencyKeyArgument(rawKey) : undefined;
    const raw = tool.idempotencyKey ? input : (args ?? {});
    const { response } = await executeCall(
      ctx,
      operation,
      raw,
      key === undefined ? undefined : { key, keyField: 'idempotency_key', input },
      report,
      {
        status: TOOL_CALL_STATUS.result,
        failed: (error) => ({ status: TOOL_CALL_STATUS.error, body: errorEnvelope(error, runtime.config.docsUrl) }),
      },
    );
    if (isStoredError(response)) return toolErrorResult(response.body);
    return toolResult(response.body, views ? await viewMeta(ctx, tool, views, response.body) : undefined);
  } catch (error) {
    if (workspace && !counted && !(error instanceof RateLimitError)) {
      try {
        const { buckets } = operationFor(tool.operation, argumentsOf(args));
        report(await consumeRateLimit(runtime, workspace.id, buckets));
      } catch (refused) {
        return toToolError(refused, runtime.config.docsUrl, runtime.log);
      }
    }
    return toToolError(error, runtime.config.docsUrl, runtime.log);
  }
}
