import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { workspaces } from './accounts.ts';

/**
 * One per workspace: one resource holding both field sets, the resource's (Set A) and the tool's (Set B). A workspace
 * without a row has the defaults: strings null, lists empty, tones 5.
 */
export const brandProfiles = sqliteTable('brand_profiles', {
  workspaceId: text('workspace_id')
    .primaryKey()
    .references(() => workspaces.id, { onDelete: 'cascade' }),
  // Set A
  voice: text('voice'),
  audience: text('audience'),
  topicsToLeanInto: text('topics_to_lean_into', { mode: 'json' }).$type<string[]>().notNull(),
  topicsToAvoid: text('topics_to_avoid', { mode: 'json' }).$type<string[]>().notNull(),
  styleNotes: text('style_notes'),
  examplePosts: text('example_posts', { mode: 'json' }).$type<string[]>().notNull(),
  // Set B
  brandName: text('brand_name'),
  industry: text('industry'),
  targetAudience: text('target_audience'),
  companyDescription: text('company_description'),
  websiteUrl: text('website_url'),
  toneFormality: integer('tone_formality').notNull(),
  toneHumor: integer('tone_humor').notNull(),
  toneEnergy: integer('tone_energy').notNull(),
  vocabulary: text('vocabulary', { mode: 'json' }).$type<string[]>().notNull(),
  forbiddenWords: text('forbidden_words', { mode: 'json' }).$type<string[]>().notNull(),
  primaryColor: text('primary_color'),
  secondaryColor: text('secondary_color'),
  accentColor: text('accent_color'),
  hashtagStrategy: text('hashtag_strategy'),
  updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
});
