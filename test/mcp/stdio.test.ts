import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rateLimitWindows } from '../../db/schema/index.ts';
import { createWorkspace } from '../../src/core/accounts/workspaces.ts';
import { loadConfig } from '../../src/core/config.ts';
import type { Runtime } from '../../src/core/context.ts';
import { openRuntime } from '../../src/core/runtime.ts';
import { TOOLS } from '../../tools/index.ts';
import { call, startTestServer, type TestServer } from '../helpers/http.ts';
import { childEnv, ENTRY_ARGS, ROOT, runEntry, tempDataDir, withTestDatabase } from '../helpers/subprocess.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';

const SLOW = 60_000;

/** `main.ts mcp`: the stdio server an assistant launches, on the same database file as the HTTP server. */
describe('MCP over stdio (subprocess)', () => {
  const data = tempDataDir('mcp-stdio');
  let runtime: Runtime;
  let server: TestServer;
  let apiKey: string;
  let workspaceId: string;

  beforeAll(async () => {
    runtime = await openRuntime({
      config: loadConfig(withTestDatabase({ DATA_DIR: data.dir, PUBLIC_BASE_URL: 'http://127.0.0.1:3000' })),
    });
    const created = await createWorkspace(runtime, { name: 'Stdio workspace' });
    apiKey = created.apiKey;
    workspaceId = created.workspace.id;
    server = await startTestServer(runtime);
  });
  afterAll(async () => {
    await server?.close();
    await runtime?.db.$store.close();
    data.remove();
  });

  it(
    'speaks only JSON-RPC on stdout: lists the tools, creates and reads content on the shared database',
    async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [...ENTRY_ARGS, 'mcp'],
        cwd: ROOT,
        env: childEnv({ DATA_DIR: data.dir, SERVICE_API_KEY: apiKey }),
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const protocolErrors: Error[] = [];
      const client = new Client({ name: 'stdio-test-client', version: '1.0.0' });
      client.onerror = (error) => protocolErrors.push(error);
      try {
        await client.connect(transport);
        const { tools } = await client.listTools();
        // The same set the in-process server lists (test/mcp/tools-listing.test.ts pins the names).
        expect(tools.map((t) => t.name).sort()).toEqual(TOOLS.map((t) => t.name).sort());

        const created = await toolResult(client, 'service_create_content', {
          caption: 'From the stdio door',
          hashtags: ['#stdio'],
        });
        expect(created).toMatchObject({
          object: 'content',
          caption: 'From the stdio door',
          hashtags: ['stdio'],
          status: 'draft',
        });
        const fetched = await toolResult(client, 'service_get_content', { id: created.id });
        expect(fetched).toEqual(created);

        // The HTTP server on the same file sees the item the stdio process wrote.
        const viaRest = await call(server, 'GET', `/api/v1/content/${created.id}`, {
          headers: { authorization: `Bearer ${apiKey}` },
        });
        expect(viaRest.status).toBe(200);
        expect(viaRest.body).toEqual(created);
        expect((await toolResult(client, 'service_get_account')).workspace_id).toBe(workspaceId);
        await toolError(client, 'service_get_content', { id: '00000000-0000-4000-8000-000000000000' }, 'not_found');

        // Rate-limit counters live in the database, shared with every other process.
        const counted = await runtime.db
          .select()
          .from(rateLimitWindows)
          .where(eq(rateLimitWindows.workspaceId, workspaceId))
          .all();
        const total = (bucket: string) =>
          counted.filter((w) => w.bucket === bucket).reduce((sum, w) => sum + w.count, 0);
        expect(total('write')).toBe(1);
        expect(total('read')).toBe(4);
      } finally {
        await client.close();
      }
      expect(protocolErrors, stderr).toEqual([]);
    },
    SLOW,
  );

  it(
    'refuses to start with a bad or missing SERVICE_API_KEY: non-zero exit, the reason on stderr, nothing on stdout',
    async () => {
      const [bad, missing] = await Promise.all([
        runEntry(['mcp'], { DATA_DIR: data.dir, SERVICE_API_KEY: `np_live_${'Q'.repeat(38)}` }),
        runEntry(['mcp'], { DATA_DIR: data.dir }),
      ]);
      expect(bad.code).not.toBe(0);
      expect(bad.code).not.toBeNull();
      expect(bad.stderr).toMatch(/API key is not valid/i);
      expect(bad.stdout).toBe('');
      expect(missing.code).not.toBe(0);
      expect(missing.code).not.toBeNull();
      expect(missing.stderr).toMatch(/np_live_/);
      expect(missing.stdout).toBe('');
    },
    SLOW,
  );
});
