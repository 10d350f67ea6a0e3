import type { z } from 'zod';
import type { content } from '../../../db/schema/index.ts';
import type { ContentResource as ContentResourceSchema } from './schemas.ts';

/** The resource as its schema describes it: the serializer must produce exactly this. */
export type ContentResource = z.output<typeof ContentResourceSchema>;

export type ContentRow = typeof content.$inferSelect;

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

/** The content resource as every door returns it: the contract's fields plus publish_queued and publish_results. */
export function toContentResource(row: ContentRow): ContentResource {
  // An item never changed since its creation has one instant twice: formatted once (~0.5 µs each,
  // on every generated post's event).
  const createdAt = row.createdAt.toISOString();
  const updatedAt = row.updatedAt.getTime() === row.createdAt.getTime() ? createdAt : row.updatedAt.toISOString();
  return {
    id: row.id,
    object: 'content' as const,
    caption: row.caption,
    hashtags: row.hashtags,
    content_type: row.contentType,
    target_platforms: row.targetPlatforms,
    media_urls: row.mediaUrls,
    media_alt_text: row.mediaAltText,
    topic: row.topic,
    platform_specific: row.platformSpecific,
    aspect_ratio: row.aspectRatio,
    scheduled_for: iso(row.scheduledFor),
    published_at: iso(row.publishedAt),
    status: row.status,
    campaign_id: row.campaignId,
    publish_queued: row.publishQueued,
    publish_results: row.publishResults.map((result) => ({
      ...result,
      url: result.url ?? null,
      notice: result.notice ?? null,
    })),
    created_by: row.createdByType === null ? null : { type: row.createdByType, id: row.createdById },
    review_note: row.reviewNote,
    created_at: createdAt,
    updated_at: updatedAt,
  };
}

/** The stub several events carry instead of the full item. */
export const contentStub = (row: Pick<ContentRow, 'id'>) => ({ id: row.id, object: 'content' as const });
