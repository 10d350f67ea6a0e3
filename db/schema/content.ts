import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { workspaces } from './accounts.ts';

export const CONTENT_STATUSES = [
  'draft',
  'pending_review',
  'approved',
  'scheduled',
  'rejected',
  'archived',
  'publishing',
  'published',
] as const;
export type ContentStatus = (typeof CONTENT_STATUSES)[number];

export const CONTENT_TYPES = [
  'text_only',
  'single_image',
  'slideshow',
  'reel',
  'talking_head',
  'video_hook',
  'video_hook_demo',
  'carousel',
] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

export interface PlatformOverride {
  caption?: string;
  hashtags?: string[];
  media_urls?: string[];
  /** TikTok only. */
  privacy_level?: string;
  /** Bluesky only: the post's languages (canonical BCP 47 tags), in place of the workspace's default. */
  langs?: string[];
}

export interface PublishResult {
  platform: string;
  success: boolean;
  platform_post_id: string | null;
  /** The post's public URL; null when the platform has none or the post failed (absent on results stored before it existed). */
  url?: string | null;
  /** What the user should know about a published post (TikTok made it private, or sent it to the inbox). */
  notice?: string | null;
  error: string | null;
  attempted_at: string;
}

export const content = sqliteTable(
  'content',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    caption: text('caption').notNull(),
    hashtags: text('hashtags', { mode: 'json' }).$type<string[]>().notNull(),
    contentType: text('content_type', { enum: CONTENT_TYPES }).notNull(),
    targetPlatforms: text('target_platforms', { mode: 'json' }).$type<string[]>().notNull(),
    mediaUrls: text('media_urls', { mode: 'json' }).$type<string[]>().notNull(),
    topic: text('topic'),
    platformSpecific: text('platform_specific', { mode: 'json' }).$type<Record<string, PlatformOverride>>().notNull(),
    /** Alt text per attached media URL, in place of the media asset's own; `{}` when the item gives none. */
    mediaAltText: text('media_alt_text', { mode: 'json' }).$type<Record<string, string>>().notNull().default({}),
    aspectRatio: text('aspect_ratio'),
    scheduledFor: integer('scheduled_for', { mode: 'timestamp_ms' }),
    publishedAt: integer('published_at', { mode: 'timestamp_ms' }),
    status: text('status', { enum: CONTENT_STATUSES }).notNull(),
    publishQueued: integer('publish_queued', { mode: 'boolean' }).notNull().default(false),
    publishResults: text('publish_results', { mode: 'json' }).$type<PublishResult[]>().notNull(),
    campaignId: text('campaign_id'),
    /** The calendar slot (0-based) of its campaign a generated item fills; one item per slot. */
    campaignSlot: integer('campaign_slot'),
    /** The publishing run holding the item while `publishing`: its run, lease token and lease end. */
    publishRunId: text('publish_run_id'),
    leaseToken: text('lease_token'),
    leaseExpiresAt: integer('lease_expires_at', { mode: 'timestamp_ms' }),
    /** Who created it: a person, an API key, an OAuth client (not bound to a person) or the service itself (a campaign). */
    createdByType: text('created_by_type', { enum: ['user', 'api_key', 'oauth_client', 'service'] }),
    createdById: text('created_by_id'),
    /**
     * Who last approved it (moved it to approved or scheduled, or published it): a person, a key, a
     * client or the service, as created_by. Null while it is not approved, and for items approved
     * before it was recorded. Internal: the publishing run checks it against the author.
     */
    approvedByType: text('approved_by_type', { enum: ['user', 'api_key', 'oauth_client', 'service'] }),
    approvedById: text('approved_by_id'),
    /** Why it was last rejected; cleared when it is submitted or approved again. */
    reviewNote: text('review_note'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    // Newest-first pages: (created_at, id) is the cursor pair, so every list query walks one of these.
    index('content_workspace_created_idx').on(t.workspaceId, t.createdAt, t.id),
    index('content_workspace_status_created_idx').on(t.workspaceId, t.status, t.createdAt, t.id),
    // The calendar and scheduled_from/scheduled_to: items by their time in a workspace.
    index('content_workspace_scheduled_idx').on(t.workspaceId, t.scheduledFor),
    index('content_workspace_type_created_idx').on(t.workspaceId, t.contentType, t.createdAt, t.id),
    // Partial: only published items are counted against the monthly quota, and a new item adds no entry.
    index('content_workspace_published_idx')
      .on(t.workspaceId, t.publishedAt)
      .where(sql`${t.publishedAt} is not null`),
    // The publishing run's queue: queued items by the time they come due (no scheduled_for = now).
    // Partial, so the queue index holds only waiting items; the claim query repeats this exact WHERE.
    index('content_publish_due_idx')
      .on(sql`coalesce(${t.scheduledFor}, 0)`, t.id)
      .where(sql`${t.publishQueued} = 1 and ${t.status} in ('approved', 'scheduled')`),
    // Items whose holder may have died: reclaimed once the lease runs out.
    index('content_publish_lease_idx')
      .on(t.leaseExpiresAt)
      .where(sql`${t.status} = 'publishing'`),
    // A campaign's items by slot: no slot is generated twice, even by two runs or after a crash; and
    // deleting a campaign finds its items here.
    uniqueIndex('content_campaign_slot_idx')
      .on(t.campaignId, t.campaignSlot)
      .where(sql`${t.campaignId} is not null`),
  ],
);
