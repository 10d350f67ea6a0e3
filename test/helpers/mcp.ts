import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Runtime } from '../../src/core/context.ts';
import { createMcpServer } from '../../src/mcp/server.ts';

/** An SDK client connected to the real server factory over the in-memory transport. */
export async function connectMcp(runtime: Runtime, apiKey: string | undefined): Promise<Client> {
  const server = createMcpServer({ runtime, authorization: apiKey ? `Bearer ${apiKey}` : undefined });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(clientTransport);
  return client;
}
