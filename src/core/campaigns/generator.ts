import { type ContentType } from '../../../db/schema/index.ts';
import { PLATFORMS } from '../platforms/registry.ts';
import { MAX_CAPTION_LENGTH, MAX_HASHTAG_LENGTH, MAX_TOPIC_LENGTH } from '../content/schemas.ts';
import { PLATFORM_RULES, textViolations, xWeightBounds } from '../platforms/rules.ts';
import { postText } from '../publishing/post.ts';
import { phraseMatch, type PhraseMatch } from '../text.ts';

/**
 * What a generator is told about the brand: the brand profile resource's fields it writes from
 * (both field sets: voice and audience, and the brand's identity). Unset strings are null, lists
 * empty, tones 0 to 10.
 */
export interface BrandBrief {
  brand_name: string | null;
  industry: string | null;
  company_description: string | null;
  website_url: string | null;
  voice: string | null;
  audience: string | null;
  target_audience: string | null;
  style_notes: string | null;
  example_posts: string[];
  topics_to_lean_into: string[];
  topics_to_avoid: string[];
  vocabulary: string[];
  forbidden_words: string[];
  hashtag_strategy: string | null;
  tone_formality: number;
  tone_humor: number;
  tone_energy: number;
}

/** One calendar slot of a campaign to write a post for. */
export interface GenerationSlot {
  /** 0-based position in the campaign; with the campaign id it seeds anything random, so a slot always gets the same draft. */
  index: number;
  contentType: ContentType;
  scheduledFor: Date;
}

export interface GenerationRequest {
  campaign: { id: string; name: string; description: string | null; totalPosts: number };
  brand: BrandBrief;
  /** Structures of the workspace's templates (e.g. "Hook / three tips / call to action"), when it has any. */
  templates: string[];
  slots: GenerationSlot[];
}

/** A post as a generator writes it; the engine turns it into a `pending_review` content item. */
export interface Draft {
  caption: string;
  /** Without the leading `#`. */
  hashtags: string[];
  /** What the post is about, in a few words (the content item's `topic`, at most MAX_TOPIC_LENGTH characters). */
  topic: string | null;
}

/** Writes one draft per slot, in the order of `request.slots`. Both generators live behind this. */
export interface CaptionGenerator {
  name: string;
  /** The most slots one call should be given (a model writes a few dozen posts well, not hundreds). */
  maxSlotsPerCall?: number;
  generate(request: GenerationRequest, signal?: AbortSignal): Promise<Draft[]>;
}

/** At most this many hashtags per generated post (platforms allow more; a brand rarely wants more than a handful). */
export const MAX_GENERATED_HASHTAGS = 10;

/**
 * Every reason a draft may not become a content item, or an empty list: a content item's limits
 * (caption, hashtags, topic), the text as posted fitting every platform (so the item can go
 * anywhere the workspace is connected), and the brand profile's bans: no forbidden word and no
 * avoided topic, matched case-insensitively as whole words or phrases in the caption, the hashtags
 * and the topic. Both generators' output goes through this.
 */
