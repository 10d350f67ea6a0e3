import type { z } from 'zod';
import type { campaigns } from '../../../db/schema/index.ts';
import type { CampaignResource as CampaignResourceSchema } from './schemas.ts';

/** The resource as its schema describes it: the serializer must produce exactly this. */
export type CampaignResource = z.output<typeof CampaignResourceSchema>;

export type CampaignRow = typeof campaigns.$inferSelect;

/** The campaign resource as every door answers it. */
export function toCampaignResource(row: CampaignRow): CampaignResource {
  return {
    id: row.id,
    object: 'campaign' as const,
    name: row.name,
    description: row.description,
    status: row.status,
    content_mix: row.contentMix,
    posts_per_day: row.postsPerDay,
    campaign_length_days: row.campaignLengthDays,
    start_date: row.startDate.toISOString(),
    total_posts: row.totalPosts,
    generated_posts: row.generatedPosts,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
