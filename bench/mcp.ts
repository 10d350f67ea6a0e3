/**
 * The MCP door over streamable HTTP: `tools/call service_get_content` as revision 2026-07-28
 * requests (no session: the envelope in `_meta` and the MCP-Protocol-Version, Mcp-Method and
 * Mcp-Name headers on every POST) against `GET /api/v1/content/{id}` on the same server process,
 * with the same key, connection count and duration, in interleaved rounds. The ratio is the median
 * of the rounds' MCP/REST ratios: the door's cost over the same operation.
 *
 * Then, on Linux, the same two loads again, this time reading the server's CPU time (user and
 * system, /proc) per request answered: on a machine others share, a neighbour's burst moves
 * throughput a lot more than it moves the CPU a request costs, so this figure says what the
 * throughput ratio should be once the machine is quiet (info, no target).
 */
import type { Fixture } from './fixtures.ts';
import { compareLoad, cpuPerRequest, fmt, median, table, type HttpChild, type LoadOptions, type Row } from './lib.ts';

export interface McpSettings {
  connections: number;
  warmupSeconds: number;
  seconds: number;
  rounds: number;
}

const REVISION = '2026-07-28';

/** The tools/call request and its headers, as a 2026-07-28 client sends them. */
export function modernGetContent(itemId: string, apiKey: string): { headers: Record<string, string>; body: string } {
  return {
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': REVISION,
      'mcp-method': 'tools/call',
      'mcp-name': 'service_get_content',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'service_get_content',
        arguments: { id: itemId },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': REVISION,
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '0.0.0' },
        },
      },
    }),
  };
}

/** One call checked end to end: autocannon counts statuses only, and a tool error is a 200. */
async function checkOnce(url: string, request: { headers: Record<string, string>; body: string }, itemId: string) {
  const res = await fetch(url, { method: 'POST', headers: request.headers, body: request.body });
  const text = await res.text();
  let answer: { result?: { isError?: boolean; structuredContent?: { id?: string }; resultType?: string } };
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    throw new Error(`MCP bench: POST /mcp answered ${res.status} with no JSON: ${text.slice(0, 300)}`);
  }
  const result = answer.result;
  if (res.status !== 200 || result?.isError || result?.structuredContent?.id !== itemId || !result.resultType) {
    throw new Error(`MCP bench: tools/call service_get_content did not answer the item: ${text.slice(0, 500)}`);
  }
}

export async function benchMcp(
  service: HttpChild,
  fixture: Fixture,
  itemId: string,
  settings: McpSettings,
): Promise<Row[]> {
  const rounds = Math.max(3, settings.rounds);
  const request = modernGetContent(itemId, fixture.apiKey);
  await checkOnce(`${service.url}/mcp`, request, itemId);
  const common = {
    connections: settings.connections,
    warmupSeconds: settings.warmupSeconds,
    seconds: settings.seconds,
  };
  console.log(
    `\n== MCP tools/call service_get_content (${REVISION}, stateless) vs REST GET /api/v1/content/{id}, same server: ` +
      `${settings.connections} connections, ${settings.warmupSeconds} s warm-up + ${settings.seconds} s each in ${rounds} alternating rounds ==`,
  );
  const restOptions: LoadOptions = {
    ...common,
    url: `${service.url}/api/v1/content/${itemId}`,
    headers: { authorization: `Bearer ${fixture.apiKey}` },
  };
  const mcpOptions: LoadOptions = { ...common, url: `${service.url}/mcp`, method: 'POST', ...request };
  const [rest, mcp] = await compareLoad(
    [
      { label: 'REST GET', options: restOptions },
      { label: 'MCP tools/call', options: mcpOptions },
    ],
    rounds,
  );
  // Still answering the item after the load: no round was measured on failing calls (a tool error is a 200).
  await checkOnce(`${service.url}/mcp`, request, itemId);
  const ratios = mcp.perRound.map((perSecond, round) => perSecond / rest.perRound[round]);
  const ratio = median(ratios);
  console.log(
    table(
      ['door', 'req/s', 'req/s per round', 'requests', 'p50', 'p99'],
      [rest, mcp].map((r, i) => [
        i === 0 ? 'REST GET' : 'MCP tools/call',
        fmt(r.requestsPerSecond),
        r.perRound.map((n) => fmt(n)).join(' / '),
        fmt(r.total),
        `${fmt(r.p50, 1)} ms`,
        `${fmt(r.p99, 1)} ms`,
      ]),
    ),
  );
  console.log(`MCP/REST per round: ${ratios.map((r) => fmt(r, 2)).join(' / ')}; median ${fmt(ratio, 2)}`);
  const cpuMedians = await cpuPerRequest(
    service.child.pid,
    [
      { label: 'REST', options: restOptions },
      { label: 'MCP', options: mcpOptions },
    ],
    rounds,
  );
  const cpu = cpuMedians && { rest: cpuMedians[0]!, mcp: cpuMedians[1]! };
  return [
    {
      name: 'MCP tools/call get_content vs REST GET',
      unit: 'req/s',
      project: median(mcp.perRound),
      limit: median(rest.perRound),
      ratio,
      target: { op: '>=', value: 0.6 },
      note: `median of ${rounds} rounds`,
    },
    ...(cpu
      ? [
          {
            name: 'MCP tools/call vs REST GET, server CPU per request',
            unit: 'µs',
            project: cpu.mcp,
            limit: cpu.rest,
            ratio: cpu.mcp / cpu.rest,
            note: `median of ${rounds} rounds; REST/MCP ${fmt(cpu.rest / cpu.mcp, 2)}`,
          },
        ]
      : []),
  ];
}