export function draftProblems(draft: Draft, brand: Pick<BrandBrief, 'forbidden_words' | 'topics_to_avoid'>): string[] {
  const problems: string[] = [];
  if (typeof draft.caption !== 'string' || draft.caption.trim().length === 0) return ['the caption is empty'];
  // Code points are counted only when there could be too many: no fewer UTF-16 units than code points.
  if (draft.caption.length > MAX_CAPTION_LENGTH && [...draft.caption].length > MAX_CAPTION_LENGTH)
    problems.push(`the caption is over ${MAX_CAPTION_LENGTH} characters`);
  if (!Array.isArray(draft.hashtags)) return [...problems, 'hashtags is not a list'];
  if (draft.hashtags.length > MAX_GENERATED_HASHTAGS) problems.push(`more than ${MAX_GENERATED_HASHTAGS} hashtags`);
  for (const tag of draft.hashtags) {
    if (typeof tag !== 'string' || !isGeneratedHashtag(tag))
      problems.push(`hashtag ${JSON.stringify(tag)} is not a single word without #`);
  }
  if (draft.topic !== null && (typeof draft.topic !== 'string' || draft.topic.length > MAX_TOPIC_LENGTH))
    problems.push(`the topic is over ${MAX_TOPIC_LENGTH} characters`);
  if (problems.length > 0) return problems;
  const text = postText(draft.caption, draft.hashtags);
  // Exact shortcuts, as this runs on every generated post: no platform but X limits a text of
  // fewer UTF-16 units than its smallest limit, and a text with no more hash signs than the fewest
  // hashtags a platform allows has no more hashtags; X's weight is bounded from above without its parser.
  const fitsOthers = text.length <= SMALLEST_OTHER_LIMIT && countHashes(text) <= FEWEST_HASHTAGS_ALLOWED;
  for (const platform of PLATFORMS) {
    if (platform === 'twitter' ? fitsXUnparsed(text) : fitsOthers) continue;
    for (const problem of textViolations(platform, text)) problems.push(`${platform}: ${problem}`);
  }
  const bans = bansOf(brand);
  if (bans.forbidden.length === 0 && bans.avoided.length === 0) return problems;
  const said = [draft.caption, draft.hashtags.join(' '), draft.topic ?? ''].join('\n').toLowerCase();
  for (const ban of bans.forbidden) if (ban.matches(said)) problems.push(`uses the forbidden word "${ban.phrase}"`);
  for (const ban of bans.avoided) if (ban.matches(said)) problems.push(`touches the avoided topic "${ban.phrase}"`);
  return problems;
}

const SMALLEST_OTHER_LIMIT = Math.min(
  ...PLATFORMS.filter((platform) => platform !== 'twitter').map((platform) => PLATFORM_RULES[platform].maxText),
);
const FEWEST_HASHTAGS_ALLOWED = Math.min(
  ...PLATFORMS.map((platform) => PLATFORM_RULES[platform].maxHashtags ?? Number.POSITIVE_INFINITY),
);

const GENERATED_HASHTAG = new RegExp(`^[\\p{L}\\p{N}_]{1,${MAX_HASHTAG_LENGTH}}$`, 'u');

/** A hashtag as generators write it: one word of letters, digits or `_`, without `#`, within the content limit. */
export const isGeneratedHashtag = (tag: string): boolean => GENERATED_HASHTAG.test(tag);

/**
 * Whether X surely accepts `text` without running twitter-text's parser (about 10 µs a post): its
 * weight, bounded from above on the text as X normalises it, is within the limit. Anything else is
 * parsed.
 */
function fitsXUnparsed(text: string): boolean {
  const normalised = NON_ASCII.test(text) ? text.normalize('NFC') : text;
  return xWeightBounds(normalised).upper <= PLATFORM_RULES.twitter.maxText;
}

const NON_ASCII = /[^\p{ASCII}]/u;

/** Hash signs, the full-width one included: twitter-text takes either as the start of a hashtag. */
function countHashes(text: string): number {
  let n = 0;
  for (const sign of ['#', '\uFF03']) for (let i = text.indexOf(sign); i !== -1; i = text.indexOf(sign, i + 1)) n++;
  return n;
}

/** Compiled once per brand object: a batch checks all its drafts against the same profile. */
const compiledBans = new WeakMap<object, { forbidden: PhraseMatch[]; avoided: PhraseMatch[] }>();
function bansOf(brand: Pick<BrandBrief, 'forbidden_words' | 'topics_to_avoid'>) {
  let bans = compiledBans.get(brand);
  if (!bans) {
    bans = { forbidden: brand.forbidden_words.map(phraseMatch), avoided: brand.topics_to_avoid.map(phraseMatch) };
    compiledBans.set(brand, bans);
  }
  return bans;
}

/** Whether `text` contains `phrase` as a whole word or phrase, ignoring case (see phraseMatch). */
export function mentions(text: string, phrase: string): boolean {
  return phraseMatch(phrase).matches(text.toLowerCase());
}
