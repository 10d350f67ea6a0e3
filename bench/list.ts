/**
 * List page latency against workspace size: the core listContent operation, in process, on a
 * workspace of 10k items and on one of 1M, each in its own temp database. Rows are seeded with a raw
 * prepared INSERT in 50k-row transactions. The "limit" of this benchmark is the small workspace: a
 * page query that walks an index costs about the same at any size, so 1M/10k should stay near 1.
 */
import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { CONTENT_TYPES } from '../db/schema/index.ts';
import { createWorkspace, type Workspace } from '../src/core/accounts/workspaces.ts';
import { listContent } from '../src/core/content/list.ts';
import { loadConfig } from '../src/core/config.ts';
import { contextFor, type Runtime } from '../src/core/context.ts';
import { runOperation } from '../src/core/operation.ts';
import { encodeCursor } from '../src/core/pagination.ts';
import { openRuntime } from '../src/core/runtime.ts';
import { fmt, percentile, RAISED_LIMITS, table, tempDir, type Row } from './lib.ts';
import { sqliteOf } from '../db/client.ts';

export interface ListSettings {
  sizes: number[];
  calls: number;
  warmupCalls: number;
  /** Time bound per scenario, in case a page query degrades badly. */
  maxSecondsPerScenario: number;
}

const BATCH = 50_000;
const PAGE = 25;
const DAY = 86_400_000;

/** Deterministic PRNG (mulberry32), so every run seeds the same shape. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PLATFORMS = ['instagram', 'facebook', 'linkedin', 'tiktok', 'twitter', 'youtube'];
const WORDS =
  'launch new collection behind the scenes team story customer tip weekly update event live today sale limited offer thanks community'.split(
    ' ',
  );
const POOL = 4096;

/** Captions of 12 to 41 words, 2 to 5 hashtags, 0 to 6 platforms, 0 to 3 media URLs and matching publish results. */
function pools(random: () => number) {
  const word = () => WORDS[Math.floor(random() * WORDS.length)];
  const out = {
    captions: [] as string[],
    hashtags: [] as string[],
    platforms: [] as string[],
    media: [] as string[],
    results: [] as string[],
  };
  for (let k = 0; k < POOL; k++) {
    const words = Array.from({ length: 12 + Math.floor(random() * 30) }, word);
    const platforms = PLATFORMS.filter(() => random() < 0.4);
    out.captions.push(`Post ${k}: ${words.join(' ')}`);
    out.hashtags.push(JSON.stringify(words.slice(0, 2 + (k % 4))));
    out.platforms.push(JSON.stringify(platforms));
    out.media.push(
      JSON.stringify(Array.from({ length: k % 4 }, (_, m) => `https://cdn.example.com/media/${k}/${m}.jpg`)),
    );
    out.results.push(
      JSON.stringify(
        platforms.map((p) => ({
          platform: p,
          success: true,
          platform_post_id: `${p}_${k}`,
          error: null,
          attempted_at: '2026-01-01T12:00:00.000Z',
        })),
      ),
    );
  }
  return out;
}

/**
 * Seeds `n` items over the two years before `end`, oldest first, as they would have been written.
 * Gaps are random around the mean; about 5% of items share their predecessor's created_at exactly
 * (bulk imports), which the (created_at, id) cursor must page through without skipping.
 */
function seed(
  sqlite: Database.Database,
  workspaceId: string,
  n: number,
  end: number,
): { seconds: number; insertSeconds: number; identical: number } {
  const random = rng(n);
  const span = 730 * DAY;
  const meanGap = span / n;
  const insert = sqlite.prepare(
    `INSERT INTO content (id, workspace_id, caption, hashtags, content_type, target_platforms, media_urls, topic,
       platform_specific, aspect_ratio, scheduled_for, published_at, status, publish_queued, publish_results,
       campaign_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, '{}', ?, ?, ?, ?, ?, ?, NULL, ?, ?)`,
  );
  let at = end - span;
  let identical = 0;
  // Pools of realistic field values built once (building strings per row would dominate the seeding).
  const pool = pools(random);
  const batch = sqlite.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      if (random() < 0.05) identical++;
      else at += Math.floor(random() * 2 * meanGap) + 1;
      const r = random();
      const status =
        r < 0.3
          ? 'draft'
          : r < 0.35
            ? 'pending_review'
            : r < 0.45
              ? 'approved'
              : r < 0.55
                ? 'scheduled'
                : r < 0.58
                  ? 'rejected'
                  : r < 0.63
                    ? 'archived'
                    : 'published';
      const pick = Math.floor(random() * POOL);
      const publishedAt = status === 'published' ? at + Math.floor(random() * DAY) : null;
      insert.run(
        randomUUID(),
        workspaceId,
        pool.captions[pick],
        pool.hashtags[pick],
        CONTENT_TYPES[i % CONTENT_TYPES.length],
        pool.platforms[pick],
        pool.media[pick],
        i % 3 === 0 ? null : `Topic ${i % 97}`,
        i % 2 === 0 ? '4:5' : null,
        status === 'scheduled' ? end + Math.floor(random() * 30 * DAY) : null,
        publishedAt,
        status,
        status === 'scheduled' ? 1 : 0,
        status === 'published' ? pool.results[pick] : '[]',
        at,
        publishedAt ?? at,
      );
    }
  });
  const t0 = performance.now();
  let insertSeconds: number | undefined;
  // Seeding only: the secondary indexes are dropped and rebuilt from the sorted data afterwards (the
  // same definitions, read back from sqlite_master), and commits skip fsync. The timings that follow
  // run on the schema and pragmas the service uses.
  const indexes = sqlite
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'content' AND sql IS NOT NULL")
    .all() as Array<{ name: string; sql: string }>;
  const synchronous = sqlite.pragma('synchronous', { simple: true }) as number;
  const cacheSize = sqlite.pragma('cache_size', { simple: true }) as number;
  sqlite.pragma('synchronous = OFF');
  sqlite.pragma('cache_size = -262144');
  try {
    for (const index of indexes) sqlite.exec(`DROP INDEX "${index.name}"`);
    for (let from = 0; from < n; from += BATCH) batch(from, Math.min(n, from + BATCH));
    insertSeconds = (performance.now() - t0) / 1000;
  } finally {
    for (const index of indexes) sqlite.exec(index.sql);
    sqlite.pragma(`synchronous = ${synchronous}`);
    sqlite.pragma(`cache_size = ${cacheSize}`);
  }
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  return { seconds: (performance.now() - t0) / 1000, insertSeconds: insertSeconds ?? NaN, identical };
}

