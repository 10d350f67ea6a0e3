import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Runtime } from '../core/context.ts';
import type { RateLimitState } from '../core/errors.ts';
import type { ToolDescriptor } from '../../tools/index.ts';
import { createMcpServer } from './server.ts';

/**
 * Serves one streamable-HTTP MCP request statelessly: a fresh server and transport per request, so
 * any process behind any balancer can answer any request. JSON responses, no SSE stream.
 */
export async function serveMcpRequest(
  runtime: Runtime,
  req: IncomingMessage,
  res: ServerResponse,
  tools: readonly ToolDescriptor[],
  onRateLimit: (state: RateLimitState) => void,
): Promise<void> {
  const server = createMcpServer({ runtime, authorization: req.headers.authorization, onRateLimit, tools });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}
