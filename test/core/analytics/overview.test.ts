import { beforeEach, describe, expect, it } from 'vitest';
import { getAnalyticsOverview } from '../../../src/core/analytics/overview.ts';
import { contextFor } from '../../../src/core/context.ts';
import { ServiceError } from '../../../src/core/errors.ts';
import { runOperation } from '../../../src/core/operation.ts';
import { makeWorkspace, type TestWorkspace } from '../../helpers/factories.ts';
import { HISTORY_NOW, recordPublishRun, seedKnownHistory } from '../../helpers/publish-history.ts';
import { capturingDb, testRuntime, type TestRuntime } from '../../helpers/runtime.ts';
import { onSqliteOnly } from '../../helpers/sqlite-only.ts';
import { sqliteOf } from '../../../db/client.ts';

type Counts = [published: number, failed: number];

/** The `daily` array expected for `days` days from `first`: zeros except the days listed. */
function dailyFrom(first: string, days: number, counts: Record<string, Counts> = {}) {
  const start = Date.parse(`${first}T00:00:00.000Z`);
  const entries = Array.from({ length: days }, (_, i) => {
    const date = new Date(start + i * 86_400_000).toISOString().slice(0, 10);
    const [published, failed] = counts[date] ?? [0, 0];
    return { date, published, failed };
  });
  for (const date of Object.keys(counts)) {
    if (!entries.some((e) => e.date === date)) throw new Error(`${date} is outside the expected period`);
  }
  return entries;
}

const platforms = (counts: Record<string, Counts>) =>
  Object.entries(counts).map(([platform, [published, failed]]) => ({ platform, published, failed }));

