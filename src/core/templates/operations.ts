import { and, desc, eq, sql } from 'drizzle-orm';
import { templates } from '../../../db/schema/index.ts';
import { defineOperation } from '../operation.ts';
import { afterCursor, toPage } from '../pagination.ts';
import { ListTemplatesInput } from './schemas.ts';
import { toTemplateResource } from './serialize.ts';

/**
 * GET /templates: the shared library, newest first by (created_at, id). Templates belong to no
 * workspace, so every workspace sees the same list; the request is still authenticated, plan-checked
 * and counted against the workspace's read bucket like any other read.
 */
export const listTemplates = defineOperation({
  name: 'listTemplates',
  buckets: ['read'],
  input: ListTemplatesInput,
  run({ db }, input) {
    const rows = db
      .select()
      .from(templates)
      .where(
        and(
          input.source_platform ? eq(templates.sourcePlatform, input.source_platform) : undefined,
          input.content_type ? eq(templates.contentType, input.content_type) : undefined,
          // An exact match on one element of the JSON array, never a substring of the array's text.
          input.niche ? sql`exists (select 1 from json_each(${templates.niches}) where json_each.value = ${input.niche})` : undefined,
          ...afterCursor(input.cursor, templates.createdAt, templates.id),
        ),
      )
      .orderBy(desc(templates.createdAt), desc(templates.id))
      .limit(input.limit + 1)
      .all();
    return toPage(rows, input.limit, (r) => ({ createdAt: r.createdAt, id: r.id }), toTemplateResource);
  },
});
