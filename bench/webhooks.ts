/**
 * Webhook delivery, in process on a real database file with the real worker (`startWebhookDelivery`)
 * and transport, posting to a receiver in a child process:
 *
 *   throughput  events already written, one subscription: deliveries/s until every one is delivered,
 *               against a raw loop of HTTP POSTs (node:http, keep-alive) of the same bodies to the
 *               same receiver with the same concurrency (the worker's per-subscription cap).
 *   latency     events written at a steady rate while the worker runs: from each event's created_at
 *               to its first attempt (the delivery log's attempt time), p50 and p99.
 *
 * With `postgres` (`--db`), each round also runs both scenarios on fresh PostgreSQL databases, against
 * the same receiver: deliveries/s there against SQLite's of the same round, and the latency.
 */
import { sql } from 'drizzle-orm';
import http from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startBackgroundCheckpoints } from '../db/checkpointer.ts';
import { writeTransaction } from '../db/client.ts';
import { createWorkspace, type Workspace } from '../src/core/accounts/workspaces.ts';
import { loadConfig } from '../src/core/config.ts';
import { createContent } from '../src/core/content/operations.ts';
import { contextFor, type Runtime } from '../src/core/context.ts';
import { runOperation } from '../src/core/operation.ts';
import { openRuntime } from '../src/core/runtime.ts';
import { createWebhook } from '../src/core/webhooks/operations.ts';
import { startWebhookDelivery } from '../src/jobs/webhook-delivery.ts';
import {
  childEnv,
  fmt,
  percentile,
  RAISED_LIMITS,
  startHttpChild,
  table,
  tempDir,
  until,
  type HttpChild,
  type Row,
  closeBenchRuntime,
} from './lib.ts';
import { createBenchDatabase } from './postgres.ts';

export interface WebhookSettings {
  events: number;
  /** Events per second in the latency scenario, for `latencySeconds`. */
  rate: number;
  latencySeconds: number;
  rounds: number;
  /** A PostgreSQL server URL (`--db`): run each scenario there too. */
  postgres?: string;
}

const CAPTION = 'A webhook benchmark post with a caption of ordinary length, #launch #bench https://example.com/p';

interface World {
  runtime: Runtime;
  workspace: Workspace;
  close(): Promise<void>;
}

/** A fresh SQLite file, or a fresh database on the PostgreSQL server `postgres`, with one subscription to the receiver. */
async function world(label: string, receiverUrl: string, postgres?: string): Promise<World> {
  const dir = tempDir(`webhooks-${label}`);
  const database = postgres === undefined ? undefined : await createBenchDatabase(postgres);
  const config = loadConfig({
    ...(database ? { DATABASE_URL: database.url } : { DATABASE_FILE: join(dir.path, 'service.db') }),
    DATA_DIR: dir.path,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    ...RAISED_LIMITS,
    WEBHOOK_CONCURRENCY: process.env.WEBHOOK_CONCURRENCY,
  });
  const runtime = await openRuntime({ config }).catch(async (error: unknown) => {
    await database?.drop();
    dir.cleanup();
    throw error;
  });
  const checkpointer = startBackgroundCheckpoints(runtime.db);
  const { workspace } = await createWorkspace(runtime, { name: 'Webhook bench', plan: 'business' });
  await runOperation(createWebhook, contextFor(runtime, workspace, 'rest'), { url: `${receiverUrl}/hook`, events: [] });
  return {
    runtime,
    workspace,
    close: () => closeBenchRuntime({ checkpointer, runtime, database, dir }),
  };
}

const writeEvent = async (w: World, i: number) =>
  runOperation(createContent, contextFor(w.runtime, w.workspace, 'rest'), { caption: `${CAPTION} ${i}` });

const delivered = async (w: World): Promise<number> =>
  (await w.runtime.db.get<{ n: number }>(sql`select count(*) as n from webhook_jobs where state = 'delivered'`)).n;

/**
 * Every event fanned out and no job queued (a job in flight is still queued). Polled while the
 * worker runs, so it reads only the partial queue index: counting delivered jobs scans the table,
 * and 50 scans a second took a tenth of the worker's CPU time. On PostgreSQL the cursor is (xact,
 * seq), but these scenarios write their events one transaction after another, so the last event read
 * is still the one of the highest seq. The comparison is 1 on SQLite, true on PostgreSQL.
 */
const drained = async (w: World): Promise<boolean> =>
  Number(
    (
      await w.runtime.db.get<{ done: number | boolean | null }>(
        sql`select (select last_seq from webhook_fanout_cursor) = (select max(seq) from events)
      and not exists (select 1 from webhook_jobs where state = 'queued') as done`,
      )
    ).done,
  ) === 1;

