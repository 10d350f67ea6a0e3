/**
 * The publishing run, in process on a real database file with the real scheduler and the sandbox
 * connectors (their ledger writes included):
 *
 *   lag         items due over a spread of time across many workspaces: how long from each item's
 *               scheduled_for until the run claimed it (`publishing`), p50 and p99 against 250 ms.
 *   throughput  items due at once, each to three sandbox platforms: items/s from queued to finished,
 *               against a raw claim-and-update loop on the same table (claim a batch with one
 *               UPDATE … RETURNING, mark each published) on an identically seeded database.
 *
 * With `postgres` (`--db`), each round also runs both scenarios on fresh PostgreSQL databases: the
 * lag there against the same 250 ms, the fan-out against SQLite's of the same run. The raw loop is
 * SQLite's own (better-sqlite3 in process) and is not run on PostgreSQL.
 */
import { sql } from 'drizzle-orm';
import { join } from 'node:path';
import { startBackgroundCheckpoints } from '../db/checkpointer.ts';
import { sqliteOf, writeTransaction } from '../db/client.ts';
import { type Platform } from '../db/schema/index.ts';
import { PLATFORMS } from '../src/core/platforms/registry.ts';
import { createWorkspace } from '../src/core/accounts/workspaces.ts';
import { loadConfig } from '../src/core/config.ts';
import { insertContentRow } from '../src/core/content/operations.ts';
import type { Runtime } from '../src/core/context.ts';
import { newId } from '../src/core/ids.ts';
import { openRuntime } from '../src/core/runtime.ts';
import { connectSocialAccount } from '../src/core/social-accounts/operations.ts';
import { startPublishing } from '../src/jobs/publish-run.ts';
import { fmt, percentile, RAISED_LIMITS, table, tempDir, until, type Row, closeBenchRuntime } from './lib.ts';
import { createBenchDatabase } from './postgres.ts';

export interface PublishingSettings {
  /** Items due in the lag scenario, spread over `spreadSeconds`. */
  lagItems: number;
  spreadSeconds: number;
  workspaces: number;
  /** Items due at once in the throughput scenario. */
  throughputItems: number;
  rounds: number;
  /** A PostgreSQL server URL (`--db`): run each scenario there too. */
  postgres?: string;
}

const THREE: Platform[] = ['twitter', 'linkedin', 'facebook'];

interface World {
  runtime: Runtime;
  workspaceIds: string[];
  close(): Promise<void>;
}

/**
 * A fresh database with `workspaces` business workspaces, each connected to every platform: a new
 * SQLite file, or a new database on the PostgreSQL server `postgres`.
 */
async function world(label: string, workspaces: number, postgres?: string): Promise<World> {
  const dir = tempDir(`publishing-${label}`);
  const database = postgres === undefined ? undefined : await createBenchDatabase(postgres);
  const config = loadConfig({
    ...(database ? { DATABASE_URL: database.url } : { DATABASE_FILE: join(dir.path, 'service.db') }),
    ...RAISED_LIMITS,
    // The run's own setting, when given, so its effect can be measured.
    PUBLISH_CONCURRENCY: process.env.PUBLISH_CONCURRENCY,
  });
  const runtime = await openRuntime({ config }).catch(async (error: unknown) => {
    await database?.drop();
    dir.cleanup();
    throw error;
  });
  const checkpointer = startBackgroundCheckpoints(runtime.db);
  const workspaceIds = await writeTransaction(runtime.db, async () => {
    const ids: string[] = [];
    for (let i = 0; i < workspaces; i++) {
      const { workspace } = await createWorkspace(runtime, { name: `Bench ${i}`, plan: 'business' });
      for (const platform of PLATFORMS)
        await connectSocialAccount(runtime, { workspaceId: workspace.id, platform, username: `bench${i}_${platform}` });
      ids.push(workspace.id);
    }
    return ids;
  });
  return {
    runtime,
    workspaceIds,
    close: () => closeBenchRuntime({ checkpointer, runtime, database, dir }),
  };
}

