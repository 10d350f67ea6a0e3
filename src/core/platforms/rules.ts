import twitterText from 'twitter-text';
import type { Platform } from '../../../db/schema/index.ts';
import { boundedMemo } from '../bounded-memo.ts';
import type { PlatformRules, TextMeasureName } from './platform-entry.ts';
import { platformEntry, PLATFORMS } from './registry.ts';
import type { PostProblem, PostProblemCode } from './problems.ts';

/**
 * How posts are judged against each platform's published limits (written once, in its registry
 * entry) and how each measures a post's text. The connectors judge posts by them, and campaign generation writes and checks drafts
 * against them, so a generated post can go to any platform the workspace connects.
 */

/** What X counts every URL as, whatever its length: the length of its t.co short link. */
export const X_LINK_WEIGHT = 23;

/**
 * How a platform measures a post's text. X weighs characters (most CJK and emoji count 2, every URL
 * counts X_LINK_WEIGHT), so only twitter-text's own parser agrees with it. The others count Unicode
 * code points (`[...text].length`), not UTF-16 units, so an emoji is one character as the user sees it;
 * Threads counts an emoji by its UTF-8 bytes.
 */
const TEXT_MEASURES: Record<TextMeasureName, { unit: string; measure: (text: string) => number }> = {
  'x-weighted': { unit: 'weighted characters', measure: (text: string) => xWeightedLength(text) },
  'code-points': { unit: 'characters', measure: (text: string) => codePointLength(text) },
  'emoji-bytes': {
    unit: 'characters (an emoji counts its UTF-8 bytes)',
    measure: (text: string) => emojiBytesLength(text),
  },
  graphemes: { unit: 'characters', measure: (text: string) => graphemeLength(text) },
};

/** `[...text].length` without building the array: a surrogate pair is one code point. */
export function codePointLength(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length -= 1;
        i += 1;
      }
    }
  }
  return length;
}

/** A post's text measured as `platform` counts it, with the unit it counts in. */
export function measureText(platform: Platform, text: string): { length: number; unit: string } {
  const { unit, measure } = TEXT_MEASURES[PLATFORM_RULES[platform].textMeasure];
  return { length: measure(text), unit };
}

const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * Characters as a reader sees them (grapheme clusters): an emoji with its modifiers and joiners, or a
 * letter with its combining marks, is one. Bluesky counts this way.
 */
export function graphemeLength(text: string): number {
  return [...graphemes.segment(text)].length;
}

/**
 * Threads' length: characters as code points, except that an emoji (the whole grapheme: its
 * modifiers, variation selectors and joiners with it) counts as many as its UTF-8 bytes.
 */
export function emojiBytesLength(text: string): number {
  let length = 0;
  for (const { segment } of graphemes.segment(text)) {
    length += EMOJI.test(segment) ? Buffer.byteLength(segment, 'utf8') : [...segment].length;
  }
  return length;
}

export type { PlatformRules } from './platform-entry.ts';

/** Each platform's limits as the platform publishes them (docs/decisions.md, Publishing), from its registry entry; a connector accepts exactly what its platform would. */
export const PLATFORM_RULES: Readonly<Record<Platform, PlatformRules>> = Object.fromEntries(
  PLATFORMS.map((platform) => [platform, platformEntry(platform).rules]),
) as Record<Platform, PlatformRules>;

/** X's weighted length of `text`, by twitter-text's parser (tens of microseconds: see `xWeightBounds`). */
export function xWeightedLength(text: string): number {
  const facts = factsOf(text);
  return (facts.xWeight ??= twitterText.parseTweet(text).weightedLength);
}

/** The hashtags a platform reads in `text` (twitter-text's rules: `#` or `＃` before a word). */
export function hashtagsIn(text: string): string[] {
  const facts = factsOf(text);
  return (facts.hashtags ??= twitterText.extractHashtags(text)).slice();
}

/** How many links X (and the platforms that count links its way) finds in `text`. */
function linkCount(text: string): number {
  const facts = factsOf(text);
  return (facts.links ??= twitterText.extractUrls(text).length);
}

/*
 * twitter-text's parsers take tens of microseconds a text, and the same texts are measured again and
 * again: every preview card, every readiness check, every reload of the review inbox. They are pure,
 * so their answers are kept per text (a few thousand texts at most), each worked out when first asked
 * for, and all of a text's under one key: a long text is hashed once, not once per measure.
 */
const MEASURED_TEXTS = 2000;
interface TextFacts {
  xWeight?: number;
  hashtags?: string[];
  links?: number;
}
const measuredTexts = boundedMemo<TextFacts>(MEASURED_TEXTS);
const factsOf = (text: string): TextFacts => measuredTexts(text, () => ({}));

