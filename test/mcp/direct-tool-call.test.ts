import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateCredential } from '../../src/core/accounts/api-keys.ts';
import { mcpRequestServer, type McpRequestServerOptions } from '../../src/mcp/http.ts';
import { TOOLS } from '../../tools/index.ts';
import { makeContent, makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { readReply, useRestTestbed } from '../helpers/http.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';

/**
 * The HTTP door answers a well-formed 2026-07-28 tools/call itself, without building the SDK's
 * per-request server (src/mcp/http.ts). Whatever it answers must be what the SDK answers: each
 * request below goes to the door as it serves, and to the same door with every request left to the
 * SDK, and the two answers must agree.
 */

const REVISION = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': REVISION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'direct-test', version: '1.0.0' },
};

interface Exchange {
  headers: Record<string, string | undefined>;
  body: unknown;
}

/** A 2026-07-28 tools/call as a client sends it: the envelope in `_meta`, the standard headers mirroring the body. */
function toolCall(id: number | string, name: string, args?: unknown, params: Record<string, unknown> = {}): Exchange {
  return {
    headers: { 'mcp-protocol-version': REVISION, 'mcp-method': 'tools/call', 'mcp-name': name },
    body: {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, ...(args === undefined ? {} : { arguments: args }), _meta: ENVELOPE, ...params },
    },
  };
}

