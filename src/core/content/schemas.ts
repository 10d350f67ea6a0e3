import { z } from 'zod';
import {
  CONTENT_STATUSES,
  CONTENT_TYPES,
  SOCIAL_ACCOUNT_MODES,
  SOCIAL_ACCOUNT_STATUSES,
} from '../../../db/schema/index.ts';
import { PLATFORMS } from '../platforms/registry.ts';
import { dateTimeOutput, scheduleTimeInput } from '../dates.ts';
import { languageTag } from '../languages.ts';
import { altText, MAX_ALT_TEXT_LENGTH } from '../media/schemas.ts';

/** Statuses a client may set on create; a PATCH may also set `rejected` (kept aside, not deleted). */
export const CREATE_STATUSES = ['draft', 'pending_review', 'approved', 'scheduled'] as const;
export const UPDATE_STATUSES = [...CREATE_STATUSES, 'rejected'] as const;

export const platformId = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,31}$/, `Platform ids are lowercase, for example ${PLATFORMS.join(', ')}.`);

/** A content item's limits, which every writer of items (a client, a generator) keeps to. */
export const MAX_CAPTION_LENGTH = 4000;
export const MAX_TOPIC_LENGTH = 280;
export const MAX_HASHTAG_LENGTH = 100;
export const MAX_HASHTAGS = 50;

