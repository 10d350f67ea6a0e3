import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, beforeEach } from 'vitest';
import type { Runtime } from '../../src/core/context.ts';
import { createMcpServer } from '../../src/mcp/server.ts';
import { exposedTools } from '../../src/mcp/tool-selection.ts';
import { makeWorkspace, type TestWorkspace } from './factories.ts';
import { startTestServer, type TestServer } from './http.ts';
import { testRuntime, type TestRuntime } from './runtime.ts';

/** An SDK client connected to the real server factory over the in-memory transport, with the tools the runtime's configuration selects. */
export async function connectMcp(runtime: Runtime, apiKey: string | undefined): Promise<Client> {
  const server = createMcpServer({
    runtime,
    authorization: apiKey ? `Bearer ${apiKey}` : undefined,
    tools: exposedTools(runtime.config.mcpTools),
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(clientTransport);
  return client;
}

/** What each test of a tool suite gets afresh: a runtime, its HTTP server, a workspace and a client acting for it. */
export interface McpTestbed {
  runtime: TestRuntime;
  server: TestServer;
  ws: TestWorkspace;
  client: Client;
}

/** Registers the hooks that set up a fresh testbed before each test of the suite and close it after. */
export function useMcpTestbed(options: { env?: Record<string, string> } = {}): McpTestbed {
  const bed = {} as McpTestbed;
  beforeEach(async () => {
    bed.runtime = testRuntime(options);
    bed.server = await startTestServer(bed.runtime);
    bed.ws = makeWorkspace(bed.runtime);
    bed.client = await connectMcp(bed.runtime, bed.ws.apiKey);
  });
  afterEach(async () => {
    await bed.client.close();
    await bed.server.close();
  });
  return bed;
}
