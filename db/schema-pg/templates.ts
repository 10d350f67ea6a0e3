import { index, json, pgTable, text } from 'drizzle-orm/pg-core';
import { CONTENT_TYPES } from '../schema/content.ts';
import type { Platform } from '../schema/publishing.ts';
import type { TemplateEngagement, TemplateStructure } from '../schema/templates.ts';
import { epochMs } from './columns.ts';

export const templates = pgTable(
  'templates',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    description: text('description').notNull(),
    sourcePlatform: text('source_platform').$type<Platform>().notNull(),
    contentType: text('content_type', { enum: CONTENT_TYPES }).notNull(),
    structure: json('structure').$type<TemplateStructure>().notNull(),
    exampleCaption: text('example_caption').notNull(),
    engagement: json('engagement').$type<TemplateEngagement>().notNull(),
    niches: json('niches').$type<string[]>().notNull(),
    createdAt: epochMs('created_at').notNull(),
  },
  (t) => [
    index('templates_created_idx').on(t.createdAt, t.id),
    index('templates_platform_created_idx').on(t.sourcePlatform, t.createdAt, t.id),
    index('templates_type_created_idx').on(t.contentType, t.createdAt, t.id),
  ],
);
