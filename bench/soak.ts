/**
 * Soak: the real server (`main.ts serve`, a child on a temp DATA_DIR) under a steady mixed load for
 * `minutes` (10 by default), after a warm-up at the same load (2 minutes by default):
 *
 *   REST      creates, reads, caption updates, lists, deletes of content; publishes now (fanned out to
 *             three connected sandbox accounts) and scheduled 15 s ahead, which come due during the run;
 *             reads of the webhook delivery log
 *   MCP       tools/call over streamable HTTP at /mcp (get, list, create, update content; the account)
 *   webhooks  one subscription to every event, delivered to bench/receiver.ts (a child), which counts
 *             the distinct event ids it is sent
 *
 * Each kind of request runs open-loop at a fixed rate (a slow answer does not slow the offered load),
 * with a cap on requests in flight. Reported: responses by status (the warm-up's too), throughput and
 * p50/p99 latency per kind over the measured minutes, the server's RSS (VmRSS from /proc) right after
 * the warm-up and at the end of the load (with its heap used, heap total and external memory from its
 * GET /metrics, every 10 s from the start of the load, to tell a leak from a cache filling), and
 * whether every event reached the receiver once the load stopped. PASS needs no 5xx (nor a network error), RSS growth under 10 %, every event delivered.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createWorkspaceViaCli } from './fixtures.ts';
import {
  childEnv,
  fmt,
  percentile,
  RAISED_LIMITS,
  runChild,
  startHttpChild,
  statusField,
  table,
  tempDir,
  type HttpChild,
  type Row,
} from './lib.ts';

export interface SoakSettings {
  /** Measured minutes; the warm-up comes before them. */
  minutes: number;
  /**
   * Load before the start figures are taken (420 s by default): until then the server's memory has not
   * reached its working size at this load, for two reasons, both measured on 2026-11-25.
   * - V8 lets the old generation grow to about four times the live heap before its first full
   *   collection under load, which came some 70 s after start (103 MB of heap collected to 32 MB live).
   * - SQLite's page cache: better-sqlite3 is built with a 16 MB cache per connection
   *   (SQLITE_DEFAULT_CACHE_SIZE=-16000), and it fills as the database grows, ~2.7 MB a minute at this
   *   load. RSS less V8's heap total climbed 88 → 104 MB between 2 and 6.6 minutes into the load,
   *   then stayed at 102–104; with the cache held to 2 MB it stayed at 86–88 over the same minutes.
   *   Two heap snapshots 3.6 minutes apart: the live JS heap went 36.5 → 37.3 MB (0.7 MB of it JIT code).
   * The end of the warm-up and the figure 120 s into the load (the former start) are both reported.
   */
  warmupSeconds: number;
}

const MB = 1024 * 1024;
/** Platforms whose sandbox accepts a text post: publishes fan out to all three. */
const PLATFORMS = ['twitter', 'linkedin', 'facebook'];
/** How far ahead scheduled publishes are set, so they come due while the load runs. */
const SCHEDULE_AHEAD_MS = 15_000;
/** A request that takes longer counts as a timeout. */
const REQUEST_TIMEOUT_MS = 30_000;
/** Requests of one kind in flight at most; beyond it an arrival is counted as skipped, not queued. */
const MAX_IN_FLIGHT = 64;
/** Content ids kept for reads and updates; older ones are forgotten (they stay in the database). */
const POOL_SIZE = 1_000;

/** One answer: the status as a label (`201`, `200 tool error not_found`, `timeout`, …) and its latency. */
interface Outcome {
  label: string;
  ms: number;
}

/** Content items this run created and may still touch. An id in use by a write is not handed out again until it is done. */
class ContentPool {
  private readonly ids: string[] = [];
  private readonly busy = new Set<string>();

  add(id: string): void {
    this.ids.push(id);
    if (this.ids.length > POOL_SIZE) this.ids.splice(0, this.ids.length - POOL_SIZE);
  }

  /** Any id, for reads. */
  any(): string | undefined {
    return this.ids[Math.floor(Math.random() * this.ids.length)];
  }