describe('getAnalyticsOverview over a known history (see test/helpers/publish-history.ts)', () => {
  let runtime: TestRuntime;
  let ws: TestWorkspace;
  let other: TestWorkspace;
  const overview = async (input: Record<string, unknown> = {}, workspace = ws) =>
    runOperation(getAnalyticsOverview, contextFor(runtime, workspace.workspace, 'rest'), input);

  beforeEach(async () => {
    runtime = await testRuntime({ start: HISTORY_NOW });
    ws = await makeWorkspace(runtime); // pro: 90 days of history
    other = await makeWorkspace(runtime);
    await seedKnownHistory(runtime, ws.workspace, other.workspace);
  });

  it('covers the last 30 UTC days by default, today included, up to now', async () => {
    expect(await overview()).toEqual({
      object: 'analytics_overview',
      days: 30,
      period_start: '2026-02-09T00:00:00.000Z',
      period_end: HISTORY_NOW,
      // Items: r1, r3, r5, r7 published; r2, r4 failed. r6 is still running; r8 and r9 are older.
      totals: { published: 4, failed: 2 },
      // Attempts finished in the period, by platform id; the pending linkedin attempt of r6 is not.
      platforms: platforms({
        facebook: [1, 1], // r7 published, r3 rejected
        instagram: [0, 2], // r1, r2 rejected
        linkedin: [2, 2], // r1, r5 published; r2 unknown, r4 rejected
        tiktok: [0, 1], // r5 rejected
        twitter: [4, 1], // r1, r3, r5, r6 published; r2 rejected
      }),
      daily: dailyFrom('2026-02-09', 30, {
        '2026-02-09': [1, 0], // r7, at the first instant of the period
        '2026-03-08': [1, 0], // r5
        '2026-03-09': [1, 1], // r3 at 23:59:59.999, r4 at 00:00
        '2026-03-10': [1, 1], // r1, r2
      }),
    });
  });

  it('takes up to the plan history (pro: 90 days) and reaches older runs', async () => {
    expect(await overview({ days: 90 })).toEqual({
      object: 'analytics_overview',
      days: 90,
      period_start: '2025-12-11T00:00:00.000Z',
      period_end: HISTORY_NOW,
      totals: { published: 5, failed: 3 }, // + r8 published, r9 failed
      platforms: platforms({
        facebook: [1, 1],
        instagram: [0, 3], // + r9
        linkedin: [2, 3], // + r8 rejected
        tiktok: [0, 2], // + r9
        twitter: [5, 1], // + r8 published
      }),
      daily: dailyFrom('2025-12-11', 90, {
        '2025-12-20': [0, 1],
        '2026-02-08': [1, 0],
        '2026-02-09': [1, 0],
        '2026-03-08': [1, 0],
        '2026-03-09': [1, 1],
        '2026-03-10': [1, 1],
      }),
    });
  });

  it('caps days at the plan history silently and says the days used', async () => {
    const result = await overview({ days: 365 });
    expect(result.days).toBe(90);
    expect(result.period_start).toBe('2025-12-11T00:00:00.000Z');
    expect(result.daily).toHaveLength(90);
    expect(result.totals).toEqual({ published: 5, failed: 3 });
  });

  it('caps at the smallest plan too (free: 7 days), which leaves r5 in and the 30-day runs out', async () => {
    const free = await makeWorkspace(runtime, { plan: 'free' });
    await recordPublishRun(runtime, free.workspace, {
      finishedAt: '2026-03-04T00:00:00.000Z',
      platforms: { twitter: 'published' },
    });
    await recordPublishRun(runtime, free.workspace, {
      finishedAt: '2026-03-03T23:59:59.999Z',
      platforms: { twitter: 'rejected' },
    });
    expect(await overview({ days: 30 }, free)).toEqual({
      object: 'analytics_overview',
      days: 7,
      period_start: '2026-03-04T00:00:00.000Z',
      period_end: HISTORY_NOW,
      totals: { published: 1, failed: 0 },
      platforms: platforms({ twitter: [1, 0] }),
      daily: dailyFrom('2026-03-04', 7, { '2026-03-04': [1, 0] }),
    });
    // Under the cap the request stands as asked.
    expect((await overview({ days: 3 }, free)).days).toBe(3);
  });

  it('days=1 is today only, from UTC midnight', async () => {
    expect(await overview({ days: 1 })).toEqual({
      object: 'analytics_overview',
      days: 1,
      period_start: '2026-03-10T00:00:00.000Z',
      period_end: HISTORY_NOW,
      totals: { published: 1, failed: 1 }, // r1, r2
      platforms: platforms({
        instagram: [0, 2], // r1, r2
        linkedin: [1, 1], // r1 published, r2 unknown
        twitter: [2, 1], // r1, r6 published; r2 rejected
      }),
      daily: [{ date: '2026-03-10', published: 1, failed: 1 }],
    });
  });

  it('days=2 starts at the previous UTC midnight: a run at exactly 00:00 belongs to its day', async () => {
    expect(await overview({ days: 2 })).toEqual({
      object: 'analytics_overview',
      days: 2,
      period_start: '2026-03-09T00:00:00.000Z',
      period_end: HISTORY_NOW,
      totals: { published: 2, failed: 2 }, // r1, r3; r2, r4
      platforms: platforms({
        facebook: [0, 1], // r3
        instagram: [0, 2],
        linkedin: [1, 2], // r1; r2, r4
        twitter: [3, 1], // r1, r3, r6; r2
      }),
      daily: dailyFrom('2026-03-09', 2, { '2026-03-09': [1, 1], '2026-03-10': [1, 1] }),
    });
  });

  it('includes both ends of the period: the first instant of the first day and now', async () => {
    // Seen from 2026-03-09T23:59:59.999Z, "today" is 03-09: r4 at its first instant, r3 at now.
    runtime.clock.set('2026-03-09T23:59:59.999Z');
    expect(await overview({ days: 1 })).toEqual({
      object: 'analytics_overview',
      days: 1,
      period_start: '2026-03-09T00:00:00.000Z',
      period_end: '2026-03-09T23:59:59.999Z',
      totals: { published: 1, failed: 1 },
      platforms: platforms({ facebook: [0, 1], linkedin: [0, 1], twitter: [1, 0] }),
      daily: [{ date: '2026-03-09', published: 1, failed: 1 }],
    });
    // One millisecond later a new UTC day begins, and nothing has happened in it yet.
    runtime.clock.advance(1);
    expect(await overview({ days: 1 })).toMatchObject({
      period_start: '2026-03-10T00:00:00.000Z',
      totals: { published: 0, failed: 0 },
      platforms: [],
      daily: [{ date: '2026-03-10', published: 0, failed: 0 }],
    });
  });

  it('counts nothing that finished after now', async () => {
    runtime.clock.set('2026-03-10T09:00:00.000Z'); // r1's instant: r2 and r6 lie ahead
    const today = await overview({ days: 1 });
    expect(today.totals).toEqual({ published: 1, failed: 0 });
    expect(today.platforms).toEqual(platforms({ instagram: [0, 1], linkedin: [1, 0], twitter: [1, 0] }));
  });

  it("never counts another workspace's history, and shows that workspace only its own", async () => {
    expect(await overview({ days: 30 }, other)).toEqual({
      object: 'analytics_overview',
      days: 30,
      period_start: '2026-02-09T00:00:00.000Z',
      period_end: HISTORY_NOW,
      totals: { published: 2, failed: 1 }, // o1, o3; o2
      platforms: platforms({ facebook: [0, 1], instagram: [0, 1], linkedin: [1, 0], tiktok: [1, 0], twitter: [1, 0] }),
      daily: dailyFrom('2026-02-09', 30, { '2026-02-20': [1, 0], '2026-03-09': [0, 1], '2026-03-10': [1, 0] }),
    });
    const empty = await makeWorkspace(runtime);
    const nothing = await overview({}, empty);
    expect(nothing.totals).toEqual({ published: 0, failed: 0 });
    expect(nothing.platforms).toEqual([]);
    expect(nothing.daily).toEqual(dailyFrom('2026-02-09', 30));
  });

  it('counts items, not runs: an item retried counts once per outcome in a day and in the totals', async () => {
    const fresh = await makeWorkspace(runtime);
    const x = await recordPublishRun(runtime, fresh.workspace, {
      finishedAt: '2026-03-09T08:00:00.000Z',
      platforms: { twitter: 'rejected' },
    });
    await recordPublishRun(runtime, fresh.workspace, {
      contentId: x.contentId,
      finishedAt: '2026-03-10T08:00:00.000Z',
      platforms: { twitter: 'rejected' },
    });
    await recordPublishRun(runtime, fresh.workspace, {
      contentId: x.contentId,
      finishedAt: '2026-03-10T08:30:00.000Z',
      platforms: { twitter: 'rejected' },
    });
    const y = await recordPublishRun(runtime, fresh.workspace, {
      finishedAt: '2026-03-09T09:00:00.000Z',
      platforms: { twitter: 'rejected', linkedin: 'rejected' },
    });
    await recordPublishRun(runtime, fresh.workspace, {
      contentId: y.contentId,
      finishedAt: '2026-03-10T09:00:00.000Z',
      platforms: { twitter: 'rejected', linkedin: 'published' },
    });
    const result = await overview({ days: 2 }, fresh);
    expect(result.daily).toEqual([
      { date: '2026-03-09', published: 0, failed: 2 }, // x, y
      { date: '2026-03-10', published: 1, failed: 1 }, // y; x (twice)
    ]);
    expect(result.totals).toEqual({ published: 1, failed: 2 }); // y; x, y
    // Platforms count every attempt's outcome.
    expect(result.platforms).toEqual(platforms({ linkedin: [1, 1], twitter: [0, 5] }));
  });

  it('refuses days outside 1 to 365, or not whole, with invalid_body details on days', async () => {
    for (const days of [0, 366, -1, 1.5, '0', '366', '-3', '2.5', 'abc', '', true, null, ['7', '8']]) {
      let error: unknown;
      try {
        await overview({ days });
      } catch (caught) {
        error = caught;
      }
      expect(error, JSON.stringify(days)).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).code).toBe('invalid_body');
      expect(Object.keys((error as ServiceError).details!.fieldErrors), JSON.stringify(days)).toEqual(['days']);
    }
  });

  it('takes days as a query string gives it: a decimal string', async () => {
    expect((await overview({ days: '2' })).days).toBe(2);
    expect((await overview({ days: '365' })).days).toBe(90);
    expect((await overview({ days: '1' })).daily).toHaveLength(1);
  });
});

