/**
 * The stdio MCP limit: the SDK's low-level Server (as the service uses) over stdio with one trivial
 * tool, named like the service's, that returns the object in BENCH_OBJECT_FILE the way the service
 * answers a tool call (JSON text plus structuredContent). No auth, rate limits or database.
 */
import { Server, type CallToolResult } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { readFileSync } from 'node:fs';

const item = JSON.parse(readFileSync(process.env.BENCH_OBJECT_FILE!, 'utf8')) as Record<string, unknown>;

serveStdio(() => {
  const server = new Server({ name: 'bench-baseline', version: '0.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', () => ({
    tools: [
      {
        name: 'service_get_content',
        description: 'Returns a fixed content item.',
        inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      },
    ],
  }));
  server.setRequestHandler('tools/call', (request): CallToolResult => {
    const result = { ...item, id: String(request.params.arguments?.id ?? item.id) };
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
  });
  return server;
});
