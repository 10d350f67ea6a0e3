import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { CONTENT_TYPES } from './content.ts';
import type { Platform } from './publishing.ts';

export interface TemplateStructure {
  hook: string;
  body: string;
  call_to_action: string;
}

export interface TemplateEngagement {
  views: number;
  likes: number;
  comments: number;
  shares: number;
  saves: number;
  engagement_rate: number;
}

/** The shared, read-only templates library: the same for every workspace, seeded from a data file. */
export const templates = sqliteTable(
  'templates',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    description: text('description').notNull(),
    sourcePlatform: text('source_platform').$type<Platform>().notNull(),
    contentType: text('content_type', { enum: CONTENT_TYPES }).notNull(),
    structure: text('structure', { mode: 'json' }).$type<TemplateStructure>().notNull(),
    exampleCaption: text('example_caption').notNull(),
    engagement: text('engagement', { mode: 'json' }).$type<TemplateEngagement>().notNull(),
    niches: text('niches', { mode: 'json' }).$type<string[]>().notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    index('templates_created_idx').on(t.createdAt, t.id),
    index('templates_platform_created_idx').on(t.sourcePlatform, t.createdAt, t.id),
    index('templates_type_created_idx').on(t.contentType, t.createdAt, t.id),
  ],
);