/** Queued items, as POST /publish (scheduledFor null) or a schedule (a time) leaves them. */
async function seedQueued(w: World, count: number, scheduledFor: (i: number) => Date | null): Promise<void> {
  const now = new Date();
  await writeTransaction(w.runtime.db, async () => {
    for (let i = 0; i < count; i++) {
      const at = scheduledFor(i);
      await insertContentRow(w.runtime.db, {
        id: newId(),
        workspaceId: w.workspaceIds[i % w.workspaceIds.length]!,
        caption: `Benchmark post ${i}: a caption of ordinary length with a link https://example.com/p/${i}`,
        hashtags: ['bench', 'launch'],
        contentType: 'single_image',
        targetPlatforms: THREE,
        mediaUrls: [`https://cdn.example.com/${i}.jpg`],
        topic: null,
        platformSpecific: {},
        aspectRatio: null,
        scheduledFor: at,
        status: at ? 'scheduled' : 'approved',
        publishQueued: true,
        publishResults: [],
        createdAt: now,
        updatedAt: now,
      });
    }
  });
}

/**
 * 1 while any item is left to publish (queued, or claimed and not finished), else 0. Polled every
 * 100 ms while a scenario runs, so it reads the queue's two partial indexes and stops at the first
 * row: a count over the whole table cost PostgreSQL a scan of it at each poll, beside the run measured.
 */
const unfinished = async (w: World): Promise<number> =>
  (
    await w.runtime.db.get<{ n: number }>(
      sql`select count(*) as n from (
            select 1 from content where publish_queued = ${w.runtime.db.$store.sql.true} and status in ('approved', 'scheduled')
            union all
            select 1 from content where status = 'publishing'
            limit 1) as left_to_publish`,
    )
  ).n;

async function lagRound(
  settings: PublishingSettings,
  postgres?: string,
): Promise<{ toPublishing: number[]; toFinished: number[] }> {
  const w = await world('lag', settings.workspaces, postgres);
  try {
    const start = Date.now() + 1500;
    const spreadMs = settings.spreadSeconds * 1000;
    await seedQueued(w, settings.lagItems, (i) => new Date(start + Math.floor((i * spreadMs) / settings.lagItems)));
    const scheduler = startPublishing(w.runtime);
    await until(
      'publishing: every item finished',
      async () => (await unfinished(w)) === 0,
      settings.spreadSeconds + 60,
      100,
    );
    await scheduler.stop();
    const rows = await w.runtime.db.all<{ claimed: number; finished: number }>(
      sql`select r.started_at - c.scheduled_for as claimed, r.finished_at - c.scheduled_for as finished
          from publish_runs r join content c on c.id = r.content_id`,
    );
    if (rows.length !== settings.lagItems) throw new Error(`expected ${settings.lagItems} runs, found ${rows.length}`);
    const published = (
      await w.runtime.db.get<{ n: number }>(sql`select count(*) as n from content where status = 'published'`)
    ).n;
    if (published !== settings.lagItems) throw new Error(`expected every item published, ${published} were`);
    return { toPublishing: rows.map((r) => r.claimed), toFinished: rows.map((r) => r.finished) };
  } finally {
    await w.close();
  }
}

/** Items/s from queued to finished, and the process's CPU time (every thread, user and system) per item meanwhile. */
async function serviceThroughput(
  settings: PublishingSettings,
  postgres?: string,
): Promise<{ rate: number; cpuMicrosPerItem: number }> {
  const w = await world('service', settings.workspaces, postgres);
  try {
    await seedQueued(w, settings.throughputItems, () => null);
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const scheduler = startPublishing(w.runtime);
    await until('publishing: every item finished', async () => (await unfinished(w)) === 0, 120, 100);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    await scheduler.stop();
    const posts = (await w.runtime.db.get<{ n: number }>(sql`select count(*) as n from sandbox_posts`)).n;
    if (posts !== settings.throughputItems * THREE.length)
      throw new Error(`expected ${settings.throughputItems * 3} sandbox posts, found ${posts}`);
    return {
      rate: settings.throughputItems / seconds,
      cpuMicrosPerItem: (cpu.user + cpu.system) / settings.throughputItems,
    };
  } finally {
    await w.close();
  }
}

