import { z } from 'zod';
import { dateTimeOutput } from '../dates.ts';

/** The neutral midpoint every tone starts at, and what GET shows until a tone is set. */
export const DEFAULT_TONE = 5;

export const MAX_WEBSITE_URL_LENGTH = 2048;
/** The contract gives vocabulary and forbidden_words a count only; an item is a word or short phrase. */
export const MAX_WORD_LENGTH = 100;
/** A topic to lean into or avoid: a few words. */
export const MAX_TOPIC_PHRASE_LENGTH = 100;

/** A free-text field that can be cleared with null. */
const text = (max: number, what: string) =>
  z
    .string({ error: `${what} is a string, or null to clear it.` })
    .max(max, `At most ${max} characters.`)
    .nullable()
    .describe(`${what}.`);

/** A list of short strings; send [] to clear it. */
const list = (maxItems: number, maxItemLength: number, what: string) =>
  z
    .array(
      z.string({ error: 'Each item is a string.' }).max(maxItemLength, `At most ${maxItemLength} characters per item.`),
      {
        error: `${what} is an array of strings; [] clears it.`,
      },
    )
    .max(maxItems, `At most ${maxItems} items.`)
    .describe(`${what}.`);

const tone = (scale: string) =>
  z
    .int({ error: 'A tone is a whole number from 0 to 10.' })
    .min(0, 'A tone is at least 0.')
    .max(10, 'A tone is at most 10.')
    .describe(`${scale}; ${DEFAULT_TONE} until set.`);

/**
 * A colour as CSS hex, `#rgb` or `#rrggbb`, stored as sent. The contract gives no format; hex is what
 * both a designer and a generator can use without guessing (a name such as "teal" is refused).
 */
const color = (which: string) =>
  z
    .string({ error: `${which} is a hex colour string, or null to clear it.` })
    .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'Use a hex colour, #rgb or #rrggbb, such as #1a73e8.')
    .nullable()
    .describe(`${which}.`);

/**
 * Both field sets of the brand profile, with their limits, every field optional: a PATCH (and
 * service_update_brand_profile) sends only what changes, from either set. Unknown
 * fields are stripped, as on the other PATCH routes; a body left with no field is `no_updates`.
 */
export const UpdateBrandProfileInput = z.object({
  // Set A
  voice: text(500, 'How the brand sounds (voice)').optional(),
  audience: text(500, 'Who the brand writes for (audience)').optional(),
  topics_to_lean_into: list(50, MAX_TOPIC_PHRASE_LENGTH, 'Topics the posts should favour').optional(),
  topics_to_avoid: list(50, MAX_TOPIC_PHRASE_LENGTH, 'Topics the posts must never touch').optional(),
  style_notes: text(2000, 'Style notes (format, emoji, punctuation habits)').optional(),
  example_posts: list(20, 500, 'Example posts in the brand voice').optional(),
  // Set B
  brand_name: z
    .string({ error: 'brand_name is a string; it cannot be cleared with null.' })
    .min(1, 'At least 1 character.')
    .max(160, 'At most 160 characters.')
    .optional()
    .describe('The brand name; it cannot be cleared once set.'),
  industry: text(80, 'Industry').optional(),
  target_audience: text(500, 'Target audience').optional(),
  company_description: text(2000, 'What the company does').optional(),
  website_url: z
    .url({
      protocol: /^https?$/,
      error: 'website_url must be an absolute http(s) URL, such as https://example.com, or null.',
    })
    .max(MAX_WEBSITE_URL_LENGTH, `At most ${MAX_WEBSITE_URL_LENGTH} characters.`)
    .nullable()
    .optional()
    .describe('The brand website, an absolute http(s) URL.'),
  tone_formality: tone('Formality from 0 (casual) to 10 (formal)').optional(),
  tone_humor: tone('Humour from 0 (serious) to 10 (playful)').optional(),
  tone_energy: tone('Energy from 0 (calm) to 10 (high energy)').optional(),
  vocabulary: list(100, MAX_WORD_LENGTH, 'Words and phrases the brand likes to use').optional(),
  forbidden_words: list(100, MAX_WORD_LENGTH, 'Words and phrases generated posts must never use').optional(),
  primary_color: color('Primary colour').optional(),
  secondary_color: color('Secondary colour').optional(),
  accent_color: color('Accent colour').optional(),
  hashtag_strategy: text(500, 'How to choose hashtags (hashtag strategy)').optional(),
});

/** GET takes nothing; a query sent anyway is ignored (stripped). */
export const GetBrandProfileInput = z.object({});

export type BrandProfileChanges = z.output<typeof UpdateBrandProfileInput>;

/** The brand profile as GET and PATCH answer it: both field sets, unset strings null, tones 5 until set. */
export const BrandProfileResource = z
  .object({
    object: z.literal('brand_profile'),
    workspace_id: z.uuid(),
    voice: z.string().nullable(),
    audience: z.string().nullable(),
    topics_to_lean_into: z.array(z.string()),
    topics_to_avoid: z.array(z.string()),
    style_notes: z.string().nullable(),
    example_posts: z.array(z.string()),
    brand_name: z.string().nullable(),
    industry: z.string().nullable(),
    target_audience: z.string().nullable(),
    company_description: z.string().nullable(),
    website_url: z.string().nullable(),
    tone_formality: z.int().min(0).max(10),
    tone_humor: z.int().min(0).max(10),
    tone_energy: z.int().min(0).max(10),
    vocabulary: z.array(z.string()),
    forbidden_words: z.array(z.string()),
    primary_color: z.string().nullable(),
    secondary_color: z.string().nullable(),
    accent_color: z.string().nullable(),
    hashtag_strategy: z.string().nullable(),
    updated_at: dateTimeOutput,
  })
  .meta({ id: 'BrandProfile' });
