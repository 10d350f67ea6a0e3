import { ProtocolErrorCode as ErrorCode } from '@modelcontextprotocol/client';
// The HTTP and stdio cases use SDK 1.x's client: a 2025-11-25 client must keep working.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/core/accounts/workspaces.ts';
import { loadConfig } from '../../src/core/config.ts';
import { openRuntime } from '../../src/core/runtime.ts';
import { exposedTools } from '../../src/mcp/tool-selection.ts';
import { TOOLS } from '../../tools/index.ts';
import { makeWorkspace } from '../helpers/factories.ts';
import { startTestServer } from '../helpers/http.ts';
import { connectMcp } from '../helpers/mcp.ts';
import { testRuntime } from '../helpers/runtime.ts';
import {
  childEnv,
  ENTRY_ARGS,
  ROOT,
  runEntry,
  startEntry,
  tempDataDir,
  withTestDatabase,
} from '../helpers/subprocess.ts';
import { toolResult, type Client as ToolClient } from '../helpers/tool-calls.ts';

const SLOW = 60_000;

/** The tools whose annotations say readOnlyHint: true, in the fixed order of tools/list. */
const READ_TOOLS = [
  'service_get_account',
  'service_get_brand_profile',
  'service_list_social_accounts',
  'service_list_media',
  'service_list_content',
  'service_get_content',
  'service_list_campaigns',
  'service_get_campaign',
  'service_get_analytics',
  'service_list_webhooks',
  'service_list_templates',
];

const selection = (env: Record<string, string>) => loadConfig(env).mcpTools;
const names = (tools: ReadonlyArray<{ name: string }>) => tools.map((tool) => tool.name);

interface ProtocolErrorLike {
  code: number;
  message: string;
}

/**
 * Calls a tool and returns the protocol error it must raise (a rejected request, not an isError
 * result): SDK 1.x's McpError or SDK v2's ProtocolError, whose message says "MCP error" at most once.
 */
