import { and, asc, count, eq, gte } from 'drizzle-orm';
import { z } from 'zod';
import { content, socialAccounts, webhooks } from '../../../db/schema/index.ts';
import type { ContentListFilters } from '../content/list-filters.ts';
import { countContent } from '../content/list.ts';
import type { ContentRow } from '../content/serialize.ts';
import { defineOperation } from '../operation.ts';
import { countActiveAccounts } from '../social-accounts/operations.ts';

const DAY_MS = 86_400_000;
/** How many upcoming posts the home page lists. */
export const NEXT_SCHEDULED = 5;

export interface WorkspaceGlance {
  awaitingApproval: number;
  scheduledNext7Days: number;
  /** The window of scheduledNext7Days: the scheduled_from and scheduled_to of the list behind it. */
  scheduledFrom: Date;
  scheduledTo: Date;
  /** Where "the last 24 hours" starts: the failed_since of the list behind failedLast24Hours. */
  failedSince: Date;
  /** Items whose publishing failed on every platform since failedSince (content.publish_failed), archived aside. */
  failedLast24Hours: number;
  accountsToReconnect: number;
  /** Active social accounts, all platforms together: what platforms_limit caps. */
  activeAccounts: number;
  disabledWebhooks: number;
  nextScheduled: ContentRow[];
}

/**
 * The workspace at a glance, for the dashboard's home page: each count is the size of a list the API
 * answers (pending_review items; scheduled items in the next 7 days; items whose publishing failed in
 * the last 24 hours; social accounts needing a reconnect; disabled webhooks), counted in SQL instead of
 * paged through.
 */
export const workspaceAtAGlance = defineOperation({
  name: 'workspaceAtAGlance',
  buckets: ['read'],
  scope: 'read',
  input: z.object({}),
  output: z.custom<WorkspaceGlance>(),
  async run({ db, workspace, clock }): Promise<WorkspaceGlance> {
    const now = clock.now();
    const weekAhead = new Date(now.getTime() + 7 * DAY_MS);
    const failedSince = new Date(now.getTime() - DAY_MS);
    // Each count is the length of the list GET /api/v1/content answers for the same filters.
    const countList = async (filters: ContentListFilters) => countContent(db, workspace.id, filters);
    return {
      awaitingApproval: await countList({ status: 'pending_review' }),
      scheduledFrom: now,
      scheduledTo: weekAhead,
      scheduledNext7Days: await countList({ status: 'scheduled', scheduled_from: now, scheduled_to: weekAhead }),
      failedSince,
      failedLast24Hours: await countList({ failed_since: failedSince }),
      accountsToReconnect: (await db
        .select({ n: count() })
        .from(socialAccounts)
        .where(and(eq(socialAccounts.workspaceId, workspace.id), eq(socialAccounts.status, 'needs_reconnect')))
        .get())!.n,
      activeAccounts: await countActiveAccounts(db, workspace.id),
      disabledWebhooks: (await db
        .select({ n: count() })
        .from(webhooks)
        .where(and(eq(webhooks.workspaceId, workspace.id), eq(webhooks.isEnabled, false)))
        .get())!.n,
      nextScheduled: (await db
        .select()
        .from(content)
        .where(
          and(eq(content.workspaceId, workspace.id), eq(content.status, 'scheduled'), gte(content.scheduledFor, now)),
        )
        .orderBy(asc(content.scheduledFor), asc(content.id))
        .limit(NEXT_SCHEDULED)
        .all()) as ContentRow[],
    };
  },
});
