import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/core/accounts/workspaces.ts';
import { loadConfig } from '../../src/core/config.ts';
import { openRuntime } from '../../src/core/runtime.ts';
import { LIST_CACHE_HINT } from '../../src/mcp/server.ts';
import { TOOLS } from '../../tools/index.ts';
import { readReply, useRestTestbed } from '../helpers/http.ts';
import { childEnv, ENTRY_ARGS, ROOT, tempDataDir, withTestDatabase } from '../helpers/subprocess.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';

const REVISION = '2026-07-28';
const SLOW = 60_000;
const READ_TOOLS = TOOLS.filter((tool) => tool.annotations.readOnlyHint === true).map((tool) => tool.name);

/** A 2026-07-28 request: the envelope in `_meta` and, for HTTP, the standard headers mirroring the body. */
function modernRequest(id: number, method: string, params: Record<string, unknown> = {}) {
  const body = {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': REVISION,
        'io.modelcontextprotocol/clientCapabilities': {},
        'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
      },
    },
  };
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': REVISION,
    'mcp-method': method,
    ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
  };
  return { body, headers };
}

/** The parsed JSON of a tool result's one text block. */
const textJson = (result: { content: Array<{ type: string; text: string }> }) => JSON.parse(result.content[0].text);

describe('revision 2026-07-28 over HTTP, without initialize', () => {
  const bed = useRestTestbed();

  const send = async (
    request: ReturnType<typeof modernRequest>,
    { path = '/mcp', headers = {} }: { path?: string; headers?: Record<string, string | undefined> } = {},
  ) => {
    const merged: Record<string, string> = { ...request.headers, authorization: `Bearer ${bed.ws.apiKey}` };
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined) delete merged[name];
      else merged[name] = value;
    }
    return readReply(
      await bed.server.request(path, { method: 'POST', headers: merged, body: JSON.stringify(request.body) }),
    );
  };

  it('answers server/discover, tools/list with private cache hints, and a create then a get', async () => {
    const discover = await send(modernRequest(1, 'server/discover'));
    expect(discover.status).toBe(200);
    expect(discover.body).toMatchObject({ jsonrpc: '2.0', id: 1 });
    const found = discover.body.result;
    expect(found.supportedVersions).toContain(REVISION);
    // resources: the MCP App views (ui://content/preview, ui://content/list).
    expect(found.capabilities).toEqual({ tools: {}, resources: {} });
    expect(found.instructions).toMatch(/^Draft, approve, schedule and publish/);
    expect(found._meta['io.modelcontextprotocol/serverInfo']).toEqual({
      name: 'content-publishing-service',
      title: 'Content Publishing Service',
      version: '0.1.0',
      websiteUrl: 'http://127.0.0.1:3000',
    });
    expect(found).toMatchObject({ resultType: 'complete', ttlMs: LIST_CACHE_HINT.ttlMs, cacheScope: 'private' });

    const list = await send(modernRequest(2, 'tools/list'));
    expect(list.status).toBe(200);
    expect(list.body.result.tools.map((tool: { name: string }) => tool.name)).toEqual(TOOLS.map((tool) => tool.name));
    expect(list.body.result).toMatchObject({ resultType: 'complete', cacheScope: 'private' });
    expect(list.body.result.ttlMs).toBeGreaterThan(0);
    expect(JSON.stringify(list.body.result).length).toBeLessThanOrEqual(45_000);

    const create = modernRequest(3, 'tools/call', {
      name: 'service_create_content',
      arguments: { caption: 'Written over 2026-07-28', target_platforms: ['linkedin'] },
    });
    const created = await send(create);
    expect(created.status).toBe(200);
    expect(created.body.result.isError).toBeUndefined();
    const item = created.body.result.structuredContent;
    expect(item).toMatchObject({ object: 'content', caption: 'Written over 2026-07-28', status: 'draft' });
    expect(textJson(created.body.result)).toEqual(item);
    expect(created.headers.get('x-ratelimit-limit')).toBe('60');

    const read = await send(
      modernRequest(4, 'tools/call', { name: 'service_get_content', arguments: { id: item.id } }),
    );
    expect(read.status).toBe(200);
    expect(read.body.result.structuredContent).toEqual(item);
  });

  it('keeps tool errors as isError results with the API code in the text', async () => {
    const missing = await send(
      modernRequest(5, 'tools/call', {
        name: 'service_get_content',
        arguments: { id: '00000000-0000-4000-8000-000000000000' },
      }),
    );
    expect(missing.status).toBe(200);
    expect(missing.body.result.isError).toBe(true);
    expect(missing.body.result.structuredContent).toBeUndefined();
    expect(textJson(missing.body.result).error.code).toBe('not_found');
  });

  it('answers an unknown tool with -32602, its message free of any "MCP error" prefix', async () => {
    const unknown = await send(modernRequest(6, 'tools/call', { name: 'service_nope', arguments: {} }));
    expect(unknown.body).toMatchObject({ id: 6, error: { code: -32602, message: 'Unknown tool service_nope.' } });
  });

  it('refuses a Mcp-Name or Mcp-Method that disagrees with the body, and a missing Mcp-Name, with 400 HeaderMismatch', async () => {
    const call = modernRequest(7, 'tools/call', { name: 'service_get_account', arguments: {} });
    for (const headers of [
      { 'mcp-name': 'service_list_content' },
      { 'mcp-method': 'tools/list' },
      { 'mcp-name': undefined },
    ]) {
      const refused = await send(call, { headers });
      expect(refused.status, JSON.stringify(headers)).toBe(400);
      expect(refused.body.error.code, JSON.stringify(headers)).toBe(-32020);
    }
    // The same request with agreeing headers runs.
    expect((await send(call)).body.result.structuredContent.workspace_id).toBe(bed.ws.workspace.id);
  });

  it('serves /mcp/readonly in 2026-07-28 too: only the read tools, privately cached', async () => {
    const list = await send(modernRequest(8, 'tools/list'), { path: '/mcp/readonly' });
    expect(list.body.result.tools.map((tool: { name: string }) => tool.name)).toEqual(READ_TOOLS);
    expect(list.body.result.cacheScope).toBe('private');
    const write = await send(modernRequest(9, 'tools/call', { name: 'service_create_content', arguments: {} }), {
      path: '/mcp/readonly',
    });
    expect(write.body.error.code).toBe(-32602);
  });

  it('lets the SDK v2 client negotiate 2026-07-28, list the 20 tools and call one', async () => {
    const client = new Client({ name: 'v2-client', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${bed.server.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${bed.ws.apiKey}` } },
      }),
    );
    try {
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getNegotiatedProtocolVersion()).toBe(REVISION);
      expect(client.getServerVersion()).toMatchObject({ title: 'Content Publishing Service' });
      expect((await client.listTools()).tools).toHaveLength(20);
      const created = await toolResult(client, 'service_create_content', { caption: 'From the v2 client' });
      expect(await toolResult(client, 'service_get_content', { id: created.id })).toEqual(created);
      await toolError(client, 'service_get_content', { id: '00000000-0000-4000-8000-000000000000' }, 'not_found');
      const unknown = await client.callTool({ name: 'service_nope', arguments: {} }).catch((error: Error) => error);
      expect(unknown).toBeInstanceOf(Error);
      expect((unknown as Error).message.match(/MCP error/g)?.length ?? 0).toBeLessThanOrEqual(1);
    } finally {
      await client.close();
    }
  });

  it('lets the SDK 1.32 client negotiate 2025-11-25 with initialize, list the 20 tools and call one', async () => {
    const client = new ClientV1({ name: 'v1-client', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransportV1(new URL(`${bed.server.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${bed.ws.apiKey}` } },
    });
    await client.connect(transport);
    try {
      expect(transport.protocolVersion).toBe('2025-11-25');
      expect((await client.listTools()).tools).toHaveLength(20);
      const created = await toolResult(client, 'service_create_content', { caption: 'From the 1.32 client' });
      expect(await toolResult(client, 'service_get_content', { id: created.id })).toEqual(created);
      const unknown = await client.callTool({ name: 'service_nope', arguments: {} }).catch((error: Error) => error);
      expect(unknown).toBeInstanceOf(Error);
      const { message } = unknown as Error;
      expect(message).toContain('Unknown tool service_nope');
      expect(message.match(/MCP error/g)).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});

describe('origins and hosts on /mcp, with PUBLIC_BASE_URL http://127.0.0.1:3000', () => {
  const bed = useRestTestbed();
  const list = modernRequest(1, 'tools/list');

  const withOrigin = async (origin: string) =>
    bed.server.request('/mcp', {
      method: 'POST',
      headers: { ...list.headers, authorization: `Bearer ${bed.ws.apiKey}`, origin },
      body: JSON.stringify(list.body),
    });

  it('accepts every loopback spelling of the same port as its own origin', async () => {
    for (const origin of ['http://127.0.0.1:3000', 'http://localhost:3000', 'http://[::1]:3000']) {
      const res = await withOrigin(origin);
      expect(res.status, origin).toBe(200);
    }
  });

  it('refuses another port, another scheme and a foreign site with 403 origin_not_allowed', async () => {
    for (const origin of ['http://evil.example', 'http://localhost:3001', 'https://localhost:3000']) {
      const res = await withOrigin(origin);
      expect(res.status, origin).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code, origin).toBe('origin_not_allowed');
    }
  });

  it('refuses a Host that is not loopback (a name rebound to 127.0.0.1) with 403', async () => {
    const { port } = new URL(bed.server.url);
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            path: '/mcp',
            method: 'POST',
            headers: { ...list.headers, host, authorization: `Bearer ${bed.ws.apiKey}` },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify(list.body));
      });
    expect(await status(`evil.example:${port}`)).toBe(403);
    expect(await status(`localhost:${port}`)).toBe(200);
  });
});

describe('revision 2026-07-28 over stdio (subprocess)', () => {
  const data = tempDataDir('mcp-stdio-2026');
  let apiKey: string;

  beforeAll(async () => {
    const runtime = await openRuntime({ config: loadConfig(withTestDatabase({ DATA_DIR: data.dir })) });
    apiKey = (await createWorkspace(runtime, { name: 'Stdio 2026 workspace' })).apiKey;
    await runtime.db.$store.close();
  });
  afterAll(() => data.remove());

  it(
    'answers server/discover and a 2026-07-28 tools/call on raw lines, without initialize',
    async () => {
      const child = spawn(process.execPath, [...ENTRY_ARGS, 'mcp'], {
        cwd: ROOT,
        env: childEnv({ DATA_DIR: data.dir, SERVICE_API_KEY: apiKey }),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
      const exchange = async (request: ReturnType<typeof modernRequest>) => {
        child.stdin.write(`${JSON.stringify(request.body)}\n`);
        const { value } = await lines.next();
        return JSON.parse(value as string);
      };
      try {
        const discover = await exchange(modernRequest(1, 'server/discover'));
        expect(discover.result.supportedVersions).toContain(REVISION);
        expect(discover.result._meta['io.modelcontextprotocol/serverInfo'].title).toBe('Content Publishing Service');
        expect(discover.result.cacheScope).toBe('private');
        const created = await exchange(
          modernRequest(2, 'tools/call', { name: 'service_create_content', arguments: { caption: 'Over stdio' } }),
        );
        expect(created.result.structuredContent).toMatchObject({ caption: 'Over stdio', status: 'draft' });
        const read = await exchange(
          modernRequest(3, 'tools/call', {
            name: 'service_get_content',
            arguments: { id: created.result.structuredContent.id },
          }),
        );
        expect(read.result.structuredContent).toEqual(created.result.structuredContent);
      } finally {
        child.kill();
      }
    },
    SLOW,
  );

  it(
    'lets the SDK v2 client negotiate 2026-07-28 over stdio and call a tool',
    async () => {
      const client = new Client({ name: 'v2-stdio', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [...ENTRY_ARGS, 'mcp'],
          cwd: ROOT,
          env: childEnv({ DATA_DIR: data.dir, SERVICE_API_KEY: apiKey }),
          stderr: 'pipe',
        }),
      );
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(REVISION);
        expect((await client.listTools()).tools).toHaveLength(20);
        expect(await toolResult(client, 'service_list_content')).toMatchObject({ object: 'list' });
      } finally {
        await client.close();
      }
    },
    SLOW,
  );
});