  /** An id no other write holds, reserved until `release`; `remove` drops it from the pool for good. */
  reserve(remove = false): string | undefined {
    for (let tries = 0; tries < 8 && this.ids.length > 0; tries++) {
      const index = Math.floor(Math.random() * this.ids.length);
      const id = this.ids[index]!;
      if (this.busy.has(id)) continue;
      this.busy.add(id);
      if (remove) this.ids.splice(index, 1);
      return id;
    }
    return undefined;
  }

  release(id: string): void {
    this.busy.delete(id);
  }
}

/** Latencies and status counts of one kind of request in one phase. */
class Tally {
  readonly latencies: number[] = [];
  readonly statuses = new Map<string, number>();
  skipped = 0;

  record(outcome: Outcome): void {
    this.latencies.push(outcome.ms);
    this.statuses.set(outcome.label, (this.statuses.get(outcome.label) ?? 0) + 1);
  }
}

type Phase = 'warm-up' | 'measured' | 'done';

class Recorder {
  phase: Phase = 'warm-up';
  readonly tallies: Record<'warm-up' | 'measured', Map<string, Tally>> = { 'warm-up': new Map(), measured: new Map() };

  tally(kind: string): Tally | undefined {
    if (this.phase === 'done') return undefined;
    const byKind = this.tallies[this.phase];
    let tally = byKind.get(kind);
    if (!tally) byKind.set(kind, (tally = new Tally()));
    return tally;
  }

  record(kind: string, outcome: Outcome): void {
    this.tally(kind)?.record(outcome);
  }
}

interface Client {
  baseUrl: string;
  headers: Record<string, string>;
  recorder: Recorder;
}

