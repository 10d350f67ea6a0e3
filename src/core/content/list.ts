import { and, count, desc } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../../db/client.ts';
import { content } from '../../../db/schema/index.ts';
import { defineOperation } from '../operation.ts';
import { afterCursor, encodeCursor, listEnvelope, toPage, type CursorPosition } from '../pagination.ts';
import { contentListWhere, ListContentInput, type ContentListFilters } from './list-filters.ts';
import { ContentResource } from './schemas.ts';
import { toContentResource, type ContentRow } from './serialize.ts';

/**
 * The one content list: newest first, filtered by the one filter schema (list-filters.ts). REST's
 * GET /content and the MCP tool answer it as the list envelope; the dashboard's lists take the same
 * rows and add their previews (review.ts); the home page counts it.
 */

type ListInput = z.output<typeof ListContentInput>;

const positionOf = (row: ContentRow): CursorPosition => ({ createdAt: row.createdAt, id: row.id });

/** The page's rows and one more, which only says whether another page follows. */
async function listedRows(db: Db, workspaceId: string, input: ListInput): Promise<ContentRow[]> {
  return db
    .select()
    .from(content)
    .where(
      and(...contentListWhere(db, workspaceId, input), ...afterCursor(input.cursor, content.createdAt, content.id)),
    )
    .orderBy(desc(content.createdAt), desc(content.id))
    .limit(input.limit + 1)
    .all();
}

/** A page of the list as rows, with the cursor of the next page (null on the last). */
export async function listContentPage(
  db: Db,
  workspaceId: string,
  input: ListInput,
): Promise<{ rows: ContentRow[]; nextCursor: string | null }> {
  const rows = await listedRows(db, workspaceId, input);
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return { rows: page, nextCursor: rows.length > input.limit && last ? encodeCursor(positionOf(last)) : null };
}

/** How many items the list holds for `filters`, counted in SQL: what paging through it to the end would find. */
export async function countContent(db: Db, workspaceId: string, filters: ContentListFilters): Promise<number> {
  return (await db
    .select({ n: count() })
    .from(content)
    .where(and(...contentListWhere(db, workspaceId, filters)))
    .get())!.n;
}

export const listContent = defineOperation({
  name: 'listContent',
  buckets: ['read'],
  scope: 'read',
  input: ListContentInput,
  output: listEnvelope(ContentResource),
  async run({ db, workspace, answerBudget }, input) {
    return toPage(await listedRows(db, workspace.id, input), input.limit, positionOf, toContentResource, answerBudget);
  },
});
