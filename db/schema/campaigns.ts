import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { workspaces } from './accounts.ts';

export const CAMPAIGN_STATUSES = ['draft', 'active', 'paused', 'completed', 'archived'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/** `content_mix` keys: the engine's camelCase names, not the snake_case content types. */
export const CONTENT_MIX_KEYS = [
  'ugc',
  'slideshow',
  'talkingHead',
  'videoHookDemo',
  'greenScreen',
  'videoHook',
  'carousel',
] as const;
export type ContentMixKey = (typeof CONTENT_MIX_KEYS)[number];
export type ContentMix = Partial<Record<ContentMixKey, number>>;

export const campaigns = sqliteTable(
  'campaigns',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    status: text('status', { enum: CAMPAIGN_STATUSES }).notNull(),
    contentMix: text('content_mix', { mode: 'json' }).$type<ContentMix>().notNull(),
    postsPerDay: integer('posts_per_day').notNull(),
    campaignLengthDays: integer('campaign_length_days').notNull(),
    startDate: integer('start_date', { mode: 'timestamp_ms' }).notNull(),
    /** posts_per_day x campaign_length_days when created; not recomputed when a PATCH changes either. */
    totalPosts: integer('total_posts').notNull(),
    generatedPosts: integer('generated_posts').notNull(),
    /**
     * When the generation run should next pick the campaign up: set by a launch, pushed one lease
     * ahead while a run holds it (so a run that dies is picked up again once its lease runs out),
     * null when there is nothing to generate (done, out of credits, or stopped).
     */
    generationDueAt: integer('generation_due_at', { mode: 'timestamp_ms' }),
    generationLeaseToken: text('generation_lease_token'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  // Newest-first pages by the (created_at, id) cursor pair.
  (t) => [
    index('campaigns_workspace_created_idx').on(t.workspaceId, t.createdAt, t.id),
    index('campaigns_generation_due_idx')
      .on(t.generationDueAt)
      .where(sql`${t.generationDueAt} is not null`),
  ],
);