/** One HTTP request, timed and recorded under `kind`; resolves with the parsed body of a 2xx, else undefined. */
async function request(client: Client, kind: string, method: string, path: string, body?: unknown): Promise<any> {
  const started = performance.now();
  let label: string;
  let parsed: any;
  try {
    const res = await fetch(client.baseUrl + path, {
      method,
      headers: client.headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await res.text();
    label = String(res.status);
    if (res.ok) {
      parsed = text ? JSON.parse(text) : undefined;
      if (path === '/mcp') label += mcpProblem(parsed);
    } else {
      label += errorCode(text);
    }
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    label =
      (error as Error).name === 'TimeoutError' ? 'timeout' : `network error ${cause?.code ?? (error as Error).message}`;
  }
  client.recorder.record(kind, { label, ms: performance.now() - started });
  return label.startsWith('2') && !label.includes('error') ? parsed : undefined;
}

/** ` invalid_state` from an error envelope, to tell 4xx apart in the table. */
function errorCode(text: string): string {
  try {
    const code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
    return code ? ` ${code}` : '';
  } catch {
    return '';
  }
}

/** An MCP answer is HTTP 200 either way: a JSON-RPC error or a tool error is told apart here. */
function mcpProblem(body: any): string {
  if (body?.error) return ` rpc error ${body.error.code}`;
  if (body?.result?.isError) return ` tool error ${body.result.structuredContent?.error?.code ?? 'unknown'}`;
  return '';
}

const caption = (what: string) =>
  `Soak ${what} ${new Date().toISOString()}: autumn collection preview, early access Thursday. #soak`;

/** The mix: each kind with its rate per second and one operation (which may make several requests). */
interface Kind {
  kind: string;
  perSecond: number;
  /** Requests one run makes (publishing creates the item first). */
  requests?: number;
  run: () => Promise<unknown>;
}

function mix(client: Client, pool: ContentPool, webhookId: string): Kind[] {
  let rpcId = 0;
  const tool = (name: string, args: Record<string, unknown>) =>
    request(client, `MCP ${name}`, 'POST', '/mcp', {
      jsonrpc: '2.0',
      id: ++rpcId,
      method: 'tools/call',
      params: { name, arguments: args },
    });
  const create = async (what: string) => {
    const created = await request(client, 'POST /content', 'POST', '/api/v1/content', {
      caption: caption(what),
      hashtags: ['soak'],
      target_platforms: PLATFORMS,
    });
    return created?.id as string | undefined;
  };
  const withReserved = async (remove: boolean, run: (id: string) => Promise<unknown>) => {
    const id = pool.reserve(remove);
    if (!id) return;
    try {
      await run(id);
    } finally {
      pool.release(id);
    }
  };
  const mcpTools = [
    () => tool('service_get_content', { id: pool.any() }),
    () => tool('service_list_content', { limit: 20 }),
    async () => {
      const created = await tool('service_create_content', {
        caption: caption('via MCP'),
        target_platforms: PLATFORMS,
      });
      const id = created?.result?.structuredContent?.id;
      if (id) pool.add(id);
    },
    () => withReserved(false, (id) => tool('service_update_content', { id, caption: caption('updated via MCP') })),
    () => tool('service_get_account', {}),
  ];
  let nextTool = 0;
  return [
    {
      kind: 'POST /content',
      perSecond: 4,
      run: async () => {
        const id = await create('draft');
        if (id) pool.add(id);
      },
    },
    {
      kind: 'GET /content/{id}',
      perSecond: 12,
      run: () => request(client, 'GET /content/{id}', 'GET', `/api/v1/content/${pool.any()}`),
    },
    {
      kind: 'PATCH /content/{id}',
      perSecond: 4,
      run: () =>
        withReserved(false, (id) =>
          request(client, 'PATCH /content/{id}', 'PATCH', `/api/v1/content/${id}`, { caption: caption('updated') }),
        ),
    },
    {
      kind: 'GET /content',
      perSecond: 3,
      run: () => request(client, 'GET /content', 'GET', '/api/v1/content?limit=20'),
    },
    {
      kind: 'DELETE /content/{id}',
      perSecond: 1,
      run: () => withReserved(true, (id) => request(client, 'DELETE /content/{id}', 'DELETE', `/api/v1/content/${id}`)),
    },
    {
      kind: 'POST /content/{id}/publish',
      perSecond: 1.5,
      requests: 2,
      run: async () => {
        const id = await create('published now');
        if (id) await request(client, 'POST /content/{id}/publish', 'POST', `/api/v1/content/${id}/publish`, {});
      },
    },
    {
      kind: 'POST /content/{id}/publish (scheduled)',
      perSecond: 1.5,
      requests: 2,
      run: async () => {
        const id = await create('scheduled');
        const scheduledFor = new Date(Date.now() + SCHEDULE_AHEAD_MS).toISOString();
        if (id)
          await request(client, 'POST /content/{id}/publish (scheduled)', 'POST', `/api/v1/content/${id}/publish`, {
            scheduled_for: scheduledFor,
          });
      },
    },
    {
      kind: 'GET /webhooks/{id}/deliveries',
      perSecond: 0.5,
      run: () =>
        request(client, 'GET /webhooks/{id}/deliveries', 'GET', `/api/v1/webhooks/${webhookId}/deliveries?limit=20`),
    },
    { kind: 'MCP tools/call', perSecond: 8, run: () => mcpTools[nextTool++ % mcpTools.length]!() },
  ];
}

/** Runs every kind open-loop at its rate until `stop()`: a 10 ms tick starts whatever is due. */
function drive(recorder: Recorder, kinds: Kind[]): { stop: () => Promise<void> } {
  const started = performance.now();
  const state = kinds.map(() => ({ issued: 0, inFlight: new Set<Promise<unknown>>() }));
  const timer = setInterval(() => {
    const elapsed = (performance.now() - started) / 1000;
    kinds.forEach((kind, i) => {
      const s = state[i]!;
      for (const due = Math.floor(elapsed * kind.perSecond); s.issued < due; s.issued++) {
        if (s.inFlight.size >= MAX_IN_FLIGHT) {
          const tally = recorder.tally(kind.kind);
          if (tally) tally.skipped += 1;
          continue;
        }
        const running = kind
          .run()
          .catch((error: unknown) =>
            recorder.record(kind.kind, { label: `bench error ${(error as Error).message}`, ms: 0 }),
          );
        s.inFlight.add(running);
        void running.finally(() => s.inFlight.delete(running));
      }
    });
  }, 10);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(state.flatMap((s) => [...s.inFlight]));
    },
  };
}

