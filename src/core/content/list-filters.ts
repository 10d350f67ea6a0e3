import { and, eq, gte, inArray, lt, ne, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import { foldCase, type Db } from '../../../db/client.ts';
import {
  CONTENT_STATUSES,
  CONTENT_TYPES,
  content,
  publishRuns,
  type ContentStatus,
  type ContentType,
} from '../../../db/schema/index.ts';
import { dateTimeInput } from '../dates.ts';
import { paginationInput } from '../pagination.ts';

/** The longest caption search: longer than any word, far shorter than a caption (4,000). */
export const MAX_CAPTION_SEARCH = 200;

/**
 * The one filter schema of a content list: REST's query, the MCP tool's arguments, the dashboard's
 * lists and the home page's counts all take these fields, so a filter added here reaches every door.
 */
export const contentListFilterFields = {
  status: z
    .enum(CONTENT_STATUSES)
    .optional()
    .describe('Only items in this status; archived items appear only when asked for.'),
  content_type: z.enum(CONTENT_TYPES).optional().describe('Only items of this content type.'),
  q: z
    .string()
    .trim()
    .max(MAX_CAPTION_SEARCH)
    // An empty search (a form's empty box) searches nothing: the same list as without it.
    .transform((text) => (text === '' ? undefined : text))
    .optional()
    .describe('Only items whose caption has this text, in any case.'),
  campaign_id: z.string().max(100).optional().describe('Only items of this campaign.'),
  platform: z.string().max(32).optional().describe('Only items for this platform.'),
  scheduled_from: dateTimeInput.optional().describe('Only items scheduled at or after this time.'),
  scheduled_to: dateTimeInput.optional().describe('Only items scheduled before this time.'),
  failed_since: dateTimeInput
    .optional()
    .describe(
      'Only items whose publishing failed on every platform at or after this time (they are back in approved).',
    ),
};

/** A page of a content list: the filters, then limit and cursor. */
export const ListContentInput = z.object({ ...contentListFilterFields, ...paginationInput });

/** The filters every list of content items shares: REST and MCP, the dashboard's lists and the home counts. */
export interface ContentListFilters {
  status?: ContentStatus | undefined;
  content_type?: ContentType | undefined;
  q?: string | undefined;
  campaign_id?: string | undefined;
  platform?: string | undefined;
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
 * Captions containing `text`, case folded the same way on both sides (fold_case, registered on every
 * connection: SQLite's own lower() folds ASCII only, so "ÉTÉ" would miss "été"). instr, not LIKE, so a
 * `%` or `_` in the search is the character itself and needs no escaping.
 */
const captionContains = (text: string): SQL => sql`instr(fold_case(${content.caption}), ${foldCase(text)}) > 0`;

/**
 * The where clauses of a content list in a workspace, cursor aside: one definition, so a count on the
 * home page is the length of the list it links to. Archived items appear only when asked for.
 */
export function contentListWhere(db: Db, workspaceId: string, filters: ContentListFilters): SQL[] {
  const where: SQL[] = [eq(content.workspaceId, workspaceId)];
  where.push(filters.status ? eq(content.status, filters.status) : ne(content.status, 'archived'));
  if (filters.content_type) where.push(eq(content.contentType, filters.content_type));
  if (filters.campaign_id) where.push(eq(content.campaignId, filters.campaign_id));
  if (filters.platform) {
    where.push(db.$store.sql.jsonArrayHas(sql`${content.targetPlatforms}`, sql`${filters.platform}`));
  }
  if (filters.scheduled_from) where.push(gte(content.scheduledFor, filters.scheduled_from));
  if (filters.scheduled_to) where.push(lt(content.scheduledFor, filters.scheduled_to));
  if (filters.failed_since) where.push(failedPublishSince(db, workspaceId, filters.failed_since));
  if (filters.q) where.push(captionContains(filters.q));
  return where;
}
