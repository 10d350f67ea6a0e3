import { z } from 'zod';
import { PLAN_NAMES } from '../../../db/plans.ts';
import { dateTimeOutput } from '../dates.ts';
import { languageTag } from '../languages.ts';
import { PLAN_STATUSES } from './workspaces.ts';

export const UpdateAccountInput = z.object({
  timezone: z.string().max(64).optional().describe('An IANA time zone name, such as Europe/Paris or America/New_York.'),
  approver_must_differ: z
    .boolean()
    .optional()
    .describe('Whether a person may approve only items someone else created.'),
  default_language: languageTag
    .nullable()
    .optional()
    .describe(
      "The language posts are written in, as a BCP 47 tag such as en or pt-BR (sent to Bluesky as the post's langs " +
        'unless an item sets platform_specific.bluesky.langs); null clears it.',
    ),
});

/** GET /api/v1/me: the contract's account fields, plus workspace_id, name and usage of our own. */
export const AccountResource = z
  .object({
    object: z.literal('account'),
    workspace_id: z.uuid(),
    org_id: z.string().regex(/^org_/),
    name: z.string(),
    plan: z.enum(PLAN_NAMES),
    plan_status: z.enum(PLAN_STATUSES),
    is_active: z.boolean().describe('True when plan_status is active or trialing.'),
    is_trialing: z.boolean(),
    features: z.object({
      posts_per_month: z.int(),
      platforms_limit: z.int(),
      api_access: z.boolean(),
      monthly_ai_credits: z.int(),
      analytics_history_days: z.int(),
    }),
    usage: z
      .object({
        posts_published: z.int().min(0),
        ai_credits_used: z.int().min(0),
        period_start: dateTimeOutput,
        period_end: dateTimeOutput,
        storage_used_bytes: z
          .int()
          .min(0)
          .describe("Bytes of the media library's files now (not monthly: deleting media frees them)."),
        storage_limit_bytes: z
          .int()
          .min(0)
          .describe("The plan's media storage quota; an upload that would pass it is 403 quota_exceeded."),
      })
      .describe('Posts and AI credits count this UTC calendar month; storage is what the library holds now.'),
    timezone: z
      .string()
      .describe("The workspace's IANA time zone, in which the dashboard shows times; UTC unless set."),
    approver_must_differ: z
      .boolean()
      .describe('When true, a person cannot approve an item they created (API keys are not people).'),
    default_language: z
      .string()
      .nullable()
      .describe(
        'The BCP 47 tag of the language posts are written in, unless an item says otherwise; null when not set.',
      ),
  })
  .meta({ id: 'Account' });