interface Captured {
  sql: string;
  params: unknown[];
}

/** The aggregation searches the partial (workspace_id, finished_at) indexes, never scanning a table. */
onSqliteOnly.describe('getAnalyticsOverview query plans on SQLite', () => {
  let runtime: TestRuntime;
  let ws: TestWorkspace;
  beforeEach(async () => {
    runtime = await testRuntime({ start: HISTORY_NOW });
    ws = await makeWorkspace(runtime);
    const other = await makeWorkspace(runtime);
    await seedKnownHistory(runtime, ws.workspace, other.workspace);
    for (let i = 0; i < 40; i += 1) {
      await recordPublishRun(runtime, i % 2 ? ws.workspace : other.workspace, {
        finishedAt: new Date(Date.parse(HISTORY_NOW) - i * 3_600_000 * 7),
        platforms: { twitter: 'published', linkedin: i % 3 ? 'rejected' : 'pending' },
      });
    }
  });

  async function captureQueries(): Promise<Captured[]> {
    const captured: Captured[] = [];
    const logged = capturingDb(runtime.db, captured);
    const result = await runOperation(
      getAnalyticsOverview,
      contextFor({ ...runtime, db: logged }, ws.workspace, 'rest'),
      {
        days: 30,
      },
    );
    expect(result.object).toBe('analytics_overview');
    return captured;
  }

  const planOf = (query: Captured): string =>
    (
      sqliteOf(runtime.db)
        .prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
        .all(...query.params) as Array<{ detail: string }>
    )
      .map((row) => row.detail)
      .join('\n');

  function expectIndexSearch(query: Captured, table: string, index: string): void {
    const plan = planOf(query);
    expect(plan, plan).toMatch(
      new RegExp(
        `SEARCH ${table} USING (COVERING )?INDEX ${index} \\(workspace_id=\\? AND finished_at>\\? AND finished_at<\\?\\)`,
      ),
    );
    expect(plan, plan).not.toMatch(/\bSCAN\b/);
  }

  async function expectPlans(): Promise<void> {
    const queries = await captureQueries();
    const runs = queries.filter((q) => /from "publish_runs"/.test(q.sql));
    const attempts = queries.filter((q) => /from "publish_attempts"/.test(q.sql));
    expect(runs.length + attempts.length, JSON.stringify(queries.map((q) => q.sql))).toBe(queries.length);
    expect(runs.length).toBeGreaterThan(0);
    expect(attempts.length).toBeGreaterThan(0);
    for (const query of runs) {
      expect(query.sql).toMatch(/group by|count\(/i);
      expectIndexSearch(query, 'publish_runs', 'publish_runs_workspace_finished_idx');
    }
    for (const query of attempts) {
      expect(query.sql).toMatch(/group by/i);
      expectIndexSearch(query, 'publish_attempts', 'publish_attempts_workspace_finished_idx');
    }
  }

  it('without statistics', async () => {
    await expectPlans();
  });

  it('after ANALYZE', async () => {
    sqliteOf(runtime.db).exec('ANALYZE');
    await expectPlans();
  });

  it('the plan check itself fails on a query that scans the table', () => {
    const scan = { sql: 'select count(*) from publish_runs where outcome = ?', params: ['failed'] };
    expect(() => expectIndexSearch(scan, 'publish_runs', 'publish_runs_workspace_finished_idx')).toThrow();
    const unbounded = {
      sql: 'select count(*) from publish_attempts where workspace_id = ?',
      params: [ws.workspace.id],
    };
    expect(() => expectIndexSearch(unbounded, 'publish_attempts', 'publish_attempts_workspace_finished_idx')).toThrow();
  });
});
