import { PLATFORMS, type ContentType } from '../../../db/schema/index.ts';
import { PLATFORM_RULES, textViolations } from '../publishing/connectors/sandbox.ts';
import { postText } from '../publishing/post.ts';
import { xWeightBounds } from '../publishing/x-weight.ts';

/**
 * What a generator is told about the brand: the brand profile resource's fields it writes from
 * (SPEC.md, Brand profile; both field sets). Unset strings are null, lists empty, tones 0 to 10.
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
  /** What the post is about, in a few words (the content item's `topic`, at most 280 characters). */
  topic: string | null;
}

/** Writes one draft per slot, in the order of `request.slots`. Both generators live behind this. */
export interface CaptionGenerator {
  name: string;
  /** The most slots one call should be given (a model writes a few dozen posts well, not hundreds). */
  maxSlotsPerCall?: number;
  generate(request: GenerationRequest, signal?: AbortSignal): Promise<Draft[]>;
}

/** At most this many hashtags per generated post (Instagram allows 30; a brand rarely wants more than a handful). */
export const MAX_GENERATED_HASHTAGS = 10;

/**
 * Every reason a draft may not become a content item, or an empty list: the content limits
 * (SPEC.md, Field and size limits), the text as posted fitting every platform (so the item can go
 * anywhere the workspace is connected), and the brand profile's bans: no forbidden word and no
 * avoided topic, matched case-insensitively as whole words or phrases in the caption, the hashtags
 * and the topic. Both generators' output goes through this.
 */
export function draftProblems(draft: Draft, brand: Pick<BrandBrief, 'forbidden_words' | 'topics_to_avoid'>): string[] {
  const problems: string[] = [];
  if (typeof draft.caption !== 'string' || draft.caption.trim().length === 0) return ['the caption is empty'];
  // Code points are counted only when there could be too many: no fewer UTF-16 units than code points.
  if (draft.caption.length > 4000 && [...draft.caption].length > 4000)
    problems.push('the caption is over 4000 characters');
  if (!Array.isArray(draft.hashtags)) return [...problems, 'hashtags is not a list'];
  if (draft.hashtags.length > MAX_GENERATED_HASHTAGS) problems.push(`more than ${MAX_GENERATED_HASHTAGS} hashtags`);
  for (const tag of draft.hashtags) {
    if (typeof tag !== 'string' || !/^[\p{L}\p{N}_]{1,100}$/u.test(tag))
      problems.push(`hashtag ${JSON.stringify(tag)} is not a single word without #`);
  }
  if (draft.topic !== null && (typeof draft.topic !== 'string' || draft.topic.length > 280))
    problems.push('the topic is over 280 characters');
  if (problems.length > 0) return problems;
  const text = postText(draft.caption, draft.hashtags);
  // Exact shortcuts, as this runs on every generated post: no platform but X limits a text of
  // fewer UTF-16 units than its smallest limit, and only Instagram counts hashtags (30; each
  // starts with a hash sign); X's weight is bounded from above without its parser.
  const fitsOthers = text.length <= SMALLEST_OTHER_LIMIT && countHashes(text) <= 30;
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

interface Ban {
  phrase: string;
  /** Tests lower-cased text. */
  matches(text: string): boolean;
}

/** Compiled once per brand object: a batch checks all its drafts against the same profile. */
const compiledBans = new WeakMap<object, { forbidden: Ban[]; avoided: Ban[] }>();
function bansOf(brand: Pick<BrandBrief, 'forbidden_words' | 'topics_to_avoid'>) {
  let bans = compiledBans.get(brand);
  if (!bans) {
    bans = { forbidden: brand.forbidden_words.map(banOf), avoided: brand.topics_to_avoid.map(banOf) };
    compiledBans.set(brand, bans);
  }
  return bans;
}

/**
 * A phrase as whole words, ignoring case; a hashtag counts (#NoFilter mentions "no filter" and
 * "nofilter"), so a ban cannot be slipped in as a tag.
 */
function banOf(phrase: string): Ban {
  const words = phrase
    .trim()
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  if (words.length === 0) return { phrase, matches: () => false };
  const spaced = new RegExp(
    `(?<![\\p{L}\\p{N}])${words.map(escapeRegExp).join('[^\\p{L}\\p{N}]+')}(?![\\p{L}\\p{N}])`,
    'u',
  );
  const joined = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(words.join(''))}(?![\\p{L}\\p{N}])`, 'u');
  // Cheap first: a text without the first word's letters cannot match either form.
  const first = words[0]!;
  return { phrase, matches: (text) => text.includes(first) && (spaced.test(text) || joined.test(text)) };
}

/** Whether `text` contains `phrase` as a whole word or phrase, ignoring case (see banOf). */
export function mentions(text: string, phrase: string): boolean {
  return banOf(phrase).matches(text.toLowerCase());
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