/**
 * The limit: what the table allows with no service logic at all. Claim a batch of due items with one
 * UPDATE … RETURNING (the same queue index), then mark each published, one transaction per step,
 * the same batch size as the run's concurrency.
 */
async function rawThroughput(settings: PublishingSettings): Promise<number> {
  const w = await world('raw', settings.workspaces);
  try {
    await seedQueued(w, settings.throughputItems, () => null);
    const sqlite = sqliteOf(w.runtime.db);
    const batch = w.runtime.config.publishing.concurrency;
    const claim = sqlite.prepare(
      `update content set status = 'publishing', lease_token = ?, lease_expires_at = ?
       where id in (select id from content where publish_queued = 1 and status in ('approved', 'scheduled')
                    and coalesce(scheduled_for, 0) <= ? order by coalesce(scheduled_for, 0), id limit ?)
       returning id`,
    );
    const finish = sqlite.prepare(
      `update content set status = 'published', published_at = ?, publish_queued = 0, lease_token = null,
       lease_expires_at = null, updated_at = ? where id = ?`,
    );
    const claimBatch = sqlite.transaction(
      () => claim.all('lease', Date.now() + 60_000, Date.now(), batch) as Array<{ id: string }>,
    );
    const finishBatch = sqlite.transaction((ids: Array<{ id: string }>) => {
      for (const { id } of ids) finish.run(Date.now(), Date.now(), id);
    });
    const t0 = performance.now();
    for (;;) {
      const ids = claimBatch();
      if (ids.length === 0) break;
      finishBatch(ids);
    }
    return settings.throughputItems / ((performance.now() - t0) / 1000);
  } finally {
    await w.close();
  }
}

/** What one engine's rounds measured: lag to publishing and to finished, and fan-out items/s with CPU per item. */
interface Measured {
  toPublishing: number[];
  toFinished: number[];
  service: number[];
  serviceCpu: number[];
}

const measured = (): Measured => ({ toPublishing: [], toFinished: [], service: [], serviceCpu: [] });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const lagLines = (m: Measured, suffix: string): string[][] => [
  [
    `scheduled_for → publishing${suffix}`,
    `${fmt(percentile(m.toPublishing, 50))} ms`,
    `${fmt(percentile(m.toPublishing, 99))} ms`,
    `${fmt(m.toPublishing.at(-1)!)} ms`,
  ],
  [
    `scheduled_for → finished${suffix}`,
    `${fmt(percentile(m.toFinished, 50))} ms`,
    `${fmt(percentile(m.toFinished, 99))} ms`,
    `${fmt(m.toFinished.at(-1)!)} ms`,
  ],
];

/** One engine's lag round, on a SQLite file or (given `postgres`) a fresh PostgreSQL database. */
async function measureLag(m: Measured, settings: PublishingSettings, postgres?: string): Promise<void> {
  const lag = await lagRound(settings, postgres);
  m.toPublishing.push(...lag.toPublishing);
  m.toFinished.push(...lag.toFinished);
}

/** One engine's fan-out round, likewise. */
async function measureFanOut(m: Measured, settings: PublishingSettings, postgres?: string): Promise<void> {
  const { rate, cpuMicrosPerItem } = await serviceThroughput(settings, postgres);
  m.service.push(rate);
  m.serviceCpu.push(cpuMicrosPerItem);
}

