import type { z } from 'zod';
import type { brandProfiles } from '../../../db/schema/index.ts';
import { DEFAULT_TONE, type BrandProfileResource as BrandProfileResourceSchema } from './schemas.ts';

/** The resource as its schema describes it: the serializer must produce exactly this. */
export type BrandProfileResource = z.output<typeof BrandProfileResourceSchema>;

export type BrandProfileRow = typeof brandProfiles.$inferSelect;

/**
 * The profile of a workspace that never set one: strings null, lists
 * empty, tones at the midpoint. Also the base a first PATCH is written over.
 */
export function defaultBrandProfileRow(workspaceId: string, updatedAt: Date): BrandProfileRow {
  return {
    workspaceId,
    voice: null,
    audience: null,
    topicsToLeanInto: [],
    topicsToAvoid: [],
    styleNotes: null,
    examplePosts: [],
    brandName: null,
    industry: null,
    targetAudience: null,
    companyDescription: null,
    websiteUrl: null,
    toneFormality: DEFAULT_TONE,
    toneHumor: DEFAULT_TONE,
    toneEnergy: DEFAULT_TONE,
    vocabulary: [],
    forbiddenWords: [],
    primaryColor: null,
    secondaryColor: null,
    accentColor: null,
    hashtagStrategy: null,
    updatedAt,
  };
}

/** The brand profile resource: both field sets (Set A and Set B) in one object, as GET and PATCH answer it. */
export function toBrandProfileResource(row: BrandProfileRow): BrandProfileResource {
  return {
    object: 'brand_profile' as const,
    workspace_id: row.workspaceId,
    voice: row.voice,
    audience: row.audience,
    topics_to_lean_into: row.topicsToLeanInto,
    topics_to_avoid: row.topicsToAvoid,
    style_notes: row.styleNotes,
    example_posts: row.examplePosts,
    brand_name: row.brandName,
    industry: row.industry,
    target_audience: row.targetAudience,
    company_description: row.companyDescription,
    website_url: row.websiteUrl,
    tone_formality: row.toneFormality,
    tone_humor: row.toneHumor,
    tone_energy: row.toneEnergy,
    vocabulary: row.vocabulary,
    forbidden_words: row.forbiddenWords,
    primary_color: row.primaryColor,
    secondary_color: row.secondaryColor,
    accent_color: row.accentColor,
    hashtag_strategy: row.hashtagStrategy,
    updated_at: row.updatedAt.toISOString(),
  };
}
