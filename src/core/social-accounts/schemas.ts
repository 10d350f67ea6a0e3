import { z } from 'zod';
import { PLATFORMS } from '../../../db/schema/index.ts';
import { dateTimeOutput } from '../dates.ts';

/** The social account resource. */
export const SocialAccountResource = z
  .object({
    id: z.uuid(),
    object: z.literal('social_account'),
    platform: z.enum(PLATFORMS),
    platform_user_id: z.string(),
    username: z.string(),
    display_name: z.string().nullable(),
    is_active: z.boolean().describe('False once the platform deauthorized the app; reconnect to publish again.'),
    connected_at: dateTimeOutput,
    created_at: dateTimeOutput,
  })
  .meta({ id: 'SocialAccount' });

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