export async function benchPublishing(settings: PublishingSettings): Promise<Row[]> {
  const { postgres } = settings;
  console.log(
    `\n== Publishing run: lag with ${fmt(settings.lagItems)} items due over ${settings.spreadSeconds} s across ${settings.workspaces} workspaces; ` +
      `throughput with ${fmt(settings.throughputItems)} items due at once to ${THREE.length} sandbox platforms; ${settings.rounds} rounds ==`,
  );
  if (postgres !== undefined)
    console.log(
      'On PostgreSQL too, a fresh database for each scenario; the raw loop is SQLite only, so the fan-out there is set against SQLite of the same rounds.',
    );
  const sqlite = measured();
  const pg = measured();
  const raw: number[] = [];
  for (let round = 0; round < settings.rounds; round++) {
    await measureLag(sqlite, settings);
    if (postgres !== undefined) await measureLag(pg, settings, postgres);
    // Alternate which goes first, so neither always gets the warmer machine.
    const sides = [
      () => measureFanOut(sqlite, settings),
      async () => void raw.push(await rawThroughput(settings)),
      ...(postgres === undefined ? [] : [() => measureFanOut(pg, settings, postgres)]),
    ];
    for (const measure of round % 2 === 0 ? sides : sides.reverse()) await measure();
    // bench/ab.ts reads these lines: keep their shape.
    console.log(
      `round ${round + 1}: service ${fmt(sqlite.service.at(-1)!)} items/s (CPU ${fmt(sqlite.serviceCpu.at(-1)!)} µs per item), raw loop ${fmt(raw.at(-1)!)} items/s`,
    );
    if (postgres !== undefined)
      console.log(
        `round ${round + 1} on PostgreSQL: service ${fmt(pg.service.at(-1)!)} items/s (CPU ${fmt(pg.serviceCpu.at(-1)!)} µs per item in this process, the server's not counted)`,
      );
  }
  for (const m of postgres === undefined ? [sqlite] : [sqlite, pg]) {
    m.toPublishing.sort((a, b) => a - b);
    m.toFinished.sort((a, b) => a - b);
  }
  const lagP50 = percentile(sqlite.toPublishing, 50);
  const lagP99 = percentile(sqlite.toPublishing, 99);
  console.log(
    table(
      ['measure', 'p50', 'p99', 'max'],
      [...lagLines(sqlite, ''), ...(postgres === undefined ? [] : lagLines(pg, ' on PostgreSQL'))],
    ),
  );
  const serviceRate = median(sqlite.service);
  const rawRate = median(raw);
  console.log(
    `fan-out: median ${fmt(serviceRate)} items/s, CPU ${fmt(median(sqlite.serviceCpu))} µs per item (the process's user and system time, every thread, from the first claim to the last finish)`,
  );
  const rows: Row[] = [
    { name: 'publish lag p50 (ms, vs 250 ms)', unit: 'ms', project: lagP50, limit: 250, ratio: lagP50 / 250 },
    {
      name: 'publish lag p99 (ms, vs 250 ms)',
      unit: 'ms',
      project: lagP99,
      limit: 250,
      ratio: lagP99 / 250,
      target: { op: '<=', value: 1 },
    },
    {
      name: 'fan-out to 3 platforms vs raw claim+update',
      unit: 'items/s',
      project: serviceRate,
      limit: rawRate,
      ratio: serviceRate / rawRate,
    },
  ];
  if (postgres === undefined) return rows;

  const pgRate = median(pg.service);
  const pgP50 = percentile(pg.toPublishing, 50);
  const pgP99 = percentile(pg.toPublishing, 99);
  console.log(
    `fan-out on PostgreSQL: median ${fmt(pgRate)} items/s (SQLite ${fmt(serviceRate)}), CPU ${fmt(median(pg.serviceCpu))} µs per item in this process`,
  );
  return [
    ...rows,
    {
      name: 'publish lag p50 on PostgreSQL (ms, vs 250 ms)',
      unit: 'ms',
      project: pgP50,
      limit: 250,
      ratio: pgP50 / 250,
    },
    {
      name: 'publish lag p99 on PostgreSQL (ms, vs 250 ms)',
      unit: 'ms',
      project: pgP99,
      limit: 250,
      ratio: pgP99 / 250,
      target: { op: '<=', value: 1 },
    },
    {
      name: 'fan-out to 3 platforms, PostgreSQL vs SQLite',
      unit: 'items/s',
      project: pgRate,
      limit: serviceRate,
      ratio: pgRate / serviceRate,
    },
  ];
}