/**
 * Records the SQL and parameters of queries run on this connection while `recording` is on, by
 * wrapping the statements it prepares (installed before the first query, so cached statements are
 * covered too). Off, the wrapper costs one boolean check per query.
 */
function queryRecorder(sqlite: Database.Database): {
  record: <T>(work: () => Promise<T>) => Promise<{ result: T; queries: Array<{ sql: string; params: unknown[] }> }>;
} {
  const original = sqlite.prepare.bind(sqlite);
  let recording: Array<{ sql: string; params: unknown[] }> | null = null;
  sqlite.prepare = ((source: string) => {
    const statement = original(source);
    for (const method of ['all', 'get', 'iterate'] as const) {
      const run = (statement[method] as (...p: unknown[]) => unknown).bind(statement);
      (statement as unknown as Record<string, unknown>)[method] = (...params: unknown[]) => {
        recording?.push({ sql: source, params });
        return run(...params);
      };
    }
    return statement;
  }) as typeof sqlite.prepare;
  return {
    async record(work) {
      recording = [];
      try {
        const result = await work();
        return { result, queries: recording };
      } finally {
        recording = null;
      }
    },
  };
}

interface Scenario {
  name: string;
  input: Record<string, unknown>;
}

/** The (created_at, id) cursor of the item at `offset` in the list the filter selects, as the API would hand it out. */
function cursorAt(sqlite: Database.Database, workspaceId: string, status: string | null, offset: number): string {
  const row = sqlite
    .prepare(
      `SELECT created_at AS createdAt, id FROM content WHERE workspace_id = ? AND ${status ? 'status = ?' : "status != 'archived'"}
       ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?`,
    )
    .get(...(status ? [workspaceId, status, offset] : [workspaceId, offset])) as { createdAt: number; id: string };
  return encodeCursor({ createdAt: new Date(row.createdAt), id: row.id });
}

function scenarios(sqlite: Database.Database, workspaceId: string): Scenario[] {
  const count = (where: string) =>
    (
      sqlite.prepare(`SELECT count(*) AS n FROM content WHERE workspace_id = ? AND ${where}`).get(workspaceId) as {
        n: number;
      }
    ).n;
  const visible = count("status != 'archived'");
  const scheduled = count("status = 'scheduled'");
  return [
    { name: 'first page', input: { limit: PAGE } },
    {
      name: 'page at 50% depth',
      input: { limit: PAGE, cursor: cursorAt(sqlite, workspaceId, null, Math.floor(visible * 0.5)) },
    },
    {
      name: 'page at 95% depth',
      input: { limit: PAGE, cursor: cursorAt(sqlite, workspaceId, null, Math.floor(visible * 0.95)) },
    },
    { name: 'status=scheduled, first page', input: { limit: PAGE, status: 'scheduled' } },
    {
      name: 'status=scheduled, 50% depth',
      input: {
        limit: PAGE,
        status: 'scheduled',
        cursor: cursorAt(sqlite, workspaceId, 'scheduled', Math.floor(scheduled * 0.5)),
      },
    },
  ];
}

interface Prepared {
  n: number;
  runtime: Runtime;
  workspace: Workspace;
  scenarios: Scenario[];
  plans: Map<string, string>;
  cleanup: () => void;
}

