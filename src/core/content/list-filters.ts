import { and, eq, gte, inArray, lt, ne, type SQL } from 'drizzle-orm';
import type { Db } from '../../../db/client.ts';
import { content, publishRuns, type ContentStatus, type ContentType } from '../../../db/schema/index.ts';

/** The filters every list of content items shares: REST and MCP, the dashboard's lists and the home counts. */
export interface ContentListFilters {
  status?: ContentStatus | undefined;
  content_type?: ContentType | undefined;
  scheduled_from?: Date | undefined;
  scheduled_to?: Date | undefined;
  failed_since?: Date | undefined;
}

/**
 * Items with a publishing run that failed (on every platform: the run behind content.publish_failed)
 * and finished at or after `since`. A failed item goes back to approved, so its status alone cannot say
 * this; the run can. Asked as "id in the workspace's failed runs since", so SQLite reads the recent
 * runs through their (workspace, finished_at) index instead of looking up every item's runs.
 */
function failedPublishSince(db: Db, workspaceId: string, since: Date): SQL {
  return inArray(
    content.id,
    db
      .select({ contentId: publishRuns.contentId })
      .from(publishRuns)
      .where(
        and(
          eq(publishRuns.workspaceId, workspaceId),
          gte(publishRuns.finishedAt, since),
          eq(publishRuns.outcome, 'failed'),
        ),
      ),
  );
}

/**
 * The where clauses of a content list in a workspace, cursor aside: one definition, so a count on the
 * home page is the length of the list it links to. Archived items appear only when asked for.
 */
export function contentListWhere(db: Db, workspaceId: string, filters: ContentListFilters): SQL[] {
  const where: SQL[] = [eq(content.workspaceId, workspaceId)];
  where.push(filters.status ? eq(content.status, filters.status) : ne(content.status, 'archived'));
  if (filters.content_type) where.push(eq(content.contentType, filters.content_type));
  if (filters.scheduled_from) where.push(gte(content.scheduledFor, filters.scheduled_from));
  if (filters.scheduled_to) where.push(lt(content.scheduledFor, filters.scheduled_to));
  if (filters.failed_since) where.push(failedPublishSince(db, workspaceId, filters.failed_since));
  return where;
}
