/**
 * Campaign generation, in process on a real database file (WAL, the background checkpointer), with
 * the engine and the built-in generator as the server runs them:
 *
 *   project  a 50 posts/day x 365 days campaign launched, then timed until all 18,250 posts are
 *            written (drafts written and checked, items and their content.created events inserted,
 *            credits spent, in batches of 500 per commit);
 *   limit    the same 18,250 content rows (the generated ones, copied) inserted into a fresh
 *            database of the same schema with one raw better-sqlite3 prepared statement, 500 rows per
 *            transaction.
 *
 * With `postgres` (`--db`), each round also generates the campaign on a fresh PostgreSQL database,
 * timed against the SQLite generation of the same round. The raw insert is better-sqlite3's own and is
 * not run on PostgreSQL.
 */
import { sql } from 'drizzle-orm';
import { getTableConfig } from 'drizzle-orm/sqlite-core';
import { join } from 'node:path';
import { startBackgroundCheckpoints } from '../db/checkpointer.ts';
import { content } from '../db/schema/index.ts';
import { createWorkspace } from '../src/core/accounts/workspaces.ts';
import { createCampaign, launchCampaign } from '../src/core/campaigns/operations.ts';
import { loadConfig } from '../src/core/config.ts';
import { contextFor, type Runtime } from '../src/core/context.ts';
import { startDraftThread, type DraftThread } from '../src/jobs/draft-thread.ts';
import { runOperation } from '../src/core/operation.ts';
import { openRuntime } from '../src/core/runtime.ts';
import { fmt, RAISED_LIMITS, tempDir, type Row, closeBenchRuntime } from './lib.ts';
import { createBenchDatabase } from './postgres.ts';
import { drain } from '../src/jobs/drain.ts';
import { campaignGenerationJob } from '../src/jobs/campaign-generation.ts';
import { sqliteOf } from '../db/client.ts';

export interface GenerationSettings {
  rounds: number;
  /** A PostgreSQL server URL (`--db`): generate there too. */
  postgres?: string;
}

const POSTS_PER_DAY = 50;
const DAYS = 365;
const BATCH = 500;

/** A fresh SQLite file, or a fresh database on the PostgreSQL server `postgres`. */
async function openWorld(label: string, postgres?: string): Promise<{ runtime: Runtime; close(): Promise<void> }> {
  const dir = tempDir(`generation-${label}`);
  const database = postgres === undefined ? undefined : await createBenchDatabase(postgres);
  const config = loadConfig({
    ...(database ? { DATABASE_URL: database.url } : { DATABASE_FILE: join(dir.path, 'service.db') }),
    DATA_DIR: dir.path,
    ...RAISED_LIMITS,
  });
  const runtime = await openRuntime({ config }).catch(async (error: unknown) => {
    await database?.drop();
    dir.cleanup();
    throw error;
  });
  const checkpointer = startBackgroundCheckpoints(runtime.db);
  return {
    runtime,
    close: () => closeBenchRuntime({ checkpointer, runtime, database, dir }),
  };
}

/** Process CPU (user + system, every thread: the checkpointer's too) in ms since `start`. */
const cpuMsSince = (start: NodeJS.CpuUsage): number => {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
};

/**
 * Seconds to generate the whole campaign, its process CPU, and the rows it wrote (for the raw insert;
 * none on PostgreSQL, where they are only counted).
 */
async function generateCampaign(
  drafts: DraftThread,
  postgres?: string,
): Promise<{ seconds: number; cpuMs: number; rows: Array<Record<string, unknown>> }> {
  const world = await openWorld('engine', postgres);
  try {
    const { runtime } = world;
    const { workspace } = await createWorkspace(runtime, { name: 'Generation bench', plan: 'business' });
    const ctx = contextFor(runtime, workspace, 'rest');
    const { id } = (await runOperation(createCampaign, ctx, {
      name: 'A year of posts',
      description: 'Everyday outdoor gear for people who walk to work',
      posts_per_day: POSTS_PER_DAY,
      campaign_length_days: DAYS,
      content_mix: { ugc: 3, carousel: 2, talkingHead: 1, videoHook: 1, slideshow: 1 },
    })) as { id: string };
    await runOperation(launchCampaign, ctx, { id });
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const outcomes = await drain(runtime, campaignGenerationJob(runtime, drafts));
    const seconds = (performance.now() - t0) / 1000;
    const cpuMs = cpuMsSince(cpu0);
    if (outcomes.join() !== 'completed') throw new Error(`generation: ended with ${outcomes.join()}`);
    if (postgres !== undefined) {
      const { n } = await runtime.db.get<{ n: number }>(
        sql`select count(*) as n from content where campaign_id = ${id}`,
      );
      if (n !== POSTS_PER_DAY * DAYS) throw new Error(`generation on PostgreSQL: ${n} items written`);
      return { seconds, cpuMs, rows: [] };
    }
    const rows = sqliteOf(runtime.db)
      .prepare('select * from content where campaign_id = ? order by campaign_slot')
      .all(id) as Array<Record<string, unknown>>;
    if (rows.length !== POSTS_PER_DAY * DAYS) throw new Error(`generation: ${rows.length} items written`);
    return { seconds, cpuMs, rows };
  } finally {
    await world.close();
  }
}

