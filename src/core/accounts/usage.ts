import { and, count, eq, gte, lt, sql } from 'drizzle-orm';
import { preparedStatements, type Db } from '../../../db/client.ts';
import { content, usagePeriods } from '../../../db/schema/index.ts';

/** Usage resets each UTC calendar month. */
export function usagePeriod(now: Date): { start: Date; end: Date } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}

/** Items published in the period: each published item counts once against posts_per_month. */
export async function postsPublishedIn(
  db: Db,
  workspaceId: string,
  period: { start: Date; end: Date },
): Promise<number> {
  return (await statements(db).postsPublished.get({
    workspaceId,
    start: period.start.getTime(),
    end: period.end.getTime(),
  }))!.n;
}

const statements = preparedStatements((db) => ({
  // Prepared: the publishing run asks this for every workspace it claims for.
  postsPublished: db
    .select({ n: count() })
    .from(content)
    .where(
      and(
        eq(content.workspaceId, sql.placeholder('workspaceId')),
        gte(content.publishedAt, sql`${sql.placeholder('start')}`),
        lt(content.publishedAt, sql`${sql.placeholder('end')}`),
      ),
    )
    .prepare(),
  // Prepared: campaign generation checks and spends credits on every batch.
  aiCreditsUsed: db
    .select({ used: usagePeriods.aiCreditsUsed })
    .from(usagePeriods)
    .where(
      and(
        eq(usagePeriods.workspaceId, sql.placeholder('workspaceId')),
        eq(usagePeriods.periodStart, sql.placeholder('periodStart')),
      ),
    )
    .prepare(),
  spendAiCredits: db
    .insert(usagePeriods)
    .values({
      workspaceId: sql.placeholder('workspaceId'),
      periodStart: sql.placeholder('periodStart'),
      aiCreditsUsed: sql.placeholder('credits'),
    })
    .onConflictDoUpdate({
      target: [usagePeriods.workspaceId, usagePeriods.periodStart],
      set: { aiCreditsUsed: sql`${usagePeriods.aiCreditsUsed} + ${sql.placeholder('credits')}` },
    })
    .prepare(),
}));

export async function aiCreditsUsedIn(db: Db, workspaceId: string, period: { start: Date }): Promise<number> {
  return (await statements(db).aiCreditsUsed.get({ workspaceId, periodStart: period.start.getTime() }))?.used ?? 0;
}

/** Spends `credits` AI credits of the workspace in the period (one per generated post). */
export async function spendAiCredits(
  db: Db,
  workspaceId: string,
  period: { start: Date },
  credits: number,
): Promise<void> {
  await statements(db).spendAiCredits.run({ workspaceId, periodStart: period.start, credits });
}
