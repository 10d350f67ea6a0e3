import { integer, json, pgTable, text } from 'drizzle-orm/pg-core';
import { workspaces } from './accounts.ts';
import { epochMs } from './columns.ts';

export const brandProfiles = pgTable('brand_profiles', {
  workspaceId: text('workspace_id')
    .primaryKey()
    .references(() => workspaces.id, { onDelete: 'cascade' }),
  voice: text('voice'),
  audience: text('audience'),
  topicsToLeanInto: json('topics_to_lean_into').$type<string[]>().notNull(),
  topicsToAvoid: json('topics_to_avoid').$type<string[]>().notNull(),
  styleNotes: text('style_notes'),
  examplePosts: json('example_posts').$type<string[]>().notNull(),
  brandName: text('brand_name'),
  industry: text('industry'),
  targetAudience: text('target_audience'),
  companyDescription: text('company_description'),
  websiteUrl: text('website_url'),
  toneFormality: integer('tone_formality').notNull(),
  toneHumor: integer('tone_humor').notNull(),
  toneEnergy: integer('tone_energy').notNull(),
  vocabulary: json('vocabulary').$type<string[]>().notNull(),
  forbiddenWords: json('forbidden_words').$type<string[]>().notNull(),
  primaryColor: text('primary_color'),
  secondaryColor: text('secondary_color'),
  accentColor: text('accent_color'),
  hashtagStrategy: text('hashtag_strategy'),
  updatedAt: epochMs('updated_at').notNull(),
});