/** The limit: the same rows through one raw prepared INSERT, 500 per transaction. */
async function insertRaw(rows: Array<Record<string, unknown>>): Promise<{ seconds: number; cpuMs: number }> {
  const world = await openWorld('raw');
  try {
    const sqlite = sqliteOf(world.runtime.db);
    const { workspace } = await createWorkspace(world.runtime, { name: 'Raw insert', plan: 'business' });
    const columns = getTableConfig(content).columns.map((column) => column.name);
    const insert = sqlite.prepare(
      `insert into content (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})`,
    );
    const values = rows.map((row) =>
      columns.map((column) =>
        column === 'workspace_id' ? workspace.id : column === 'id' ? `${row.id as string}-raw` : row[column],
      ),
    );
    const batch = sqlite.transaction((slice: unknown[][]) => {
      for (const row of slice) insert.run(...row);
    });
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < values.length; i += BATCH) batch.immediate(values.slice(i, i + BATCH));
    return { seconds: (performance.now() - t0) / 1000, cpuMs: cpuMsSince(cpu0) };
  } finally {
    await world.close();
  }
}

export async function benchGeneration(settings: GenerationSettings): Promise<Row[]> {
  const { postgres } = settings;
  console.log(
    `\n== Campaign generation: ${POSTS_PER_DAY} posts/day x ${DAYS} days (${fmt(POSTS_PER_DAY * DAYS)} posts) vs a raw insert of the same rows; ${settings.rounds} rounds ==`,
  );
  if (postgres !== undefined)
    console.log(
      'On PostgreSQL too, a fresh database each round, against the SQLite generation of the same round (the raw insert is SQLite only).',
    );
  const ratios: Array<{ engine: number; raw: number }> = [];
  const pgRatios: Array<{ postgres: number; sqlite: number }> = [];
  // Started before the rounds and busy through them, as in a server generating one campaign after another
  // (a server starts it with its first batch and stops it after a minute without one).
  const drafts = startDraftThread(loadConfig({}).ai);
  await drafts.ready;
  // Round 0 warms the JIT for both sides and is not counted.
  for (let round = 0; round <= settings.rounds; round++) {
    // PostgreSQL goes first in odd rounds, so neither engine always gets the warmer machine.
    let pg: { seconds: number; cpuMs: number } | undefined;
    if (postgres !== undefined && round % 2 === 1) pg = await generateCampaign(drafts, postgres);
    const { seconds, cpuMs, rows } = await generateCampaign(drafts);
    const { seconds: raw, cpuMs: rawCpuMs } = await insertRaw(rows);
    if (postgres !== undefined && round % 2 === 0) pg = await generateCampaign(drafts, postgres);
    if (round > 0) ratios.push({ engine: seconds, raw });
    if (round > 0 && pg) pgRatios.push({ postgres: pg.seconds, sqlite: seconds });
    // Process CPU beside the wall time: on a shared machine it shows whether a slow round did more work or waited for a core.
    console.log(
      `round ${round}${round === 0 ? ' (warm-up)' : ''}: generation ${fmt(seconds * 1000)} ms (CPU ${fmt(cpuMs)} ms), raw insert ${fmt(raw * 1000)} ms (CPU ${fmt(rawCpuMs)} ms) (${(seconds / raw).toFixed(2)}x)`,
    );
    if (pg)
      console.log(
        `round ${round} on PostgreSQL: generation ${fmt(pg.seconds * 1000)} ms (CPU ${fmt(pg.cpuMs)} ms in this process, the server's not counted) (${(pg.seconds / seconds).toFixed(2)}x SQLite)`,
      );
  }
  await drafts.close();
  const median = [...ratios].sort((a, b) => a.engine / a.raw - b.engine / b.raw)[Math.floor(ratios.length / 2)]!;
  const rows: Row[] = [
    {
      name: `generate a ${fmt(POSTS_PER_DAY * DAYS)}-post campaign vs raw insert of its rows`,
      unit: 'ms',
      project: median.engine * 1000,
      limit: median.raw * 1000,
      ratio: median.engine / median.raw,
      target: { op: '<=', value: 3 },
    },
  ];
  if (postgres === undefined) return rows;
  const pgMedian = [...pgRatios].sort((a, b) => a.postgres / a.sqlite - b.postgres / b.sqlite)[
    Math.floor(pgRatios.length / 2)
  ]!;
  return [
    ...rows,
    {
      name: `generate a ${fmt(POSTS_PER_DAY * DAYS)}-post campaign, PostgreSQL vs SQLite`,
      unit: 'ms',
      project: pgMedian.postgres * 1000,
      limit: pgMedian.sqlite * 1000,
      ratio: pgMedian.postgres / pgMedian.sqlite,
    },
  ];
}
