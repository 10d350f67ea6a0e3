import { z } from 'zod';
import { CAMPAIGN_STATUSES, CONTENT_MIX_KEYS, type ContentMix } from '../../../db/schema/index.ts';
import { dateTimeOutput, scheduleTimeInput } from '../dates.ts';
import { paginationInput } from '../pagination.ts';

/**
 * Content mix weights are non-negative numbers, normalised (no fixed sum); an unknown
 * key, or weights that are all zero, is refused. An empty mix is allowed: every post is then a
 * single image.
 */
const contentMix = z
  .record(
    z.string(),
    z.number({ error: 'Each weight is a number, 0 or more.' }).finite().nonnegative('Weights are 0 or more.'),
  )
  .superRefine((mix, ctx) => {
    for (const key of Object.keys(mix)) {
      if (!(CONTENT_MIX_KEYS as readonly string[]).includes(key)) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `Unknown content_mix key "${key}"; the keys are the engine's camelCase names: ${CONTENT_MIX_KEYS.join(', ')}.`,
        });
      }
    }
    const weights = Object.values(mix);
    if (weights.length > 0 && weights.every((weight) => weight === 0)) {
      ctx.addIssue({ code: 'custom', message: 'At least one weight must be above 0; send {} for single images only.' });
    }
  })
  .transform((mix) => mix as ContentMix)
  .describe(
    `Content type weights keyed by engine name (${CONTENT_MIX_KEYS.join(', ')}), such as {"carousel": 2, "ugc": 1}; ` +
      '{} means single images only.',
  );

/** The fields create and PATCH share, with their limits. */
const campaignFields = {
  name: z.string().trim().min(1).max(160).describe('The campaign name.'),
  description: z.string().max(1000).nullable().describe('Up to 1000 characters.'),
  posts_per_day: z.int().min(1).max(50).describe('Posts per day; default 3.'),
  campaign_length_days: z.int().min(1).max(365).describe('Length in days; default 7.'),
  start_date: scheduleTimeInput.describe(
    'ISO 8601 date-time with an offset; default tomorrow (the next UTC midnight). Launching sets it to now.',
  ),
  content_mix: contentMix,
};

export const CreateCampaignInput = z.object({
  name: campaignFields.name,
  description: campaignFields.description.optional(),
  posts_per_day: campaignFields.posts_per_day.default(3),
  campaign_length_days: campaignFields.campaign_length_days.default(7),
  start_date: campaignFields.start_date.optional(),
  content_mix: campaignFields.content_mix.default({}),
});

const campaignId = z.string().min(1).describe('The campaign id.');

export const CampaignIdInput = z.object({ id: campaignId });

export const UpdateCampaignInput = z.object({
  id: campaignId,
  name: campaignFields.name.optional(),
  description: campaignFields.description.optional(),
  status: z
    .enum(CAMPAIGN_STATUSES)
    .optional()
    .describe(
      'Sets the status directly, without the launch check and without starting generation; paused, completed and archived stop generation.',
    ),
  posts_per_day: campaignFields.posts_per_day.optional(),
  campaign_length_days: campaignFields.campaign_length_days.optional(),
  start_date: campaignFields.start_date.optional(),
  content_mix: campaignFields.content_mix.optional(),
});

/** Newest first; no status filter (a client filters the page itself). */
export const ListCampaignsInput = z.object({ ...paginationInput });

/** The campaign resource as every door answers it. */
export const CampaignResource = z
  .object({
    id: z.uuid(),
    object: z.literal('campaign'),
    name: z.string(),
    description: z.string().nullable(),
    status: z
      .enum(CAMPAIGN_STATUSES)
      .describe(
        'An active campaign becomes completed by itself (campaign.completed) once every post is generated and each is published, rejected, deleted or failed to publish.',
      ),
    content_mix: z
      .partialRecord(z.enum(CONTENT_MIX_KEYS), z.number())
      .describe('Content type weights keyed by engine name.'),
    posts_per_day: z.int(),
    campaign_length_days: z.int(),
    start_date: dateTimeOutput,
    total_posts: z.int().describe('posts_per_day x campaign_length_days at creation; not recomputed.'),
    generated_posts: z.int(),
    created_at: dateTimeOutput,
    updated_at: dateTimeOutput,
  })
  .meta({ id: 'Campaign' });
