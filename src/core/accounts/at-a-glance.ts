import { and, asc, count, countDistinct, eq, gte, lt } from 'drizzle-orm';
import { z } from 'zod';
import { content, publishRuns, socialAccounts, webhooks } from '../../../db/schema/index.ts';
import type { ContentRow } from '../content/serialize.ts';
import { defineOperation } from '../operation.ts';

const DAY_MS = 86_400_000;
/** How many upcoming posts the home page lists. */
export const NEXT_SCHEDULED = 5;

export interface WorkspaceGlance {
  awaitingApproval: number;
  scheduledNext7Days: number;
  /** Items whose publishing failed on every platform in the last 24 hours (content.publish_failed). */
  failedLast24Hours: number;
  accountsToReconnect: number;
  disabledWebhooks: number;
  nextScheduled: ContentRow[];
}

/**
 * The workspace at a glance, for the dashboard's home page: each count is the size of a list the API
 * answers (pending_review items; scheduled items in the next 7 days; social accounts needing a
 * reconnect; disabled webhooks), counted in SQL instead of paged through.
 */
export const workspaceAtAGlance = defineOperation({
  name: 'workspaceAtAGlance',
  buckets: ['read'],
  input: z.object({}),
  output: z.custom<WorkspaceGlance>(),
  run({ db, workspace, clock }): WorkspaceGlance {
    const now = clock.now();
    const weekAhead = new Date(now.getTime() + 7 * DAY_MS);
    const dayAgo = new Date(now.getTime() - DAY_MS);
    const ofWorkspace = eq(content.workspaceId, workspace.id);
    const countContent = (...where: Parameters<typeof and>) =>
      db
        .select({ n: count() })
        .from(content)
        .where(and(ofWorkspace, ...where))
        .get()!.n;
    return {
      awaitingApproval: countContent(eq(content.status, 'pending_review')),
      scheduledNext7Days: countContent(
        eq(content.status, 'scheduled'),
        gte(content.scheduledFor, now),
        lt(content.scheduledFor, weekAhead),
      ),
      failedLast24Hours: db
        .select({ n: countDistinct(publishRuns.contentId) })
        .from(publishRuns)
        .where(
          and(
            eq(publishRuns.workspaceId, workspace.id),
            gte(publishRuns.finishedAt, dayAgo),
            eq(publishRuns.outcome, 'failed'),
          ),
        )
        .get()!.n,
      accountsToReconnect: db
        .select({ n: count() })
        .from(socialAccounts)
        .where(and(eq(socialAccounts.workspaceId, workspace.id), eq(socialAccounts.status, 'needs_reconnect')))
        .get()!.n,
      disabledWebhooks: db
        .select({ n: count() })
        .from(webhooks)
        .where(and(eq(webhooks.workspaceId, workspace.id), eq(webhooks.isEnabled, false)))
        .get()!.n,
      nextScheduled: db
        .select()
        .from(content)
        .where(and(ofWorkspace, eq(content.status, 'scheduled'), gte(content.scheduledFor, now)))
        .orderBy(asc(content.scheduledFor), asc(content.id))
        .limit(NEXT_SCHEDULED)
        .all() as ContentRow[],
    };
  },
});
