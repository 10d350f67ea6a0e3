import { z } from 'zod';
import raw from './phrasebook.json' with { type: 'json' };

/**
 * The word material of the built-in caption generator, in phrasebook.json: English phrases it
 * composes captions from, and the word lists it reads a brand's material with. Validated when first
 * loaded, as the template seed is: a mistake in the file stops the generator at start, not mid-campaign.
 *
 * A phrase is text, or `{ "text", "tone" }` when only some tones may use it: the generator uses it
 * only when the brand's tone allows every listed one:
 *   casual (formality 4 or less)   formal (formality 6 or more)
 *   playful (humor 6 or more)
 *   energetic (energy 6 or more)   quiet (energy 4 or less)
 * A formal brand (formality 7 or more) gets every contraction written out ("do not", "it is").
 * Placeholders: {topic} / {Topic} (capitalised), {brand}, {audience}, {url}, {vocab} / {Vocab},
 * {tip}, {n} (slides or frames in the post). A phrase whose placeholder the brand cannot fill is
 * skipped.
 *
 * The topic is a noun phrase of unknown number ("meal prep", "home workouts"), so no phrase makes a
 * verb agree with it: it follows a preposition, a colon or a modal. Phrases never end in `!` (the
 * energy slider adds them) and never contain `#` (hashtags are the generator's own list). A URL is
 * followed by a space or nothing, never by punctuation a platform could read as part of the link.
 */

export const FAMILY_NAMES = ['thought', 'scene', 'sequence', 'reel', 'spoken', 'video', 'demo', 'carousel'] as const;
/** The kind of media a post is written for, as its wording goes: several content types share one. */
export type Family = (typeof FAMILY_NAMES)[number];

export const TONES = ['casual', 'formal', 'playful', 'energetic', 'quiet'] as const;
export type ToneName = (typeof TONES)[number];

const phraseText = z
  .string()
  .min(1)
  .refine((text) => !text.includes('#'), 'A phrase never contains #: hashtags are the generator’s own list.')
  .refine((text) => !text.endsWith('!'), 'A phrase never ends in !: the energy slider adds them.');

const Phrase = z
  .union([phraseText, z.strictObject({ text: phraseText, tone: z.array(z.enum(TONES)).min(1) })])
  .transform((phrase) => (typeof phrase === 'string' ? { text: phrase, tone: [] } : phrase));
export type Phrase = z.output<typeof Phrase>;

const phrases = z.array(Phrase);
const perFamily = <T extends z.ZodType>(value: T) =>
  z.strictObject(Object.fromEntries(FAMILY_NAMES.map((family) => [family, value])) as Record<Family, T>);
const words = z.array(z.string().min(1));

const Phrasebook = z.strictObject({
  /** Openers any post can use; they name no format. */
  genericHooks: phrases,
  /** Openers shaped by the format: a spoken hook for camera, a scene for a photo, and so on. */
  familyHooks: perFamily(phrases),
  /** A line saying what the media is, after an opener that does not: a carousel or slideshow always announces its slides. */
  formatLines: perFamily(phrases),
  /** The message: one or two sentences around the topic, or a principle that fits any topic. */
  bodies: phrases,
  /** Short actions, used as a tip line or as the items of a list; each fits one line. */
  tips: phrases,
  /** Frames for one tip ({tip}) on its own line. */
  tipLines: phrases,
  /** What the reader gets out of it. */
  benefits: phrases,
  /** A short first-person aside before the message. */
  stories: phrases,
  /** Calls to action with no brand detail. */
  genericCtas: phrases,
  /** Calls to action pointing at the website (the URL always ends the sentence with a space or nothing). */
  urlCtas: phrases,
  audienceCtas: phrases,
  brandCtas: phrases,
  /** Questions inviting a reply. */
  questions: phrases,
  /** Lines carrying a vocabulary word, whatever its part of speech. */
  vocabLines: phrases,
  brandLines: phrases,
  /** For templates that ask for them. */
  myths: z.array(z.strictObject({ myth: Phrase, fact: Phrase })),
  beforeAfter: z.array(z.strictObject({ before: Phrase, after: Phrase })),
  /** A problem to open with, for templates that ask for one. */
  problems: phrases,
  /** Frames for a one-line summary, or a solution, around a tip. */
  recapLines: phrases,
  solutionLines: phrases,
  /** Stand-ins for a quote or testimonial section: we do not invent what customers said. */
  communityLines: phrases,
  /** Stand-ins for a facts or statistics section: a principle, never an invented number. */
  factLines: phrases,
  /** Openers of a list of tips. */
  listIntros: phrases,
  /** Before the tips of a template's "mistakes" section, which are what to do instead. */
  mistakesIntro: Phrase,
  /** Emoji for playful or high-energy brands, by format and for anything. */
  emoji: perFamily(words).extend({ any: words }),
  /** Generic hashtags that fit the format, used when the brand and topic give too few. */
  familyTags: perFamily(words),
  /** Topics to write about when the brand and campaign give none that may be used. */
  fallbackTopics: words,
  /** Contractions a formal voice writes out, lower-cased, and what they stand for. */
  contractions: z.record(z.string().min(1), z.string().min(1)),
  /** Audiences too vague to name in a call to action ("Calling all people"). */
  genericAudiences: words,
  /** Camel-cased names in a hashtag strategy that are not hashtags it asks for. */
  notTags: words,
  /** Words a topic's hashtag leaves out when the topic is long. */
  stopwords: words,
});
export type Phrasebook = z.output<typeof Phrasebook>;

/** The phrasebook in `data`, validated; throws zod's error naming each problem's path. */
export const parsePhrasebook = (data: unknown): Phrasebook => Phrasebook.parse(data);

export const book: Phrasebook = parsePhrasebook(raw);
