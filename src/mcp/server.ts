import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { TOOLS, type ToolDescriptor } from '../../tools/index.ts';
import { authenticate } from '../core/accounts/api-keys.ts';
import { contextFor, type Runtime } from '../core/context.ts';
import type { RateLimitState } from '../core/errors.ts';
import { executeOperation } from '../core/operation.ts';
import { toToolError } from './errors.ts';

export const SERVER_INFO = { name: 'content-publishing-service', version: '0.1.0' };

const INSTRUCTIONS =
  'Draft, approve, schedule and publish social media content for one workspace. Recommended flow: read the brand ' +
  'profile, list social accounts, list media, create content, update its status to approved, then publish. Tool errors ' +
  'carry {error:{code,message}}; only code internal is worth retrying blind, and rate_limit_exceeded carries retry_after.';
/** Said when SERVICE_READ_ONLY or SERVICE_TOOLS hides tools, so the flow above is not taken for a promise. */
const SUBSET_NOTE =
  ' This server exposes only some of the tools (tools/list names them): steps of the flow without their tool are not available here.';

export interface McpServerOptions {
  runtime: Runtime;
  /** The `Authorization` header value to act with; checked on every call, so a revoked key stops at once. */
  authorization: string | undefined;
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
 * tools/call with any params: the SDK answers a request its schema refuses (arguments that are no
 * object) with -32603, an internal error; checked in the handler instead, it is -32602, invalid params.
 */
const AnyCallToolRequest = CallToolRequestSchema.extend({ params: z.unknown() });

function describeTool(tool: ToolDescriptor): Tool {
  let description = descriptions.get(tool);
  if (!description) {
    description = {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: z.toJSONSchema(tool.operation.input, { io: 'input', unrepresentable: 'any' }) as Tool['inputSchema'],
      annotations: { title: tool.title, ...tool.annotations },
    };
    descriptions.set(tool, description);
  }
  return description;
}

/**
 * The one server factory, used by stdio, streamable HTTP and tests. The SDK's low-level Server is
 * used on purpose: McpServer validates arguments itself and reports failures as plain text, while
 * the spec wants every failure, invalid arguments included, to carry the API's code and details.
 */
export function createMcpServer({ runtime, authorization, onRateLimit, tools }: McpServerOptions): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: tools.length < TOOLS.length ? INSTRUCTIONS + SUBSET_NOTE : INSTRUCTIONS,
  });
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const listing = tools.map(describeTool);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing }));
  server.setRequestHandler(AnyCallToolRequest, async (raw): Promise<CallToolResult> => {
    const parsed = CallToolRequestSchema.safeParse(raw);
    if (!parsed.success)
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid tools/call params: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'params'}: ${i.message}`).join('; ')}.`,
      );
    const request = parsed.data;
    const tool = byName.get(request.params.name as ToolDescriptor['name']);
    // The protocol's answer to a tool that is not listed (MCP spec, Tools, Error handling): a JSON-RPC
    // error -32602, the same for a name that never existed and one this process does not expose.
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}.`);
    try {
      const { operation } = tool;
      const workspace = authenticate(runtime, authorization, { planChecks: operation.planChecks ?? true });
      const ctx = contextFor(runtime, workspace, 'mcp');
      const result = await executeOperation(ctx, operation, request.params.arguments ?? {}, onRateLimit);
      const structuredContent = result as Record<string, unknown>;
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent };
    } catch (error) {
      return toToolError(error, runtime.config.docsUrl, runtime.log);
    }
  });
  return server;
}
