import { z } from 'zod';
import { SOCIAL_ACCOUNT_MODES, SOCIAL_ACCOUNT_STATUSES } from '../../../db/schema/index.ts';
import { dateTimeOutput } from '../dates.ts';
import { OAUTH_PLATFORMS, PLATFORMS } from '../platforms/registry.ts';

/** The social account resource. */
export const SocialAccountResource = z
  .object({
    id: z.uuid(),
    object: z.literal('social_account'),
    platform: z.enum(PLATFORMS),
    platform_user_id: z.string(),
    username: z.string(),
    display_name: z.string().nullable(),
    mode: z
      .enum(SOCIAL_ACCOUNT_MODES)
      .describe(
        'sandbox: connected by the admin CLI, publishes through the sandbox connector; live: connected over OAuth or with credentials, ' +
          'publishes to the platform for real.',
      ),
    status: z
      .enum(SOCIAL_ACCOUNT_STATUSES)
      .describe(
        'active: usable; needs_reconnect: the platform no longer accepts its tokens, connect it again; ' +
          'disconnected: deauthorized by the platform or disconnected in the dashboard.',
      ),
    is_active: z
      .boolean()
      .describe('True exactly when status is active; reconnect an inactive account to publish again.'),
    scopes: z.array(z.string()).describe('The scopes the platform granted; empty for sandbox accounts.'),
    token_expires_at: dateTimeOutput
      .nullable()
      .describe('When the access token expires; null for sandbox accounts and tokens without an expiry.'),
    reconnect_by: dateTimeOutput
      .nullable()
      .describe(
        'Set on an active live account whose token cannot be refreshed once its expiry is 7 days away or less: ' +
          'token_expires_at minus 7 days. Reconnect the account by then to keep publishing. Null otherwise.',
      ),
    profile_url: z.string().nullable().describe("The account's public profile page, when known."),
    connected_at: dateTimeOutput,
    created_at: dateTimeOutput,
  })
  .meta({ id: 'SocialAccount' });

/** The answer of POST /social-accounts/connect: where to send the user to consent. */
export const SocialAccountConnect = z
  .object({
    object: z.literal('social_account_connect'),
    platform: z.enum(OAUTH_PLATFORMS),
    authorize_url: z
      .url()
      .describe(
        "The platform's consent page. Open it in the user's browser; the platform sends the user back to " +
          '/callbacks/{platform}/oauth, which connects the account. Works once.',
      ),
    expires_at: dateTimeOutput.describe('The URL must be used by then (15 minutes after it was made).'),
  })
  .meta({ id: 'SocialAccountConnect' });

/**
 * What POST /social-accounts/connect answers: the consent URL (OAuth platforms), or the connected
 * account itself (platforms that connect with credentials).
 */
export const SocialAccountConnected = z.union([SocialAccountConnect, SocialAccountResource]);

/** The answers of the platform operators' callbacks (Meta's format; see deauthorization.ts). */
export const DeauthorizeAnswer = z.object({ success: z.literal(true) });

export const DataDeletionAnswer = z.object({
  url: z.url().describe('Where the user can check the deletion.'),
  confirmation_code: z.string(),
});

export const DataDeletionStatus = z
  .object({
    confirmation_code: z.string(),
    platform: z.string(),
    status: z.literal('completed'),
    accounts_removed: z.int().min(0),
    completed_at: dateTimeOutput,
  })
  .meta({ id: 'DataDeletionStatus' });
