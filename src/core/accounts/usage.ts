import { and, count, eq, gte, lt } from 'drizzle-orm';
import type { Db } from '../../../db/client.ts';
import { content, usagePeriods } from '../../../db/schema/index.ts';

/** Usage resets each UTC calendar month (DECISIONS.md, Account). */
export function usagePeriod(now: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}

/** Items published in the period: each published item counts once against posts_per_month. */
export function postsPublishedIn(db: Db, workspaceId: string, period: { start: Date; end: Date }): number {
  return db
    .select({ n: count() })
    .from(content)
    .where(and(eq(content.workspaceId, workspaceId), gte(content.publishedAt, period.start), lt(content.publishedAt, period.end)))
    .get()!.n;
}

export function aiCreditsUsedIn(db: Db, workspaceId: string, period: { start: Date }): number {
  const row = db
    .select({ used: usagePeriods.aiCreditsUsed })
    .from(usagePeriods)
    .where(and(eq(usagePeriods.workspaceId, workspaceId), eq(usagePeriods.periodStart, period.start)))
    .get();
  return row?.used ?? 0;
}
