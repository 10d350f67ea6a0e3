/**
 * MCP over stdio: service_get_content calls per second from the SDK's Client through
 * StdioClientTransport to `main.ts mcp`, against the same client talking to a minimal SDK server
 * whose one tool returns an object of the same shape and size. Sequential calls, then N in flight.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Fixture } from './fixtures.ts';
import { budget, childEnv, fmt, percentile, RAISED_LIMITS, REPO_ROOT, table, type Row } from './lib.ts';

export interface StdioSettings {
  warmupSeconds: number;
  seconds: number;
  inFlight: number;
  rounds: number;
}

const MAX_CALLS = 2_000_000;

interface Connected {
  client: Client;
  stderr: () => string;
  close: () => Promise<void>;
}

async function connect(label: string, script: string, args: string[], env: Record<string, string>): Promise<Connected> {
  const extraNodeArgs = (process.env.BENCH_CHILD_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...extraNodeArgs, '--import', 'tsx', script, ...args],
    cwd: REPO_ROOT,
    env,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => {
    err = (err + c.toString('utf8')).slice(-4000);
  });
  const client = new Client({ name: 'bench', version: '0.0.0' });
  const timer = setTimeout(() => void transport.close(), 60_000);
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`${label}: could not connect: ${(error as Error).message}\n${err}`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
  return { client, stderr: () => err, close: () => client.close() };
}

interface CallResult {
  callsPerSecond: number;
  calls: number;
  p50: number;
  p99: number;
}

async function call(client: Client, id: string): Promise<void> {
  const result = await client.callTool({ name: 'service_get_content', arguments: { id } });
  if (result.isError) throw new Error(`service_get_content failed: ${JSON.stringify(result.content)}`);
  const data = result.structuredContent as { id?: string } | undefined;
  if (data?.id !== id) throw new Error(`service_get_content returned ${JSON.stringify(result).slice(0, 300)}`);
}

/** `workers` loops of back-to-back calls until the time or count budget runs out. */
async function drive(client: Client, id: string, workers: number, seconds: number): Promise<CallResult> {
  const latencies: number[] = [];
  const guard = budget(seconds, MAX_CALLS);
  const start = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (guard.more(latencies.length)) {
        const t0 = performance.now();
        await call(client, id);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    callsPerSecond: latencies.length / elapsed,
    calls: latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

function merge(parts: CallResult[]): CallResult & { perRound: number[] } {
  const calls = parts.reduce((sum, p) => sum + p.calls, 0);
  const seconds = parts.reduce((sum, p) => sum + p.calls / p.callsPerSecond, 0);
  return {
    callsPerSecond: calls / seconds,
    calls,
    p50: parts.reduce((sum, p) => sum + p.p50, 0) / parts.length,
    p99: Math.max(...parts.map((p) => p.p99)),
    perRound: parts.map((p) => p.callsPerSecond),
  };
}

/** Warm-up of both, then `rounds` alternating runs (ABBA order) of `workers` concurrent callers each. */
async function compare(conns: Connected[], id: string, workers: number, settings: StdioSettings) {
  const parts = conns.map(() => [] as CallResult[]);
  for (const conn of conns) await drive(conn.client, id, workers, settings.warmupSeconds);
  for (let round = 0; round < settings.rounds; round++) {
    const order = conns.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) parts[i].push(await drive(conns[i].client, id, workers, settings.seconds / settings.rounds));
  }
  return parts.map(merge);
}

export async function benchStdio(
  fixture: Fixture,
  itemId: string,
  objectFile: string,
  settings: StdioSettings,
): Promise<Row[]> {
  console.log(
    `\n== MCP stdio service_get_content: sequential and ${settings.inFlight} in flight, ${settings.warmupSeconds} s warm-up + ` +
      `${settings.seconds} s each in ${settings.rounds} alternating rounds ==`,
  );
  const conns: Connected[] = [];
  let seq, par;
  try {
    conns.push(
      await connect('minimal MCP server', 'bench/baseline-mcp.ts', [], childEnv({ BENCH_OBJECT_FILE: objectFile })),
    );
    conns.push(
      await connect(
        'service mcp',
        'src/cli/main.ts',
        ['mcp'],
        childEnv({ DATA_DIR: fixture.dataDir, SERVICE_API_KEY: fixture.apiKey, ...RAISED_LIMITS }),
      ),
    );
    try {
      for (const conn of conns) await call(conn.client, itemId);
      seq = await compare(conns, itemId, 1, settings);
      par = await compare(conns, itemId, settings.inFlight, settings);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${conns.map((c) => c.stderr()).join('\n')}`, { cause: error });
    }
  } finally {
    for (const conn of conns) await conn.close();
  }

  const line = (label: string, r: CallResult & { perRound: number[] }) => [
    label,
    fmt(r.callsPerSecond),
    r.perRound.map((n) => fmt(n)).join(' / '),
    fmt(r.calls),
    `${fmt(r.p50, 2)} ms`,
    `${fmt(r.p99, 2)} ms`,
  ];
  console.log(
    table(
      ['server', 'calls/s', 'calls/s per round', 'calls', 'p50', 'p99'],
      [
        line('minimal MCP, sequential', seq[0]),
        line('service, sequential', seq[1]),
        line(`minimal MCP, ${settings.inFlight} in flight`, par[0]),
        line(`service, ${settings.inFlight} in flight`, par[1]),
      ],
    ),
  );
  return [
    {
      name: 'MCP stdio get, sequential',
      unit: 'calls/s',
      project: seq[1].callsPerSecond,
      limit: seq[0].callsPerSecond,
      ratio: seq[1].callsPerSecond / seq[0].callsPerSecond,
    },
    {
      name: `MCP stdio get, ${settings.inFlight} in flight`,
      unit: 'calls/s',
      project: par[1].callsPerSecond,
      limit: par[0].callsPerSecond,
      ratio: par[1].callsPerSecond / par[0].callsPerSecond,
    },
  ];
}