/** A loopback server around mcpRequestServer, with the route's part done plainly: parse, authenticate, all tools. */
async function serveDoor(
  runtime: TestRuntime,
  options: McpRequestServerOptions,
): Promise<{ url: string; server: Server }> {
  const door = mcpRequestServer(runtime, options);
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const authorization = req.headers.authorization;
    await door(req, res, JSON.parse(Buffer.concat(chunks).toString('utf8')), {
      authorization,
      credential: await authenticateCredential(runtime, authorization, { planChecks: false }),
      tools: TOOLS,
      onRateLimit: (state) => res.setHeader('x-ratelimit-remaining', String(state.remaining)),
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

describe('the direct 2026-07-28 tools/call path', () => {
  let runtime: TestRuntime;
  let ws: TestWorkspace;
  let direct: { url: string; server: Server };
  let sdkOnly: { url: string; server: Server };

  beforeAll(async () => {
    runtime = await testRuntime({ env: { RATE_LIMIT_READ: '100000', RATE_LIMIT_WRITE: '100000' } });
    ws = await makeWorkspace(runtime);
    direct = await serveDoor(runtime, {});
    sdkOnly = await serveDoor(runtime, { directToolCalls: false });
  });
  afterAll(() => {
    direct.server.close();
    sdkOnly.server.close();
  });

  const post = async (url: string, exchange: Exchange, apiKey = ws.apiKey) => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    for (const [name, value] of Object.entries(exchange.headers)) if (value !== undefined) headers[name] = value;
    const reply = await readReply(await fetch(url, { method: 'POST', headers, body: JSON.stringify(exchange.body) }));
    return { status: reply.status, type: reply.headers.get('content-type'), body: reply.body };
  };

  /** The answers of both doors to the same exchange: first the direct door's, then the SDK's. */
  const both = async (exchange: Exchange, apiKey?: string) => [
    await post(direct.url, exchange, apiKey),
    await post(sdkOnly.url, exchange, apiKey),
  ];

  it('answers a call exactly as the SDK does: result, resultType, serverInfo, id', async () => {
    const item = await makeContent(runtime, ws.workspace, { caption: 'Read me back' });
    for (const id of [1, 'call-one']) {
      const [mine, sdk] = await both(toolCall(id, 'service_get_content', { id: item.id }));
      expect(mine).toEqual(sdk);
      expect(mine.status).toBe(200);
      expect(mine.type).toMatch(/^application\/json/);
      expect(mine.body).toMatchObject({ jsonrpc: '2.0', id, result: { resultType: 'complete' } });
      expect(mine.body.result.structuredContent.id).toBe(item.id);
      expect(mine.body.result._meta['io.modelcontextprotocol/serverInfo']).toMatchObject({
        name: 'content-publishing-service',
        websiteUrl: 'http://127.0.0.1:3000',
      });
    }
  });

  it('answers tool errors (unknown id, invalid arguments, no arguments) exactly as the SDK does', async () => {
    for (const exchange of [
      toolCall(2, 'service_get_content', { id: '00000000-0000-4000-8000-000000000000' }),
      toolCall(3, 'service_create_content', { caption: 7, status: 'nonsense' }),
      toolCall(4, 'service_get_content'),
      toolCall(5, 'service_list_content', { limit: 1 }),
    ]) {
      const [mine, sdk] = await both(exchange);
      expect(mine, JSON.stringify(exchange.body)).toEqual(sdk);
    }
    const [invalid] = await both(toolCall(3, 'service_create_content', { caption: 7 }));
    expect(invalid.body.result.isError).toBe(true);
    expect(JSON.parse(invalid.body.result.content[0].text).error.code).toBe('invalid_body');
  });

  it('replays an idempotent create on either path with the same answer', async () => {
    const create = toolCall(6, 'service_create_content', { caption: 'Once only', idempotency_key: 'direct-1' });
    const first = await post(direct.url, create);
    expect(first.body.result.structuredContent.caption).toBe('Once only');
    const [mine, sdk] = await both(create);
    expect(mine).toEqual(sdk);
    expect(mine.body.result.structuredContent).toEqual(first.body.result.structuredContent);
  });

  it('answers a past_due workspace payment_required on content tools and still its account, as the SDK does', async () => {
    const pastDue = await makeWorkspace(runtime, { status: 'past_due' });
    const [refused, sdkRefused] = await both(toolCall(7, 'service_list_content', {}), pastDue.apiKey);
    expect(refused).toEqual(sdkRefused);
    expect(JSON.parse(refused.body.result.content[0].text).error.code).toBe('payment_required');
    const [account, sdkAccount] = await both(toolCall(8, 'service_get_account', {}), pastDue.apiKey);
    expect(account).toEqual(sdkAccount);
    expect(account.body.result.structuredContent.plan_status).toBe('past_due');
  });

  it('leaves every request it does not fully vouch for to the SDK: the refusals and odd shapes answer alike', async () => {
    const item = await makeContent(runtime, ws.workspace);
    const call = toolCall(9, 'service_get_content', { id: item.id });
    const callBody = call.body as { params: Record<string, unknown> };
    const variants: Array<[string, Exchange]> = [
      ['an unknown tool', toolCall(10, 'service_nope', {})],
      ['arguments that are no object', toolCall(11, 'service_get_content', 'x')],
      ['a requestState of the wrong type', toolCall(12, 'service_get_content', { id: item.id }, { requestState: 5 })],
      [
        'a progress token in _meta',
        toolCall(
          13,
          'service_get_content',
          { id: item.id },
          {
            _meta: { ...ENVELOPE, progressToken: 'p-1' },
          },
        ),
      ],
      [
        'an envelope with invalid capabilities',
        toolCall(
          14,
          'service_get_content',
          { id: item.id },
          {
            _meta: { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': 'none' },
          },
        ),
      ],
      [
        'an envelope naming another revision',
        toolCall(
          15,
          'service_get_content',
          { id: item.id },
          {
            _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
          },
        ),
      ],
      ['a fractional id', { ...call, body: { ...(call.body as object), id: 1.5 } }],
      ['a body with a result beside its method', { ...call, body: { ...(call.body as object), result: {} } }],
      ['Mcp-Name naming another tool', { ...call, headers: { ...call.headers, 'mcp-name': 'service_list_content' } }],
      ['Mcp-Name missing', { ...call, headers: { ...call.headers, 'mcp-name': undefined } }],
      [
        'Mcp-Name as a Base64 sentinel',
        { ...call, headers: { ...call.headers, 'mcp-name': `=?base64?${btoa('service_get_content')}?=` } },
      ],
      ['Mcp-Method missing', { ...call, headers: { ...call.headers, 'mcp-method': undefined } }],
      ['MCP-Protocol-Version missing', { ...call, headers: { ...call.headers, 'mcp-protocol-version': undefined } }],
      [
        'MCP-Protocol-Version disagreeing',
        { ...call, headers: { ...call.headers, 'mcp-protocol-version': '2025-11-25' } },
      ],
      ['no envelope at all', { ...call, body: { ...(call.body as object), params: { name: callBody.params.name } } }],
    ];
    for (const [what, exchange] of variants) {
      const [mine, sdk] = await both(exchange);
      expect(mine, what).toEqual(sdk);
    }
    // The refusals among them are refusals, not calls: the SDK's own error cells.
    const [mismatch] = await both(variants[8][1]);
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.code).toBe(-32020);
    const [unknown] = await both(variants[0][1]);
    expect(unknown.body.error).toEqual({ code: -32602, message: 'Unknown tool service_nope.' });
  });
});

describe('the direct path behind the real route', () => {
  const bed = useRestTestbed();

  const send = async (path: string, exchange: Exchange, headers: Record<string, string> = {}) =>
    readReply(
      await bed.server.request(path, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${bed.ws.apiKey}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(exchange.headers as Record<string, string>),
          ...headers,
        },
        body: JSON.stringify(exchange.body),
      }),
    );

  it('serves only the tools the connection selects, and puts the rate-limit headers on the answer', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace);
    const read = await send('/mcp', toolCall(1, 'service_get_content', { id: item.id }));
    expect(read.status).toBe(200);
    expect(read.body.result.structuredContent.id).toBe(item.id);
    // The read bucket, of which this call took one.
    const limit = Number(read.headers.get('x-ratelimit-limit'));
    expect(limit).toBeGreaterThan(0);
    expect(Number(read.headers.get('x-ratelimit-remaining'))).toBe(limit - 1);

    const unselected = await send('/mcp', toolCall(2, 'service_get_content', { id: item.id }), {
      'x-mcp-tools': 'service_list_content',
    });
    expect(unselected.body.error).toEqual({ code: -32602, message: 'Unknown tool service_get_content.' });
    const readOnly = await send('/mcp/readonly', toolCall(3, 'service_create_content', { caption: 'No' }));
    expect(readOnly.body.error.code).toBe(-32602);
    const listed = await send('/mcp', toolCall(4, 'service_list_content', {}));
    expect(listed.body.result.structuredContent.data.map((each: { id: string }) => each.id)).toEqual([item.id]);
  });
});