/** One of a text's rule problems before it names its platform: the code, the numbers and the phrase. */
type TextBreach = Pick<PostProblem, 'code' | 'limit' | 'measure' | 'unit'> & { phrase: string };

function textBreaches(platform: Platform, text: string): TextBreach[] {
  const rules = PLATFORM_RULES[platform];
  const breaches: TextBreach[] = [];
  const over = (code: PostProblemCode, measure: number, limit: number, unit: string, phrase: string) =>
    breaches.push({ code, measure, limit, unit, phrase });
  const { unit, measure } = TEXT_MEASURES[rules.textMeasure];
  const length = measure(text);
  if (length > rules.maxText) {
    over('text_too_long', length, rules.maxText, unit, `text is ${length} ${unit}; the limit is ${rules.maxText}`);
  }
  if (rules.maxTextBytes !== undefined) {
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > rules.maxTextBytes) {
      over(
        'text_too_many_bytes',
        bytes,
        rules.maxTextBytes,
        'UTF-8 bytes',
        `text is ${bytes} UTF-8 bytes; the limit is ${rules.maxTextBytes}`,
      );
    }
  }
  if (rules.maxLinks !== undefined) {
    const links = linkCount(text);
    if (links > rules.maxLinks) {
      over('too_many_links', links, rules.maxLinks, 'links', `text has ${links} links; the limit is ${rules.maxLinks}`);
    }
  }
  if (rules.maxHashtags !== null) {
    // The platform sees one caption: a #tag written in it counts the same as one from `hashtags`.
    const hashtags = hashtagsIn(text).length;
    if (hashtags > rules.maxHashtags) {
      over(
        'too_many_hashtags',
        hashtags,
        rules.maxHashtags,
        'hashtags',
        `text has ${hashtags} hashtags; the limit is ${rules.maxHashtags}`,
      );
    }
  }
  return breaches;
}

/** Every reason `platform` would refuse a post's text (its length, its hashtags), as phrases, or an empty list. */
export function textViolations(platform: Platform, text: string): string[] {
  return textBreaches(platform, text).map((breach) => breach.phrase);
}

/** A rule problem of `platform`, its message the phrase after the platform id, as a connector's refusal reads. */
export function ruleProblem(
  platform: Platform,
  { phrase, ...problem }: Omit<PostProblem, 'platform' | 'message'> & { phrase: string },
): PostProblem {
  return { ...problem, platform, message: `${platform}: ${phrase}` };
}

/** Every reason `platform` would refuse a post's text, as problems with their numbers. */
export function textProblems(platform: Platform, text: string): PostProblem[] {
  return textBreaches(platform, text).map((breach) => ruleProblem(platform, breach));
}

/*
 * X's weighted length without twitter-text's parser (tens of microseconds a text): bounds cheap
 * enough to run on every generated post, so the parser runs only on a text near the limit. Both the
 * built-in generator (fitting a draft) and the draft check every generator's output goes through
 * use them.
 */

/**
 * Bounds on X's weighted length. Upper: ASCII weighs 1 and anything else 2 (X's most), an astral
 * character (emoji) counts once, and every place a link could start ('.' or '://' before a name)
 * may add a short link (X_LINK_WEIGHT). Lower: only ASCII characters outside anything that could
 * hold a link, one each. The text must be NFC, as X normalises before counting.
 */
export function xWeightBounds(text: string): { upper: number; lower: number } {
  let upper = 0;
  let lower = 0;
  let token = 0;
  let linkish = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // The second half of a surrogate pair: the pair is one character, already counted. A lone half
    // (text from outside can carry one) counts like any other character.
    if (code >= 0xdc00 && code <= 0xdfff && i > 0 && isHighSurrogate(text.charCodeAt(i - 1))) continue;
    if (code === 0x20 || code === 0x0a) {
      if (!linkish) lower += token;
      token = 0;
      linkish = false;
      upper += 1;
      lower += 1;
      continue;
    }
    if (code < 0x80) {
      upper += 1;
      token += 1;
    } else upper += 2;
    if (code === 0x2e || code === 0x3002 || code === 0xff0e || code === 0xff61 || code === 0x3a) {
      const next = text.charCodeAt(i + 1);
      if (code === 0x3a ? next === 0x2f : isNameCharacter(next)) {
        upper += X_LINK_WEIGHT;
        linkish = true;
      }
    }
  }
  if (!linkish) lower += token;
  return { upper, lower };
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

const isNameCharacter = (code: number) =>
  (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code >= 0x80;
