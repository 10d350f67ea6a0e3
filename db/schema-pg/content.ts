import { sql } from 'drizzle-orm';
import { boolean, index, integer, json, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { CONTENT_STATUSES, CONTENT_TYPES, type PlatformOverride, type PublishResult } from '../schema/content.ts';
import { workspaces } from './accounts.ts';
import { epochMs } from './columns.ts';

export const content = pgTable(
  'content',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    caption: text('caption').notNull(),
    hashtags: json('hashtags').$type<string[]>().notNull(),
    contentType: text('content_type', { enum: CONTENT_TYPES }).notNull(),
    targetPlatforms: json('target_platforms').$type<string[]>().notNull(),
    mediaUrls: json('media_urls').$type<string[]>().notNull(),
    topic: text('topic'),
    platformSpecific: json('platform_specific').$type<Record<string, PlatformOverride>>().notNull(),
    mediaAltText: json('media_alt_text').$type<Record<string, string>>().notNull().default({}),
    aspectRatio: text('aspect_ratio'),
    scheduledFor: epochMs('scheduled_for'),
    publishedAt: epochMs('published_at'),
    status: text('status', { enum: CONTENT_STATUSES }).notNull(),
    publishQueued: boolean('publish_queued').notNull().default(false),
    publishResults: json('publish_results').$type<PublishResult[]>().notNull(),
    campaignId: text('campaign_id'),
    campaignSlot: integer('campaign_slot'),
    publishRunId: text('publish_run_id'),
    leaseToken: text('lease_token'),
    leaseExpiresAt: epochMs('lease_expires_at'),
    createdByType: text('created_by_type', { enum: ['user', 'api_key', 'oauth_client', 'service'] }),
    createdById: text('created_by_id'),
    approvedByType: text('approved_by_type', { enum: ['user', 'api_key', 'oauth_client', 'service'] }),
    approvedById: text('approved_by_id'),
    reviewNote: text('review_note'),
    createdAt: epochMs('created_at').notNull(),
    updatedAt: epochMs('updated_at').notNull(),
  },
  (t) => [
    index('content_workspace_created_idx').on(t.workspaceId, t.createdAt, t.id),
    index('content_workspace_status_created_idx').on(t.workspaceId, t.status, t.createdAt, t.id),
    index('content_workspace_scheduled_idx').on(t.workspaceId, t.scheduledFor),
    index('content_workspace_type_created_idx').on(t.workspaceId, t.contentType, t.createdAt, t.id),
    index('content_workspace_published_idx')
      .on(t.workspaceId, t.publishedAt)
      .where(sql`${t.publishedAt} is not null`),
    // SQLite's `publish_queued = 1` is a boolean here; a claim query must repeat this WHERE to use the index.
    index('content_publish_due_idx')
      .on(sql`coalesce(${t.scheduledFor}, 0)`, t.id)
      .where(sql`${t.publishQueued} and ${t.status} in ('approved', 'scheduled')`),
    index('content_publish_lease_idx')
      .on(t.leaseExpiresAt)
      .where(sql`${t.status} = 'publishing'`),
    uniqueIndex('content_campaign_slot_idx')
      .on(t.campaignId, t.campaignSlot)
      .where(sql`${t.campaignId} is not null`),
  ],
);