/** The worker's throughput: every event already written, the worker started, timed until all are delivered. */
async function serviceThroughput(
  receiverUrl: string,
  settings: WebhookSettings,
  postgres?: string,
): Promise<{ perSecond: number; concurrency: number; bodies: string[] }> {
  const w = await world('service', receiverUrl, postgres);
  try {
    await writeTransaction(w.runtime.db, async () => {
      for (let i = 0; i < settings.events; i++) await writeEvent(w, i);
    });
    const t0 = performance.now();
    const worker = startWebhookDelivery(w.runtime);
    await until('webhooks: every event delivered', () => drained(w), 120);
    const seconds = (performance.now() - t0) / 1000;
    await worker.stop();
    if ((await delivered(w)) !== settings.events)
      throw new Error(`webhooks: ${await delivered(w)} of ${settings.events} events delivered`);
    const failed = (
      await w.runtime.db.get<{ n: number }>(
        sql`select count(*) as n from webhook_deliveries where status <> 'delivered'`,
      )
    ).n;
    if (failed > 0) throw new Error(`webhooks: ${failed} attempts failed`);
    // Bodies of the same size for the raw loop: the events as the worker would wrap them.
    const bodies = (
      await w.runtime.db.all<{ data: string | Record<string, unknown>; id: string; type: string; created_at: number }>(
        sql`select id, type, data, created_at from events limit 100`,
      )
    ).map((e) =>
      JSON.stringify({
        id: e.id,
        object: 'event',
        type: e.type,
        created_at: new Date(e.created_at).toISOString(),
        workspace_id: w.workspace.id,
        delivery_id: 'whd_x',
        attempt: 1,
        // Text on both engines (the PostgreSQL store reads jsonb as text), parsed here either way.
        data: typeof e.data === 'string' ? (JSON.parse(e.data) as unknown) : e.data,
      }),
    );
    return {
      perSecond: settings.events / seconds,
      concurrency: Math.ceil(w.runtime.config.webhooks.concurrency / 4),
      bodies,
    };
  } finally {
    await w.close();
  }
}

