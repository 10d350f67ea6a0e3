import { and, asc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { preparedStatements } from '../../../db/client.ts';
import { publishAttempts, publishRuns } from '../../../db/schema/index.ts';
import { defineOperation } from '../operation.ts';
import { AnalyticsOverviewResource } from './schemas.ts';

export const DEFAULT_DAYS = 30;
export const MAX_DAYS = 365;
const DAY_MS = 86_400_000;

/**
 * A query string carries `days` as text: a decimal number in a string becomes that number, and
 * anything else (`abc`, an empty value, a repeated parameter) stays what it is, so the schema
 * refuses it with invalid_body instead of guessing.
 */
const decimalToNumber = (value: unknown): unknown =>
  typeof value === 'string' && /^\s*[+-]?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;

const WHOLE_DAYS = `days must be a whole number of days from 1 to ${MAX_DAYS}.`;

export const AnalyticsOverviewInput = z.object({
  days: z
    .preprocess(
      decimalToNumber,
      z.number({ error: WHOLE_DAYS }).int(WHOLE_DAYS).min(1, WHOLE_DAYS).max(MAX_DAYS, WHOLE_DAYS),
    )
    // prefault, not default: the JSON schema keeps a default only when it is applied before the preprocess.
    .prefault(DEFAULT_DAYS)
    .meta({
      type: 'integer',
      minimum: 1,
      maximum: MAX_DAYS,
      description: `How many UTC calendar days to cover, today included; default ${DEFAULT_DAYS}.`,
    }),
});

interface Counts {
  published: number;
  failed: number;
}

export interface AnalyticsOverview {
  object: 'analytics_overview';
  days: number;
  period_start: string;
  period_end: string;
  totals: Counts;
  platforms: Array<{ platform: string } & Counts>;
  daily: Array<{ date: string } & Counts>;
}

/** The UTC day number of a millisecond timestamp column; integer division floors non-negative values. */
const dayOf = (column: typeof publishRuns.finishedAt) => sql<number>`(${column} / ${sql.raw(String(DAY_MS))})`;

/**
 * Finished rows of one workspace in [start, end]. The range on finished_at implies "finished_at is
 * not null", so SQLite can search the partial (workspace_id, finished_at) indexes.
 */
const finishedWithin = (table: typeof publishRuns | typeof publishAttempts) =>
  and(
    eq(table.workspaceId, sql.placeholder('workspaceId')),
    sql`${table.finishedAt} >= ${sql.placeholder('start')}`,
    sql`${table.finishedAt} <= ${sql.placeholder('end')}`,
  );

/** Items, not runs: an item retried on one day (or, in the totals, over the period) counts once per outcome. */
const itemsWith = (outcome: 'published' | 'failed') =>
  sql<number>`count(distinct case when ${publishRuns.outcome} = ${sql.raw(`'${outcome}'`)} then ${publishRuns.contentId} end)`;

const statements = preparedStatements((db) => ({
  itemsByDay: db
    .select({ day: dayOf(publishRuns.finishedAt), published: itemsWith('published'), failed: itemsWith('failed') })
    .from(publishRuns)
    .where(finishedWithin(publishRuns))
    .groupBy(dayOf(publishRuns.finishedAt))
    .prepare(),
  itemTotals: db
    .select({ published: itemsWith('published'), failed: itemsWith('failed') })
    .from(publishRuns)
    .where(finishedWithin(publishRuns))
    .prepare(),
  // Every finished attempt is one platform outcome: published, or rejected / unknown (failed). A
  // pending attempt has no finished_at yet, so the range leaves it out. Counted with `case`, not
  // by summing a comparison: PostgreSQL's comparisons are booleans, which it does not sum.
  outcomesByPlatform: db
    .select({
      platform: publishAttempts.platform,
      published: sql<number>`count(case when ${publishAttempts.status} = 'published' then 1 end)`,
      failed: sql<number>`count(case when ${publishAttempts.status} in ('rejected', 'unknown') then 1 end)`,
    })
    .from(publishAttempts)
    .where(finishedWithin(publishAttempts))
    .groupBy(publishAttempts.platform)
    .orderBy(asc(publishAttempts.platform))
    .prepare(),
}));

const isoDate = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/**
 * GET /api/v1/analytics/overview: the last `days` UTC calendar days, today included, up to now.
 * `totals` and `daily` count items by the outcome of their publishing runs (published on at least
 * one platform, or failed on every one); `platforms` counts each platform's attempt outcomes.
 */
export const getAnalyticsOverview = defineOperation({
  name: 'getAnalyticsOverview',
  buckets: ['read'],
  scope: 'read',
  input: AnalyticsOverviewInput,
  output: AnalyticsOverviewResource,
  async run({ db, workspace, clock }, input): Promise<AnalyticsOverview> {
    // Silently capped at the plan's analytics_history_days (no error); today is always shown.
    const days = Math.max(1, Math.min(input.days, workspace.features.analytics_history_days));
    const now = clock.now();
    const today = Math.floor(now.getTime() / DAY_MS);
    const firstDay = today - days + 1;
    const range = { workspaceId: workspace.id, start: firstDay * DAY_MS, end: now.getTime() };

    const { itemsByDay, itemTotals, outcomesByPlatform } = statements(db);
    const byDay = new Map((await itemsByDay.all(range)).map((row) => [row.day, row]));
    const totals = await itemTotals.get(range);
    return {
      object: 'analytics_overview',
      days,
      period_start: new Date(firstDay * DAY_MS).toISOString(),
      period_end: now.toISOString(),
      totals: { published: totals?.published ?? 0, failed: totals?.failed ?? 0 },
      platforms: (await outcomesByPlatform.all(range)).map((row) => ({
        platform: row.platform,
        published: row.published,
        failed: row.failed,
      })),
      daily: Array.from({ length: days }, (_, i) => {
        const row = byDay.get(firstDay + i);
        return { date: isoDate(firstDay + i), published: row?.published ?? 0, failed: row?.failed ?? 0 };
      }),
    };
  },
});