async function protocolError(
  client: Pick<Client, 'callTool'> | ToolClient,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ProtocolErrorLike> {
  const error: unknown = await client.callTool({ name, arguments: args }).then(
    (result) => {
      throw new Error(`expected a protocol error, got a result: ${JSON.stringify(result)}`);
    },
    (rejection: unknown) => rejection,
  );
  expect(error).toMatchObject({ code: expect.any(Number), message: expect.any(String) });
  const { message } = error as ProtocolErrorLike;
  expect(message.split('MCP error').length - 1, message).toBeLessThanOrEqual(1);
  return error as ProtocolErrorLike;
}

describe('MCP tool selection: SERVICE_READ_ONLY and SERVICE_TOOLS', () => {
  describe('the selection rule', () => {
    it('exposes all twenty tools in the TOOLS order by default', () => {
      expect(loadConfig({}).mcpTools).toEqual({ readOnly: false, names: null });
      expect(names(exposedTools(selection({})))).toEqual(names(TOOLS));
      expect(TOOLS).toHaveLength(20);
    });

    it('exposes only the tools annotated readOnlyHint in read-only mode, in the TOOLS order', () => {
      const exposed = exposedTools(selection({ SERVICE_READ_ONLY: 'true' }));
      expect(names(exposed)).toEqual(READ_TOOLS);
      expect(exposed.every((tool) => tool.annotations.readOnlyHint === true)).toBe(true);
      expect(names(exposedTools(selection({ SERVICE_READ_ONLY: 'false' })))).toEqual(names(TOOLS));
    });

    it('exposes the named tools in the TOOLS order, whatever order SERVICE_TOOLS gives them in', () => {
      const exposed = exposedTools(
        selection({
          SERVICE_TOOLS: 'service_publish_content, service_get_content,service_create_content ,service_get_content',
        }),
      );
      expect(names(exposed)).toEqual(['service_get_content', 'service_create_content', 'service_publish_content']);
    });

    it('combines both as an intersection: the named tools that read', () => {
      const exposed = exposedTools(
        selection({
          SERVICE_READ_ONLY: 'true',
          SERVICE_TOOLS: 'service_create_content,service_list_templates,service_get_content',
        }),
      );
      expect(names(exposed)).toEqual(['service_get_content', 'service_list_templates']);
    });

    it('refuses a name that is no tool, naming every unknown one, instead of ignoring it', () => {
      expect(() => exposedTools(selection({ SERVICE_TOOLS: 'service_get_content,service_get_contnet' }))).toThrow(
        /SERVICE_TOOLS: no tool is named service_get_contnet\. The tools are service_get_account, /,
      );
      expect(() =>
        exposedTools(selection({ SERVICE_TOOLS: 'get_content,SERVICE_LIST_CONTENT,service_list_content' })),
      ).toThrow(/SERVICE_TOOLS: no tools are named get_content, SERVICE_LIST_CONTENT\./);
    });

    it('refuses a selection that leaves no tool', () => {
      expect(() =>
        exposedTools(
          selection({ SERVICE_READ_ONLY: 'true', SERVICE_TOOLS: 'service_create_content,service_delete_content' }),
        ),
      ).toThrow(
        /SERVICE_TOOLS names only tools that write \(service_create_content, service_delete_content\).*no tool would be left/,
      );
    });

    it('rejects malformed values when the configuration is read', () => {
      expect(() => loadConfig({ SERVICE_TOOLS: ' , ,' })).toThrow(
        /Invalid configuration: SERVICE_TOOLS: expected tool names, comma-separated/,
      );
      expect(() => loadConfig({ SERVICE_READ_ONLY: 'yes' })).toThrow(/Invalid configuration: SERVICE_READ_ONLY/);
      // An empty variable is unset, as for every other variable.
      expect(loadConfig({ SERVICE_TOOLS: '' }).mcpTools.names).toBeNull();
    });
  });

  describe('in process (SDK client over the in-memory transport)', () => {
    it('lists only the read tools in read-only mode, serves a read, and answers a write tool as an unknown tool', async () => {
      const runtime = await testRuntime({ env: { SERVICE_READ_ONLY: 'true' } });
      const ws = await makeWorkspace(runtime);
      const client = await connectMcp(runtime, ws.apiKey);
      try {
        expect(names((await client.listTools()).tools)).toEqual(READ_TOOLS);
        expect(await toolResult(client, 'service_list_content')).toMatchObject({ object: 'list', data: [] });
        const error = await protocolError(client, 'service_create_content', { caption: 'Should not be written' });
        expect(error.code).toBe(ErrorCode.InvalidParams);
        expect(error.message).toContain('Unknown tool service_create_content');
        // The same answer as for a name that never existed.
        expect((await protocolError(client, 'service_does_not_exist')).code).toBe(ErrorCode.InvalidParams);
        expect(await toolResult(client, 'service_list_content')).toMatchObject({ data: [] });
      } finally {
        await client.close();
      }
    });

    it('lists and serves only the SERVICE_TOOLS subset', async () => {
      const runtime = await testRuntime({ env: { SERVICE_TOOLS: 'service_get_content,service_create_content' } });
      const ws = await makeWorkspace(runtime);
      const client = await connectMcp(runtime, ws.apiKey);
      try {
        expect(names((await client.listTools()).tools)).toEqual(['service_get_content', 'service_create_content']);
        const created = await toolResult(client, 'service_create_content', { caption: 'Subset' });
        expect(await toolResult(client, 'service_get_content', { id: created.id })).toEqual(created);
        expect((await protocolError(client, 'service_list_content')).code).toBe(ErrorCode.InvalidParams);
      } finally {
        await client.close();
      }
    });

    it('tells the assistant in its instructions when only some tools are exposed', async () => {
      const runtime = await testRuntime();
      const ws = await makeWorkspace(runtime);
      const full = await connectMcp(runtime, ws.apiKey);
      const readOnly = await connectMcp(await testRuntime({ env: { SERVICE_READ_ONLY: 'true' } }), ws.apiKey);
      try {
        expect(full.getInstructions()).toContain('Recommended flow');
        expect(full.getInstructions()).not.toContain('only some of the tools');
        expect(readOnly.getInstructions()).toContain('only some of the tools');
      } finally {
        await full.close();
        await readOnly.close();
      }
    });
  });

  describe('over streamable HTTP at /mcp', () => {
    it('applies read-only and SERVICE_TOOLS together; a hidden tool is a JSON-RPC -32602 error', async () => {
      const runtime = await testRuntime({
        env: {
          SERVICE_READ_ONLY: 'true',
          SERVICE_TOOLS: 'service_list_content,service_get_account,service_update_content',
        },
      });
      const server = await startTestServer(runtime);
      const ws = await makeWorkspace(runtime);
      const client = new Client({ name: 'selection-http-client', version: '1.0.0' });
      try {
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
            requestInit: { headers: { Authorization: `Bearer ${ws.apiKey}` } },
          }),
        );
        expect(names((await client.listTools()).tools)).toEqual(['service_get_account', 'service_list_content']);
        expect(await toolResult(client, 'service_get_account')).toMatchObject({ workspace_id: ws.workspace.id });
        expect(
          (
            await protocolError(client, 'service_update_content', {
              id: '00000000-0000-4000-8000-000000000000',
              caption: 'x',
            })
          ).code,
        ).toBe(ErrorCode.InvalidParams);

        // On the wire: a JSON-RPC error object, not a tool result.
        const res = await server.request('/mcp', {
          method: 'POST',
          headers: { ...ws.headers, accept: 'application/json, text/event-stream' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 7,
            method: 'tools/call',
            params: { name: 'service_create_content', arguments: { caption: 'x' } },
          }),
        });
        expect(res.status).toBe(200);
        const body = (await res.json()) as any;
        expect(body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602 } });
        expect(body.error.message).toContain('service_create_content');
        expect(body).not.toHaveProperty('result');
      } finally {
        await client.close();
        await server.close();
      }
    });
  });

  describe('the entry (subprocesses)', () => {
    const data = tempDataDir('mcp-selection');
    let apiKey: string;

    beforeAll(async () => {
      const runtime = await openRuntime({ config: loadConfig(withTestDatabase({ DATA_DIR: data.dir })) });
      apiKey = (await createWorkspace(runtime, { name: 'Selection workspace' })).apiKey;
      await runtime.db.$store.close();
    });
    afterAll(() => data.remove());

    it(
      'mcp --read-only with SERVICE_TOOLS lists the intersection over stdio',
      async () => {
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [...ENTRY_ARGS, 'mcp', '--read-only'],
          cwd: ROOT,
          env: childEnv({
            DATA_DIR: data.dir,
            SERVICE_API_KEY: apiKey,
            SERVICE_TOOLS: 'service_create_content,service_list_webhooks,service_get_account',
          }),
          stderr: 'pipe',
        });
        const client = new Client({ name: 'selection-stdio-client', version: '1.0.0' });
        try {
          await client.connect(transport);
          expect(names((await client.listTools()).tools)).toEqual(['service_get_account', 'service_list_webhooks']);
          expect((await protocolError(client, 'service_create_content', { caption: 'x' })).code).toBe(
            ErrorCode.InvalidParams,
          );
        } finally {
          await client.close();
        }
      },
      SLOW,
    );

    it(
      'serve --read-only lists only the read tools at /mcp',
      async () => {
        const proc = startEntry(['serve', '--read-only'], { DATA_DIR: data.dir, PORT: '0', HOST: '127.0.0.1' });
        try {
          const [, url] = await proc.waitForOutput(/Listening on (http:\/\/127\.0\.0\.1:\d+)/, 45_000);
          const client = new Client({ name: 'selection-serve-client', version: '1.0.0' });
          await client.connect(
            new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
              requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
            }),
          );
          try {
            expect(names((await client.listTools()).tools)).toEqual(READ_TOOLS);
          } finally {
            await client.close();
          }
        } finally {
          expect(await proc.stop()).toBe(0);
        }
      },
      SLOW,
    );

    it(
      'stops start-up of mcp and serve on an unknown tool name, naming it; and on an unknown flag',
      async () => {
        const env = {
          DATA_DIR: data.dir,
          SERVICE_API_KEY: apiKey,
          PORT: '0',
          SERVICE_TOOLS: 'service_list_content,service_publish_contents',
        };
        const [mcp, serve, flag] = await Promise.all([
          runEntry(['mcp'], env),
          runEntry(['serve'], env),
          runEntry(['mcp', '--readonly'], { DATA_DIR: data.dir, SERVICE_API_KEY: apiKey }),
        ]);
        for (const run of [mcp, serve]) {
          expect(run.code).toBe(1);
          expect(run.stderr).toContain('SERVICE_TOOLS: no tool is named service_publish_contents.');
        }
        expect(mcp.stdout).toBe('');
        expect(serve.stdout).not.toMatch(/Listening on/);
        expect(flag.code).toBe(1);
        expect(flag.stderr).toMatch(/Unknown option '--readonly'[\s\S]*Usage: main\.ts mcp \[--read-only\]/);
        expect(flag.stdout).toBe('');
      },
      SLOW,
    );
  });
});