const hashtag = z
  .string()
  .transform((tag) => tag.replace(/^#/, ''))
  .pipe(
    z
      .string()
      .min(1, 'A hashtag needs text after the #.')
      .max(MAX_HASHTAG_LENGTH)
      .regex(/^\S+$/, 'A hashtag has no whitespace.'),
  );
const hashtags = z.array(hashtag).max(MAX_HASHTAGS).describe('Hashtags without the leading #.');

const mediaUrls = z
  .array(z.url({ protocol: /^https?$/, error: 'Media must be an absolute http(s) URL.' }))
  .max(20)
  .describe('Absolute http(s) URLs of the media, in order: media is attached by URL.');

const captionText = z.string().min(1).max(MAX_CAPTION_LENGTH);

/** Alt text per attached media URL, for this item; each in place of the media asset's own. */
const mediaAltText = z
  .record(z.string(), altText)
  .describe(
    `Alt text per media URL (a key is one of the item's media_urls, or of a platform's media_urls in platform_specific): what the image shows, at most ${MAX_ALT_TEXT_LENGTH} characters, sent to every platform that takes alt text. Without an entry, a media-library file's own alt_text is sent.`,
  );

/** Bluesky's `langs` holds at most 3 tags. */
export const MAX_POST_LANGUAGES = 3;

/** Who may see a TikTok post; the account's allowed levels are read from TikTok before posting. */
export const TIKTOK_PRIVACY_LEVELS = [
  'PUBLIC_TO_EVERYONE',
  'MUTUAL_FOLLOW_FRIENDS',
  'FOLLOWER_OF_CREATOR',
  'SELF_ONLY',
] as const;

const platformOverride = z.strictObject({
  caption: captionText.optional(),
  hashtags: hashtags.optional(),
  media_urls: mediaUrls.optional(),
  privacy_level: z
    .enum(TIKTOK_PRIVACY_LEVELS)
    .optional()
    .describe('TikTok only: who may see the post. Without it, the first level TikTok allows the account.'),
  langs: z
    .array(languageTag)
    .max(MAX_POST_LANGUAGES, `A post names at most ${MAX_POST_LANGUAGES} languages.`)
    .optional()
    .describe(
      "Bluesky only: the languages the post is written in, as BCP 47 tags such as en or pt-BR (at most 3); in place of the workspace's default_language, and [] for none.",
    ),
});

const targetPlatforms = z
  .array(platformId)
  .max(10)
  .refine((ids) => new Set(ids).size === ids.length, 'Each platform may appear once.')
  .describe('Platform ids; each needs a connected account at publish time.');

/** The fields create and PATCH share, with their limits. */
const contentFields = {
  caption: captionText.describe(`The post text, 1 to ${MAX_CAPTION_LENGTH} characters.`),
  hashtags,
  content_type: z.enum(CONTENT_TYPES),
  target_platforms: targetPlatforms,
  media_urls: mediaUrls,
  media_alt_text: mediaAltText,
  topic: z.string().max(MAX_TOPIC_LENGTH).nullable(),
  platform_specific: z
    .record(platformId, platformOverride)
    .refine(
      (overrides) =>
        Object.entries(overrides).every(([platform, o]) => platform === 'tiktok' || o?.privacy_level === undefined),
      'privacy_level is a TikTok setting: give it under platform_specific.tiktok only.',
    )
    .refine(
      (overrides) =>
        Object.entries(overrides).every(([platform, o]) => platform === 'bluesky' || o?.langs === undefined),
      'langs is a Bluesky setting: give it under platform_specific.bluesky only.',
    )
    .describe(
      'Per-platform overrides keyed by platform id: caption, hashtags, media_urls; privacy_level for tiktok; langs for bluesky.',
    ),
  aspect_ratio: z
    .string()
    .regex(/^\d+:\d+$/, 'Use width:height, such as 9:16.')
    .nullable(),
  scheduled_for: scheduleTimeInput
    .nullable()
    .describe('When to publish (ISO 8601 with offset); pairs with status scheduled.'),
};

export const CreateContentInput = z.object({
  ...contentFields,
  hashtags: contentFields.hashtags.default([]),
  content_type: contentFields.content_type.default('single_image'),
  target_platforms: contentFields.target_platforms.default([]),
  media_urls: contentFields.media_urls.default([]),
  media_alt_text: contentFields.media_alt_text.default({}),
  topic: contentFields.topic.optional(),
  platform_specific: contentFields.platform_specific.default({}),
  aspect_ratio: contentFields.aspect_ratio.optional(),
  scheduled_for: contentFields.scheduled_for.optional(),
  status: z.enum(CREATE_STATUSES).default('draft').describe('Initial status; scheduled needs scheduled_for.'),
});

const contentId = z.string().min(1).describe('The content item id.');

export const UpdateContentInput = z.object({
  id: contentId,
  caption: contentFields.caption.optional(),
  hashtags: contentFields.hashtags.optional(),
  content_type: contentFields.content_type.optional(),
  target_platforms: contentFields.target_platforms.optional(),
  media_urls: contentFields.media_urls.optional(),
  media_alt_text: contentFields.media_alt_text.optional(),
  topic: contentFields.topic.optional(),
  platform_specific: contentFields.platform_specific.optional(),
  aspect_ratio: contentFields.aspect_ratio.optional(),
  scheduled_for: contentFields.scheduled_for.optional(),
  status: z
    .enum(UPDATE_STATUSES)
    .optional()
    .describe('approved makes the item eligible to publish; rejected keeps it for later.'),
  review_note: z
    .string()
    .trim()
    .min(1)
    .max(1000)
    .nullable()
    .optional()
    .describe('The reason for a rejection; only with status rejected.'),
});

export const ContentIdInput = z.object({ id: contentId });

export const PublishContentInput = z.object({
  id: contentId,
  scheduled_for: scheduleTimeInput
    .nullable()
    .optional()
    .describe('Future time to publish at (ISO 8601 with offset); omit to publish in the next run, within seconds.'),
  dry_run: z
    .boolean()
    .nullable()
    .optional()
    .describe(
      'true: change nothing and answer a publish_preview: per target platform, whether the item would go out now ' +
        'and what would refuse it (account, platform rules, media).',
    ),
});

/** A target platform as the publish preview judges it. */
const PlatformPreview = z.object({
  platform: z.string(),
  account: z
    .object({
      id: z.uuid(),
      username: z.string(),
      mode: z.enum(SOCIAL_ACCOUNT_MODES),
      status: z.enum(SOCIAL_ACCOUNT_STATUSES),
    })
    .nullable()
    .describe('The account the post would go out as (the active one, else the latest connected); null when none.'),
  ready: z.boolean().describe('True exactly when problems is empty.'),
  problems: z.array(z.string()).describe('Why publishing would be refused on this platform now.'),
});

/** The answer to a publish with dry_run: what publishing would make of the item now, changing nothing. */
export const PublishPreview = z
  .object({
    object: z.literal('publish_preview'),
    content_id: z.uuid(),
    ready: z.boolean().describe('True exactly when every target platform is ready.'),
    platforms: z.array(PlatformPreview).describe("One entry per target platform, in the item's order."),
  })
  .meta({ id: 'PublishPreview' });
export type PublishPreview = z.output<typeof PublishPreview>;

/** One platform's latest publishing outcome: whether it published, the platform's post id or its error. */
const PublishResult = z.object({
  platform: z.string(),
  success: z.boolean(),
  platform_post_id: z.string().nullable(),
  url: z.string().nullable().describe('The public URL of the post on the platform, or null.'),
  notice: z
    .string()
    .nullable()
    .describe('Something to know about a published post, such as TikTok posting it privately; null otherwise.'),
  error: z.string().nullable(),
  attempted_at: dateTimeOutput,
});

/**
 * The content resource as every door answers it; `publish_queued` and `publish_results` are ours,
 * beyond the base fields, so a client can follow publishing without another call.
 */
export const ContentResource = z
  .object({
    id: z.uuid(),
    object: z.literal('content'),
    caption: z.string(),
    hashtags: z.array(z.string()),
    content_type: z.enum(CONTENT_TYPES),
    target_platforms: z.array(z.string()),
    media_urls: z.array(z.string()),
    media_alt_text: z
      .record(z.string(), z.string())
      .describe("The item's own alt text per media URL; media without an entry send their library file's alt_text."),
    topic: z.string().nullable(),
    platform_specific: z.record(
      z.string(),
      z.object({
        caption: z.string().optional(),
        hashtags: z.array(z.string()).optional(),
        media_urls: z.array(z.string()).optional(),
        privacy_level: z.string().optional(),
        langs: z.array(z.string()).optional(),
      }),
    ),
    aspect_ratio: z.string().nullable(),
    scheduled_for: dateTimeOutput.nullable(),
    published_at: dateTimeOutput.nullable(),
    status: z.enum(CONTENT_STATUSES),
    campaign_id: z
      .string()
      .nullable()
      .describe('Set on items a campaign generated; cleared when the campaign is deleted.'),
    publish_queued: z.boolean().describe('True while the item waits for the publishing run.'),
    publish_results: z.array(PublishResult).describe('The latest outcome per target platform.'),
    created_by: z
      .object({ type: z.enum(['user', 'api_key', 'oauth_client', 'service']), id: z.string().nullable() })
      .nullable()
      .describe('Who created it: a person (user), an API key, an OAuth client or the service; null when not recorded.'),
    review_note: z.string().nullable().describe('Why it was rejected, while it is rejected; null otherwise.'),
    created_at: dateTimeOutput,
    updated_at: dateTimeOutput,
  })
  .meta({ id: 'Content' });
