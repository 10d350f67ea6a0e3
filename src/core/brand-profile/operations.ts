import { eq, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { preparedStatements, type Db } from '../../../db/client.ts';
import { brandProfiles, workspaces } from '../../../db/schema/index.ts';
import { notFound, ServiceError, validationError } from '../errors.ts';
import { defineOperation } from '../operation.ts';
import {
  BrandProfileResource as BrandProfileResourceSchema,
  GetBrandProfileInput,
  UpdateBrandProfileInput,
  type BrandProfileChanges,
} from './schemas.ts';
import {
  defaultBrandProfileRow,
  toBrandProfileResource,
  type BrandProfileResource,
  type BrandProfileRow,
} from './serialize.ts';

/**
 * The brand profile of a workspace, with the defaults where it never set one; what GET answers and
 * what the campaign generator reads before every batch. A workspace without a row has never
 * changed its profile, so its `updated_at` is the moment the workspace (and with it the default
 * profile) came to be: its `created_at`.
 */
export async function brandProfileOf(db: Db, workspaceId: string): Promise<BrandProfileResource> {
  const row = await statements(db).byWorkspace.get({ workspaceId });
  if (row) return toBrandProfileResource(row);
  const workspace = await statements(db).workspaceCreatedAt.get({ workspaceId });
  if (!workspace) throw notFound('workspace');
  return toBrandProfileResource(defaultBrandProfileRow(workspaceId, workspace.createdAt));
}

const statements = preparedStatements((db) => ({
  // Prepared: campaign generation reads the profile before every batch.
  byWorkspace: db
    .select()
    .from(brandProfiles)
    .where(eq(brandProfiles.workspaceId, sql.placeholder('workspaceId')))
    .prepare(),
  workspaceCreatedAt: db
    .select({ createdAt: workspaces.createdAt })
    .from(workspaces)
    .where(eq(workspaces.id, sql.placeholder('workspaceId')))
    .prepare(),
}));

/**
 * Brand profile errors: a value of the wrong kind is 400 `invalid_body`; a value of the
 * right kind that breaks a length, count or range limit is 422 `unprocessable_entity`. Only
 * `too_big` and `too_small` are limits. A malformed URL or colour is the wrong kind of string
 * (zod's `invalid_format`), so it is 400 like any other type error. When a body has both kinds,
 * the type error wins (400): the request was not understood, so its limits are beside the point.
 * Either way `details` lists every issue found.
 */
export function brandProfileInputError(error: z.ZodError): ServiceError {
  const limitsOnly = error.issues.every((issue) => issue.code === 'too_big' || issue.code === 'too_small');
  return validationError(error, limitsOnly ? 'unprocessable_entity' : 'invalid_body');
}

/** The columns a PATCH writes; a field left out of the body stays undefined and is not written. */
function columnsOf(changes: BrandProfileChanges): Partial<BrandProfileRow> {
  const columns: Partial<BrandProfileRow> = {
    voice: changes.voice,
    audience: changes.audience,
    topicsToLeanInto: changes.topics_to_lean_into,
    topicsToAvoid: changes.topics_to_avoid,
    styleNotes: changes.style_notes,
    examplePosts: changes.example_posts,
    brandName: changes.brand_name,
    industry: changes.industry,
    targetAudience: changes.target_audience,
    companyDescription: changes.company_description,
    websiteUrl: changes.website_url,
    toneFormality: changes.tone_formality,
    toneHumor: changes.tone_humor,
    toneEnergy: changes.tone_energy,
    vocabulary: changes.vocabulary,
    forbiddenWords: changes.forbidden_words,
    primaryColor: changes.primary_color,
    secondaryColor: changes.secondary_color,
    accentColor: changes.accent_color,
    hashtagStrategy: changes.hashtag_strategy,
  };
  // Spread over the defaults, an undefined would overwrite them; only fields sent are kept.
  return Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined));
}

/** GET /brand-profile (and /brand_profile): both field sets, defaults where unset. */
export const getBrandProfile = defineOperation({
  name: 'getBrandProfile',
  buckets: ['read'],
  scope: 'read',
  input: GetBrandProfileInput,
  output: BrandProfileResourceSchema,
  async run({ db, workspace }): Promise<BrandProfileResource> {
    return brandProfileOf(db, workspace.id);
  },
});

/**
 * PATCH /brand-profile (and /brand_profile): any subset of both field sets. The first PATCH writes
 * the row (defaults plus the changes), later ones change only the fields sent; one upsert either way,
 * so two first PATCHes racing cannot both insert.
 */
export const updateBrandProfile = defineOperation({
  name: 'updateBrandProfile',
  buckets: ['write'],
  scope: 'write',
  input: UpdateBrandProfileInput,
  output: BrandProfileResourceSchema,
  errors: {
    no_updates: 'the call carries no recognised field',
    invalid_body: 'a value of the wrong type or format; details.fieldErrors names the fields',
    unprocessable_entity: 'a value over a length, count or range limit',
  },
  invalidInput: brandProfileInputError,
  async run(ctx, input): Promise<BrandProfileResource> {
    const changes = columnsOf(input);
    if (Object.keys(changes).length === 0) {
      throw new ServiceError(
        'no_updates',
        `The body has no updatable field. Send at least one of ${Object.keys(UpdateBrandProfileInput.shape).join(', ')}.`,
      );
    }
    const now = ctx.clock.now();
    const row = await ctx.db
      .insert(brandProfiles)
      .values({ ...defaultBrandProfileRow(ctx.workspace.id, now), ...changes, updatedAt: now })
      .onConflictDoUpdate({ target: brandProfiles.workspaceId, set: { ...changes, updatedAt: now } })
      .returning()
      .get();
    return toBrandProfileResource(row);
  },
});