/** The limit: the same number of POSTs of the same bodies, `concurrency` at a time, over keep-alive sockets. */
async function rawThroughput(
  receiverUrl: string,
  count: number,
  concurrency: number,
  bodies: string[],
): Promise<number> {
  const agent = new http.Agent({ keepAlive: true });
  const url = new URL(`${receiverUrl}/hook`);
  const post = (body: string) =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        url,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode && res.statusCode < 300
              ? resolve()
              : reject(new Error(`raw POST answered ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await post(bodies[next++ % bodies.length]!);
    }),
  );
  const perSecond = count / ((performance.now() - t0) / 1000);
  agent.destroy();
  return perSecond;
}

/** Events written one by one at `rate` per second while the worker runs; lag to each first attempt. */
async function latency(receiverUrl: string, settings: WebhookSettings, postgres?: string): Promise<number[]> {
  const w = await world('latency', receiverUrl, postgres);
  try {
    const worker = startWebhookDelivery(w.runtime);
    const total = settings.rate * settings.latencySeconds;
    const start = performance.now();
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / settings.rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      await writeEvent(w, i);
    }
    await until('webhooks: every event delivered', () => drained(w), 60);
    await worker.stop();
    if ((await delivered(w)) !== total) throw new Error(`webhooks: ${await delivered(w)} of ${total} events delivered`);
    return (
      await w.runtime.db.all<{ lag: number }>(
        sql`select d.delivered_at - e.created_at as lag from webhook_deliveries d join events e on e.id = d.event_id where d.attempt = 1`,
      )
    ).map((r) => r.lag);
  } finally {
    await w.close();
  }
}

export async function benchWebhooks(settings: WebhookSettings): Promise<Row[]> {
  const { postgres } = settings;
  console.log(
    `\n== Webhook delivery: ${fmt(settings.events)} events to one subscription vs raw POSTs at the same concurrency; ` +
      `latency with ${settings.rate} events/s for ${settings.latencySeconds} s; ${settings.rounds} rounds ==`,
  );
  if (postgres !== undefined)
    console.log('On PostgreSQL too, a fresh database for each scenario, the same receiver, in the same rounds.');
  const receiver: HttpChild = await startHttpChild('receiver', 'bench/receiver.ts', [], childEnv({ PORT: '0' }));
  try {
    const service: number[] = [];
    const raw: number[] = [];
    const lags: number[] = [];
    const pgService: number[] = [];
    const pgLags: number[] = [];
    // Untimed warm-up of both sides and of the receiver, whose JIT takes some 20,000 requests to
    // settle (the raw loop alone goes from ~6,000 to ~20,000 req/s over them): a cold receiver would
    // slow whichever side ran first.
    const warm = await serviceThroughput(receiver.url, { ...settings, events: Math.min(settings.events, 2_000) });
    const concurrency = warm.concurrency;
    await rawThroughput(receiver.url, 20_000, concurrency, warm.bodies);
    // And of the PostgreSQL side, whose driver code the SQLite side never ran.
    if (postgres !== undefined)
      await serviceThroughput(receiver.url, { ...settings, events: Math.min(settings.events, 2_000) }, postgres);
    const onPostgres = async () => {
      if (postgres !== undefined) pgService.push((await serviceThroughput(receiver.url, settings, postgres)).perSecond);
    };
    for (let round = 0; round < settings.rounds; round++) {
      // Each round runs the pair back to back, in turns of order, so a drift in the machine's speed
      // does not always favour the same side.
      if (round % 2 === 0) {
        service.push((await serviceThroughput(receiver.url, settings)).perSecond);
        raw.push(await rawThroughput(receiver.url, settings.events, concurrency, warm.bodies));
        await onPostgres();
      } else {
        await onPostgres();
        raw.push(await rawThroughput(receiver.url, settings.events, concurrency, warm.bodies));
        service.push((await serviceThroughput(receiver.url, settings)).perSecond);
      }
      lags.push(...(await latency(receiver.url, settings)));
      if (postgres !== undefined) pgLags.push(...(await latency(receiver.url, settings, postgres)));
      console.log(
        `round ${round + 1}: service ${fmt(service.at(-1)!)} deliveries/s, raw POST loop ${fmt(raw.at(-1)!)} req/s (concurrency ${concurrency})`,
      );
      if (postgres !== undefined)
        console.log(`round ${round + 1} on PostgreSQL: service ${fmt(pgService.at(-1)!)} deliveries/s`);
    }
    lags.sort((a, b) => a - b);
    pgLags.sort((a, b) => a - b);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const p50 = percentile(lags, 50);
    const p99 = percentile(lags, 99);
    const lagLine = (label: string, xs: number[]) => [
      label,
      `${fmt(percentile(xs, 50))} ms`,
      `${fmt(percentile(xs, 99))} ms`,
      `${fmt(xs.at(-1)!)} ms`,
    ];
    console.log(
      table(
        ['measure', 'p50', 'p99', 'max'],
        [
          lagLine('event → first attempt', lags),
          ...(postgres === undefined ? [] : [lagLine('event → first attempt on PostgreSQL', pgLags)]),
        ],
      ),
    );
    // Each round's pair ran back to back; the machine's speed swings between rounds, so the ratio is
    // taken per round and the median round reported.
    const ratios = service.map((rate, i) => rate / raw[i]!);
    const middle = ratios.indexOf(median(ratios));
    const rows: Row[] = [
      {
        name: `webhook deliveries vs raw POST loop (concurrency ${concurrency})`,
        unit: 'per s',
        project: service[middle]!,
        limit: raw[middle]!,
        ratio: ratios[middle]!,
        target: { op: '>=', value: 0.5 },
      },
      {
        name: 'event → first attempt p50 (ms, vs 50 ms)',
        unit: 'ms',
        project: p50,
        limit: 50,
        ratio: p50 / 50,
        target: { op: '<=', value: 1 },
      },
      { name: 'event → first attempt p99 (ms, vs 50 ms)', unit: 'ms', project: p99, limit: 50, ratio: p99 / 50 },
    ];
    if (postgres === undefined) return rows;
    // PostgreSQL against SQLite of the same round, the median round as above.
    const pgRatios = pgService.map((rate, i) => rate / service[i]!);
    const pgMiddle = pgRatios.indexOf(median(pgRatios));
    const pgP50 = percentile(pgLags, 50);
    const pgP99 = percentile(pgLags, 99);
    return [
      ...rows,
      {
        name: 'webhook deliveries, PostgreSQL vs SQLite',
        unit: 'per s',
        project: pgService[pgMiddle]!,
        limit: service[pgMiddle]!,
        ratio: pgRatios[pgMiddle]!,
      },
      {
        name: 'event → first attempt p50 on PostgreSQL (ms, vs 50 ms)',
        unit: 'ms',
        project: pgP50,
        limit: 50,
        ratio: pgP50 / 50,
      },
      {
        name: 'event → first attempt p99 on PostgreSQL (ms, vs 50 ms)',
        unit: 'ms',
        project: pgP99,
        limit: 50,
        ratio: pgP99 / 50,
      },
    ];
  } finally {
    await receiver.stop();
  }
}
