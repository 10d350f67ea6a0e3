import type { z } from 'zod';
import type { socialAccounts } from '../../../db/schema/index.ts';
import type { SocialAccountResource as SocialAccountResourceSchema } from './schemas.ts';

/** The resource as its schema describes it: the serializer must produce exactly this. */
export type SocialAccountResource = z.output<typeof SocialAccountResourceSchema>;

export type SocialAccountRow = typeof socialAccounts.$inferSelect;

/** The social account resource as every door returns it. */
export function toSocialAccountResource(row: SocialAccountRow): SocialAccountResource {
  return {
    id: row.id,
    object: 'social_account' as const,
    platform: row.platform,
    platform_user_id: row.platformUserId,
    username: row.username,
    display_name: row.displayName,
    is_active: row.isActive,
    connected_at: row.connectedAt.toISOString(),
    created_at: row.createdAt.toISOString(),
  };
}