/** Seeds one workspace of `n` items in a fresh temp database; checks each scenario once and keeps its query plan. */
async function prepare(n: number): Promise<Prepared> {
  const dir = tempDir(`list-${n}`);
  const runtime = await openRuntime({ config: loadConfig({ DATA_DIR: dir.path, ...RAISED_LIMITS }) });
  const sqlite = sqliteOf(runtime.db);
  const cleanup = () => {
    sqlite.close();
    dir.cleanup();
  };
  try {
    const recorder = queryRecorder(sqlite);
    const { workspace } = await createWorkspace(runtime, { name: `list ${n}`, plan: 'business' });
    const seeded = seed(sqlite, workspace.id, n, Date.UTC(2026, 10, 22));
    console.log(
      `seeded ${fmt(n)} items in ${fmt(seeded.seconds, 1)} s (rows ${fmt(seeded.insertSeconds, 1)} s, then indexes; ${fmt(seeded.identical)} share their predecessor's created_at)`,
    );

    const list = scenarios(sqlite, workspace.id);
    const plans = new Map<string, string>();
    const ctx = contextFor(runtime, workspace, 'rest');
    for (const scenario of list) {
      const { result: page, queries } = await recorder.record(async () =>
        runOperation(listContent, ctx, scenario.input),
      );
      if (page.data.length !== PAGE || !page.has_more)
        throw new Error(`${scenario.name}: expected a full page with more after it`);
      const query = queries.find((q) => /from\s+"content"/i.test(q.sql) && /order by/i.test(q.sql));
      const plan = query
        ? (sqlite.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(...query.params) as Array<{ detail: string }>)
            .map((r) => r.detail)
            .join('; ')
        : '(page query not seen)';
      plans.set(scenario.name, plan);
    }
    return { n, runtime, workspace, scenarios: list, plans, cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}

/** `count` timed calls of one scenario on one database, in milliseconds. */
async function timeCalls(
  db: Prepared,
  scenario: Scenario,
  count: number,
  deadline: number,
  into: number[],
): Promise<void> {
  const ctx = contextFor(db.runtime, db.workspace, 'rest');
  for (let i = 0; i < count && performance.now() < deadline; i++) {
    const t0 = process.hrtime.bigint();
    await runOperation(listContent, ctx, scenario.input);
    into.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
}

const ROUNDS = 10;

export async function benchList(settings: ListSettings): Promise<Row[]> {
  const [small, large] = settings.sizes;
  console.log(
    `\n== List page latency: listContent in process, limit ${PAGE}, ${fmt(settings.calls)} calls per scenario and size, ` +
      `the two sizes alternating in ${ROUNDS} rounds (max ${settings.maxSecondsPerScenario} s per scenario) ==`,
  );
  const dbs: Prepared[] = [];
  try {
    for (const n of [small, large]) dbs.push(await prepare(n));
    const [smallDb, largeDb] = dbs;
    const timings = new Map<string, Array<{ calls: number; p50: number; p99: number }>>();
    for (const [index, scenario] of smallDb.scenarios.entries()) {
      const deadline = performance.now() + settings.maxSecondsPerScenario * 1000;
      const latencies: number[][] = [[], []];
      // Warm-up on both, then alternate which size goes first so neither gets the warmer turn.
      for (const db of dbs) await timeCalls(db, db.scenarios[index], settings.warmupCalls, deadline, []);
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        for (const which of order)
          await timeCalls(
            dbs[which],
            dbs[which].scenarios[index],
            Math.ceil(settings.calls / ROUNDS),
            deadline,
            latencies[which],
          );
      }
      timings.set(
        scenario.name,
        latencies.map((l) => {
          l.sort((a, b) => a - b);
          return { calls: l.length, p50: percentile(l, 50), p99: percentile(l, 99) };
        }),
      );
    }

    const k = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);
    console.log(
      table(
        [
          'scenario',
          `p50 ${k(small)}`,
          `p99 ${k(small)}`,
          `p50 ${k(large)}`,
          `p99 ${k(large)}`,
          'p50 ratio',
          'p99 ratio',
          'calls',
        ],
        [...timings].map(([name, [s, l]]) => [
          name,
          `${fmt(s.p50, 3)} ms`,
          `${fmt(s.p99, 3)} ms`,
          `${fmt(l.p50, 3)} ms`,
          `${fmt(l.p99, 3)} ms`,
          fmt(l.p50 / s.p50, 2),
          fmt(l.p99 / s.p99, 2),
          `${fmt(s.calls)}/${fmt(l.calls)}`,
        ]),
      ),
    );
    console.log(`\nEXPLAIN QUERY PLAN of the page queries (${k(large)} database):`);
    for (const [name, plan] of largeDb.plans) console.log(`  ${name.padEnd(30)} ${plan}`);

    return [...timings].map(([name, [s, l]]) => ({
      name: `list ${name} p50`,
      unit: 'ms',
      project: l.p50,
      limit: s.p50,
      ratio: l.p50 / s.p50,
      target: { op: '<=' as const, value: 1.5 },
      note: `${k(large)} vs ${k(small)}`,
    }));
  } finally {
    for (const db of dbs) db.cleanup();
  }
}
