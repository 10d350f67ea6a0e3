import { sql } from 'drizzle-orm';
import { index, integer, json, pgTable, text } from 'drizzle-orm/pg-core';
import { CAMPAIGN_STATUSES, type ContentMix } from '../schema/campaigns.ts';
import { workspaces } from './accounts.ts';
import { epochMs } from './columns.ts';

export const campaigns = pgTable(
  'campaigns',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    status: text('status', { enum: CAMPAIGN_STATUSES }).notNull(),
    contentMix: json('content_mix').$type<ContentMix>().notNull(),
    postsPerDay: integer('posts_per_day').notNull(),
    campaignLengthDays: integer('campaign_length_days').notNull(),
    startDate: epochMs('start_date').notNull(),
    totalPosts: integer('total_posts').notNull(),
    generatedPosts: integer('generated_posts').notNull(),
    generationDueAt: epochMs('generation_due_at'),
    generationLeaseToken: text('generation_lease_token'),
    createdAt: epochMs('created_at').notNull(),
    updatedAt: epochMs('updated_at').notNull(),
  },
  (t) => [
    index('campaigns_workspace_created_idx').on(t.workspaceId, t.createdAt, t.id),
    index('campaigns_generation_due_idx')
      .on(t.generationDueAt)
      .where(sql`${t.generationDueAt} is not null`),
  ],
);