/** What the database says once the load stopped: read-only, next to the running server. */
function backlog(
  databaseFile: string,
  webhookId: string,
): { events: number; pendingPublishes: number; scheduled: number; overdueScheduled: number } {
  const db = new Database(databaseFile, { readonly: true, fileMustExist: true });
  try {
    const count = (query: string, ...params: unknown[]) => (db.prepare(query).get(...params) as { n: number }).n;
    return {
      // Every event written after the subscription was made is owed to the receiver.
      events: count(
        'select count(*) as n from events where seq > (select start_after_seq from webhooks where id = ?)',
        webhookId,
      ),
      pendingPublishes: count("select count(*) as n from content where publish_queued = 1 or status = 'publishing'"),
      scheduled: count("select count(*) as n from content where status = 'scheduled'"),
      overdueScheduled: count(
        "select count(*) as n from content where status = 'scheduled' and scheduled_for < ?",
        Date.now() - 5_000,
      ),
    };
  } finally {
    db.close();
  }
}

/** One memory sample of the server: RSS from /proc, the V8 heap and external memory from its GET /metrics. */
interface MemorySample {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

/** The gauges GET /metrics reports for the process (prom-client's default metrics), by name. */
const METRIC_FIELDS = {
  heapUsed: 'nodejs_heap_size_used_bytes',
  heapTotal: 'nodejs_heap_size_total_bytes',
  external: 'nodejs_external_memory_bytes',
} as const;

/**
 * RSS and the server's own view of its memory, so growth can be told apart: heap used is live JS
 * objects (plus garbage not yet collected), heap total is what V8 has reserved for them, external is
 * buffers and native objects V8 knows about; what RSS has beyond those is code, stacks, SQLite's page
 * caches and malloc's free lists. The scrape also loads GET /metrics itself once every sample.
 */
async function memorySample(client: Client, pid: number): Promise<MemorySample> {
  const rss = statusField(pid, 'VmRSS');
  // The child inherits METRICS_TOKEN from our environment (childEnv), if it is set.
  const token = process.env.METRICS_TOKEN;
  const res = await fetch(`${client.baseUrl}/metrics`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  if (!res.ok) throw new Error(`GET /metrics answered ${res.status}`);
  const text = await res.text();
  const gauge = (name: string) => {
    const match = new RegExp(`^${name} (\\S+)`, 'm').exec(text);
    if (!match) throw new Error(`GET /metrics has no ${name}`);
    return Number(match[1]);
  };
  return {
    rss,
    heapUsed: gauge(METRIC_FIELDS.heapUsed),
    heapTotal: gauge(METRIC_FIELDS.heapTotal),
    external: gauge(METRIC_FIELDS.external),
  };
}

/** `170 / 31 / 60 / 4`: RSS, heap used, heap total, external, in MB. */
const memoryLine = (m: MemorySample) =>
  [m.rss, m.heapUsed, m.heapTotal, m.external].map((bytes) => fmt(bytes / MB)).join(' / ');

async function receiverStats(receiver: HttpChild): Promise<{ received: number; distinct_event_ids: number }> {
  const res = await fetch(`${receiver.url}/stats`);
  return (await res.json()) as { received: number; distinct_event_ids: number };
}

/** The status table: every label seen, with counts per phase. */
function statusRows(recorder: Recorder): string[][] {
  const totals = new Map<string, { warm: number; measured: number }>();
  for (const phase of ['warm-up', 'measured'] as const) {
    for (const tally of recorder.tallies[phase].values()) {
      for (const [label, n] of tally.statuses) {
        const entry = totals.get(label) ?? { warm: 0, measured: 0 };
        if (phase === 'warm-up') entry.warm += n;
        else entry.measured += n;
        totals.set(label, entry);
      }
    }
  }
  return [...totals.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([label, n]) => [label, fmt(n.warm), fmt(n.measured)]);
}

export async function benchSoak(settings: SoakSettings): Promise<Row[]> {
  const measuredSeconds = settings.minutes * 60;
  const { warmupSeconds } = settings;
  console.log(
    `\n== Soak: ${fmt(settings.minutes, settings.minutes < 1 ? 2 : 0)} min of mixed REST, MCP, publishing and webhook traffic after a ${warmupSeconds} s warm-up ==`,
  );
  const data = tempDir('soak');
  const children: HttpChild[] = [];
  try {
    const fixture = await createWorkspaceViaCli(data.path);
    for (const platform of PLATFORMS) {
      await runChild(
        'src/cli/main.ts',
        [
          'admin',
          'connect-account',
          '--workspace',
          fixture.workspaceId,
          '--platform',
          platform,
          '--username',
          `soak_${platform}`,
        ],
        childEnv({ DATA_DIR: data.path }),
      );
    }
    const receiver = await startHttpChild('receiver', 'bench/receiver.ts', [], childEnv({ PORT: '0' }));
    children.push(receiver);
    const server = await startHttpChild(
      'service',
      'src/cli/main.ts',
      ['serve'],
      childEnv({
        PORT: '0',
        DATA_DIR: data.path,
        ...RAISED_LIMITS,
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        WEBHOOK_RETRY_DELAYS: '5,15,30,60,120',
      }),
    );
    children.push(server);
    const pid = server.child.pid!;
    const recorder = new Recorder();
    const client: Client = {
      baseUrl: server.url,
      headers: {
        authorization: `Bearer ${fixture.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      recorder,
    };
    const webhook = await request(client, 'setup', 'POST', '/api/v1/webhooks', {
      url: `${receiver.url}/hook`,
      events: [],
    });
    if (!webhook?.id) throw new Error(`could not subscribe the receiver:\n${server.log()}`);
    const pool = new ContentPool();
    for (let i = 0; i < 20; i++) {
      const seeded = await request(client, 'setup', 'POST', '/api/v1/content', {
        caption: caption('seed'),
        target_platforms: PLATFORMS,
      });
      if (!seeded?.id) throw new Error(`could not create a content item:\n${server.log()}`);
      pool.add(seeded.id);
    }
    console.log(
      `service at ${server.url} (pid ${pid}), receiver at ${receiver.url}, workspace ${fixture.workspaceId}, webhook ${webhook.id}`,
    );

    const kinds = mix(client, pool, webhook.id);
    const offered = kinds.reduce((n, k) => n + k.perSecond * (k.requests ?? 1), 0);
    console.log(
      `offered load, ${fmt(offered, 1)} requests/s: ${kinds.map((k) => `${k.kind} ${k.perSecond}/s`).join(', ')}`,
    );
    const load = drive(recorder, kinds);
    // Memory every 10 s from the start of the load, the warm-up included; the measured figures start
    // at the sample taken as the warm-up ends.
    const loadStart = performance.now();
    const samples: Array<MemorySample & { at: number }> = [];
    const sampleUntil = async (seconds: number, progress: () => string) => {
      while (samples.length === 0 || samples.at(-1)!.at < seconds) {
        const at = Math.min(seconds, (samples.at(-1)?.at ?? -10) + 10);
        await sleep(Math.max(0, loadStart + at * 1000 - performance.now()));
        samples.push({ ...(await memorySample(client, pid)), at });
        if (samples.length % 6 === 1 || at === seconds)
          console.log(
            `  ${fmt(at)} s: ${progress()}, RSS / heap used / heap total / external ${memoryLine(samples.at(-1)!)} MB`,
          );
      }
    };
    const requestsIn = (phase: 'warm-up' | 'measured') =>
      `${fmt([...recorder.tallies[phase].values()].reduce((n, t) => n + t.latencies.length, 0))} ${phase} requests`;
    await sampleUntil(warmupSeconds, () => requestsIn('warm-up'));
    recorder.phase = 'measured';
    const measureStart = performance.now();
    const warmupSamples = samples.length - 1;
    console.log(`warm-up done (${fmt(warmupSeconds)} s)`);
    await sampleUntil(warmupSeconds + measuredSeconds, () => requestsIn('measured'));
    const rssStart = samples[warmupSamples]!.rss;
    const rssEnd = samples.at(-1)!.rss;
    /** RSS 120 s into the load, where the measured minutes used to start (see SoakSettings.warmupSeconds). */
    const rssAt120 = samples.find((m) => m.at >= 120)?.rss;
    const elapsed = (performance.now() - measureStart) / 1000;
    recorder.phase = 'done';
    await load.stop();

    // Let the last scheduled publishes come due and the webhook queue drain, then compare counts.
    const drainStart = performance.now();
    let owed = backlog(join(data.path, 'service.db'), webhook.id);
    let stats = await receiverStats(receiver);
    // Every schedule was set at most SCHEDULE_AHEAD_MS ahead, so all of them are due by the deadline.
    while (
      (owed.pendingPublishes > 0 || owed.scheduled > 0 || stats.distinct_event_ids < owed.events) &&
      performance.now() - drainStart < SCHEDULE_AHEAD_MS + 60_000
    ) {
      await sleep(500);
      owed = backlog(join(data.path, 'service.db'), webhook.id);
      stats = await receiverStats(receiver);
    }
    const drainSeconds = (performance.now() - drainStart) / 1000;

    const measured = [...recorder.tallies.measured.entries()].filter(([kind]) => kind !== 'setup');
    const kindRows = measured.map(([kind, tally]) => {
      const sorted = [...tally.latencies].sort((a, b) => a - b);
      const statuses = [...tally.statuses.entries()].map(([label, n]) => `${label}: ${fmt(n)}`).join(', ');
      return [
        kind,
        fmt(sorted.length),
        fmt(sorted.length / elapsed, 1),
        fmt(percentile(sorted, 50), 1),
        fmt(percentile(sorted, 99), 1),
        fmt(sorted.at(-1) ?? NaN, 1),
        fmt(tally.skipped),
        statuses,
      ];
    });
    const all = measured.flatMap(([, tally]) => tally.latencies).sort((a, b) => a - b);
    kindRows.push([
      'all',
      fmt(all.length),
      fmt(all.length / elapsed, 1),
      fmt(percentile(all, 50), 1),
      fmt(percentile(all, 99), 1),
      fmt(all.at(-1) ?? NaN, 1),
      '',
      '',
    ]);
    console.log(`\nmeasured ${fmt(elapsed)} s (latencies in ms):`);
    console.log(table(['kind', 'requests', 'req/s', 'p50', 'p99', 'max', 'skipped', 'statuses'], kindRows));
    console.log('\nresponses by status (warm-up included):');
    console.log(table(['status', 'warm-up', 'measured'], statusRows(recorder)));

    console.log(
      `\nmemory every 10 s from the start of the load, MB (heap used includes garbage not yet collected; | marks the end of the warm-up):`,
    );
    for (const [label, field] of [
      ['RSS', 'rss'],
      ['heap used', 'heapUsed'],
      ['heap total', 'heapTotal'],
      ['external', 'external'],
    ] as const) {
      const values = samples.map((m) => fmt(m[field] / MB));
      console.log(
        `  ${label.padEnd(10)} ${values.slice(0, warmupSamples).join(' ')} | ${values.slice(warmupSamples).join(' ')}`,
      );
    }

    const every = (['warm-up', 'measured'] as const).flatMap((phase) => [...recorder.tallies[phase].values()]);
    const countWhere = (test: (label: string) => boolean) =>
      every.reduce((n, t) => n + [...t.statuses].filter(([label]) => test(label)).reduce((m, [, c]) => m + c, 0), 0);
    const serverErrors = countWhere((label) => /^5\d\d/.test(label) || /^(timeout|network error)/.test(label));
    const clientErrors = countWhere((label) => /^[24]\d\d .*error|^4\d\d/.test(label));
    const benchErrors = countWhere((label) => label.startsWith('bench error'));
    if (benchErrors > 0)
      throw new Error(`soak: the load generator failed ${benchErrors} times; see "bench error" in the status table`);
    const totalRequests = countWhere(() => true);
    const growth = (rssEnd - rssStart) / rssStart;
    const peak = Math.max(...samples.slice(warmupSamples).map((m) => m.rss));
    const delivered = stats.distinct_event_ids;
    console.log(
      table(
        ['figure', 'value'],
        [
          ['RSS after warm-up', `${fmt(rssStart / MB, 1)} MB`],
          ['RSS at the end of the load', `${fmt(rssEnd / MB, 1)} MB`],
          ['RSS peak of the samples (every 10 s)', `${fmt(peak / MB, 1)} MB`],
          ['RSS growth', `${fmt(growth * 100, 1)} %`],
          ...(rssAt120 === undefined || warmupSeconds === 120
            ? []
            : [
                [
                  'RSS growth from 120 s into the load (for comparison)',
                  `${fmt(rssAt120 / MB, 1)} → ${fmt(rssEnd / MB, 1)} MB, ${fmt(((rssEnd - rssAt120) / rssAt120) * 100, 1)} %`,
                ],
              ]),
          ['events owed to the receiver', fmt(owed.events)],
          [
            'distinct events received',
            `${fmt(delivered)} (${fmt(stats.received)} requests; drained ${fmt(drainSeconds, 1)} s after the load)`,
          ],
          ['publishes still queued or running after the drain', fmt(owed.pendingPublishes)],
          ['scheduled items overdue after the drain', fmt(owed.overdueScheduled)],
          ['4xx and tool errors (warm-up included)', fmt(clientErrors)],
        ],
      ),
    );
    const checks = [
      {
        name: 'no 5xx, timeout or network error',
        pass: serverErrors === 0,
        detail: `${fmt(serverErrors)} of ${fmt(totalRequests)} requests`,
      },
      {
        name: 'RSS growth under 10 %',
        pass: growth < 0.1,
        detail: `${fmt(rssStart / MB, 1)} → ${fmt(rssEnd / MB, 1)} MB`,
      },
      {
        name: 'every event delivered, every publish finished',
        pass: delivered >= owed.events && owed.pendingPublishes === 0 && owed.overdueScheduled === 0,
        detail: `${fmt(delivered)} of ${fmt(owed.events)} events`,
      },
    ];
    for (const check of checks) console.log(`${check.pass ? 'PASS' : 'FAIL'}  ${check.name} (${check.detail})`);

    const worst = measured
      .map(([kind, tally]) => ({
        kind,
        p99: percentile(
          [...tally.latencies].sort((a, b) => a - b),
          99,
        ),
      }))
      .reduce((a, b) => (b.p99 > a.p99 ? b : a), { kind: '-', p99: 0 });
    return [
      {
        name: `soak ${fmt(settings.minutes, settings.minutes < 1 ? 2 : 0)} min: 5xx, timeouts, network errors`,
        unit: 'requests',
        project: serverErrors,
        limit: totalRequests,
        ratio: serverErrors / totalRequests,
        target: { op: '<=', value: 0 },
      },
      {
        name: 'soak: server RSS at end vs after warm-up',
        unit: 'MB',
        project: rssEnd / MB,
        limit: rssStart / MB,
        ratio: rssEnd / rssStart,
        target: { op: '<=', value: 1.1 },
      },
      {
        name: 'soak: distinct events received vs owed',
        unit: 'events',
        project: delivered,
        limit: owed.events,
        ratio: owed.events === 0 ? 0 : delivered / owed.events,
        target: { op: '>=', value: 1 },
      },
      {
        name: 'soak: throughput, all kinds, vs offered',
        unit: 'req/s',
        project: all.length / elapsed,
        limit: offered,
        ratio: all.length / elapsed / offered,
      },
      {
        name: `soak: p99 latency, all kinds (worst: ${worst.kind} ${fmt(worst.p99, 1)} ms)`,
        unit: 'ms',
        project: percentile(all, 99),
        limit: percentile(all, 50),
        ratio: percentile(all, 99) / percentile(all, 50),
        note: 'limit = p50',
      },
    ];
  } finally {
    for (const child of children.reverse()) await child.stop();
    data.cleanup();
  }
}
