import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterEach, beforeEach } from 'vitest';
import type { Runtime } from '../../src/core/context.ts';
import { createMcpServer } from '../../src/mcp/server.ts';
import { exposedTools } from '../../src/mcp/tool-selection.ts';
import { useRestTestbed, type RestTestbed, type TestbedOptions } from './http.ts';

/**
 * An SDK v2 client connected to the real server factory over the in-memory transport (which speaks the
 * 2025 era: the 2026-07-28 revision is tested over HTTP and stdio),
 * with the tools the runtime's configuration selects.
 */
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
export interface McpTestbed extends RestTestbed {
  client: Client;
}

/** Registers the hooks that set up a fresh testbed before each test of the suite and close it after. */
export function useMcpTestbed(options: TestbedOptions = {}): McpTestbed {
  const bed = useRestTestbed(options) as McpTestbed;
  beforeEach(async () => {
    bed.client = await connectMcp(bed.runtime, bed.ws.apiKey);
  });
  // After hooks run in reverse: the client closes before the server does.
  afterEach(() => bed.client.close());
  return bed;
}
