import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { authenticate } from '../core/accounts/api-keys.ts';
import type { Runtime } from '../core/context.ts';
import { viewDocuments } from './apps/views.ts';
import { createMcpServer } from './server.ts';
import { exposedTools } from './tool-selection.ts';

/**
 * Serves MCP over stdin/stdout with the key from SERVICE_API_KEY, both revisions: the SDK's
 * serveStdio pins the connection to the era its opening message speaks (server/discover or a
 * 2026-07-28 request; initialize for 2025-era clients). stdout belongs to the protocol: everything
 * else goes to stderr. A bad key or tool selection stops start-up with the reason.
 */
export async function serveMcpStdio(runtime: Runtime, apiKey: string | undefined): Promise<{ close(): Promise<void> }> {
  const tools = exposedTools(runtime.config.mcpTools);
  if (!apiKey) throw new Error('Set SERVICE_API_KEY to the API key (np_live_…) the stdio server should act with.');
  const authorization = `Bearer ${apiKey}`;
  await authenticate(runtime, authorization, { planChecks: false });
  // Built now, so a host's first resources/read of a view does not wait for esbuild.
  viewDocuments().catch((error: unknown) => runtime.log.error({ err: error }, 'MCP App views could not be built'));
  return serveStdio(() => createMcpServer({ runtime, authorization, tools }));
}
