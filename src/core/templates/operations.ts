import { and, desc, eq, sql } from 'drizzle-orm';
import { preparedStatements, type Db } from '../../../db/client.ts';
import { templates, type ContentType } from '../../../db/schema/index.ts';
import { defineOperation } from '../operation.ts';
import { afterCursor, listEnvelope, toPage } from '../pagination.ts';
import { ListTemplatesInput, TemplateResource } from './schemas.ts';
import { toTemplateResource } from './serialize.ts';

/**
 * GET /templates: the shared library, newest first by (created_at, id). Templates belong to no
 * workspace, so every workspace sees the same list; the request is still authenticated, plan-checked
 * and counted against the workspace's read bucket like any other read.
 */
export const listTemplates = defineOperation({
  name: 'listTemplates',
  buckets: ['read'],
  scope: 'read',
  input: ListTemplatesInput,
  output: listEnvelope(TemplateResource),
  errors: {
    invalid_body: 'an unknown source_platform or content_type; an unknown niche just gives an empty list',
  },
  async run({ db, answerBudget }, input) {
    const rows = await db
      .select()
      .from(templates)
      .where(
        and(
          input.source_platform ? eq(templates.sourcePlatform, input.source_platform) : undefined,
          input.content_type ? eq(templates.contentType, input.content_type) : undefined,
          // An exact match on one element of the JSON array, never a substring of the array's text.
          input.niche ? db.$store.sql.jsonArrayHas(sql`${templates.niches}`, sql`${input.niche}`) : undefined,
          ...afterCursor(input.cursor, templates.createdAt, templates.id),
        ),
      )
      .orderBy(desc(templates.createdAt), desc(templates.id))
      .limit(input.limit + 1)
      .all();
    return toPage(rows, input.limit, (r) => ({ createdAt: r.createdAt, id: r.id }), toTemplateResource, answerBudget);
  },
});

/**
 * The structures a campaign's posts may follow (the generator draws on the templates'
 * structures): the library's templates of the given content types, those of the brand's industry
 * first when it names one of their niches, most engaging first; each as "hook / body / call to
 * action", the form the built-in generator reads.
 */
export async function templateStructures(
  db: Db,
  contentTypes: readonly ContentType[],
  industry: string | null,
  limit = 12,
): Promise<string[]> {
  if (contentTypes.length === 0) return [];
  const niche = industry?.trim().toLowerCase().replace(/\s+/g, '-') ?? '';
  return (await statements(db).structures.all({ contentTypes: JSON.stringify(contentTypes), niche, limit })).map(
    ({ structure }) => `${structure.hook} / ${structure.body} / ${structure.call_to_action}`,
  );
}

const statements = preparedStatements((db) => ({
  // Prepared: campaign generation asks before every batch. The content types come as a JSON array.
  structures: db
    .select({ structure: templates.structure })
    .from(templates)
    .where(sql`${templates.contentType} in ${db.$store.sql.jsonArrayValues(sql`${sql.placeholder('contentTypes')}`)}`)
    .orderBy(
      sql`${db.$store.sql.jsonArrayHas(sql`${templates.niches}`, sql`${sql.placeholder('niche')}`)} desc`,
      sql`${db.$store.sql.jsonNumberAt(sql`${templates.engagement}`, 'engagement_rate')} desc`,
      templates.id,
    )
    .limit(sql.placeholder('limit'))
    .prepare(),
}));
