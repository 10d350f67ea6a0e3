import type { z } from 'zod';
import type { socialAccounts } from '../../../db/schema/index.ts';
import type { SocialAccountResource as SocialAccountResourceSchema } from './schemas.ts';

/** The resource as its schema describes it: the serializer must produce exactly this. */
export type SocialAccountResource = z.output<typeof SocialAccountResourceSchema>;

export type SocialAccountRow = typeof socialAccounts.$inferSelect;

const RECONNECT_NOTICE_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * When the user must reconnect an account whose token cannot be refreshed (a live account holding no
 * refresh token, such as LinkedIn's 60-day tokens): 7 days before the token expires, shown from that
 * moment on (also past the expiry). Null for sandbox accounts, tokens that are refreshed or never
 * expire, and accounts that are not active (their status already asks for a reconnect).
 */
export function reconnectBy(row: SocialAccountRow, now: Date): Date | null {
  if (row.mode !== 'live' || row.status !== 'active') return null;
  if (row.refreshTokenEncrypted !== null || row.tokenExpiresAt === null) return null;
  const by = new Date(row.tokenExpiresAt.getTime() - RECONNECT_NOTICE_MS);
  return now.getTime() >= by.getTime() ? by : null;
}

/**
 * The social account resource as every door returns it. Picks its fields one by one: the stored
 * tokens and the refresh lease never leave the core.
 */
export function toSocialAccountResource(row: SocialAccountRow, now: Date): SocialAccountResource {
  return {
    id: row.id,
    object: 'social_account' as const,
    platform: row.platform,
    platform_user_id: row.platformUserId,
    username: row.username,
    display_name: row.displayName,
    mode: row.mode,
    status: row.status,
    is_active: row.isActive,
    scopes: row.scopes,
    token_expires_at: row.tokenExpiresAt?.toISOString() ?? null,
    reconnect_by: reconnectBy(row, now)?.toISOString() ?? null,
    profile_url: row.profileUrl,
    connected_at: row.connectedAt.toISOString(),
    created_at: row.createdAt.toISOString(),
  };
}
