import type { ContentType } from '../../../../db/schema/index.ts';
import { MAX_TOPIC_PHRASE_LENGTH } from '../../brand-profile/schemas.ts';
import { MAX_TOPIC_LENGTH } from '../../content/schemas.ts';
import { PLATFORM_RULES, xWeightBounds, xWeightedLength } from '../../publishing/platform-rules.ts';
import { postText } from '../../publishing/post.ts';
import { anyPhrasePattern, escapeRegExp } from '../../text.ts';
import {
  isGeneratedHashtag,
  MAX_GENERATED_HASHTAGS,
  type BrandBrief,
  type CaptionGenerator,
  type Draft,
  type GenerationRequest,
} from '../generator.ts';
import * as book from './phrasebook.ts';
import type { Family } from './phrasebook.ts';

/**
 * The built-in caption generator: no network, no model, and the same draft for the same campaign,
 * slot and brand every time, so a generation interrupted by a crash resumes with the drafts it would
 * have written anyway. A caption is composed from the phrasebook's parts (opener, message, tip or
 * benefit, call to action, question), chosen by a PRNG seeded from the campaign id and slot index,
 * filtered by the brand's tone and bans, and shaped by the content type or one of the workspace's
 * template structures. Every draft it returns passes `draftProblems`.
 */
export const builtinGenerator: CaptionGenerator = {
  name: 'builtin',
  async generate(request, signal) {
    const plan = planFor(request);
    const drafts: Draft[] = [];
    for (const slot of request.slots) {
      signal?.throwIfAborted();
      drafts.push(writeDraft(plan, slot.index, slot.contentType));
    }
    return drafts;
  },
};

// ---------------------------------------------------------------------------------------------
// Deterministic randomness

/** cyrb128: four 32-bit words from a string, enough to seed sfc32 well even for near-equal strings. */
function seedWords(text: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

/** sfc32, a small fast PRNG with a 128-bit state, seeded from a string. */
class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string) {
    [this.a, this.b, this.c, this.d] = seedWords(seed);
    // The first outputs of a fresh sfc32 state still echo the seed.
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A float in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)];
  }

  /** Fisher–Yates over a copy. */
  shuffled<T>(list: readonly T[]): T[] {
    const copy = list.slice();
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const swap = copy[i];
      copy[i] = copy[j];
      copy[j] = swap;
    }
    return copy;
  }
}

// ---------------------------------------------------------------------------------------------
// Length: X's weighted count is the tightest limit of all platforms, and twitter-text's parser is
// slow (tens of microseconds), so an upper bound decides most drafts and the parser only the rare
// one near the limit.

const X_LIMIT = PLATFORM_RULES.twitter.maxText;

/**
 * Whether the text as posted fits X (and so every platform). The brand's website, which captions
 * carry between spaces or at a line's end, weighs what X makes of it alone: X finds a link the same
 * way whatever whitespace surrounds it.
 */
function fitsEveryPlatform(text: string, link: KnownLink | null): boolean {
  const { upper, lower } = linkAwareBounds(text, link);
  if (upper <= X_LIMIT) return true;
  if (lower > X_LIMIT) return false;
  return xWeightedLength(text) <= X_LIMIT;
}

function linkAwareBounds(text: string, link: KnownLink | null): { upper: number; lower: number } {
  if (!link || !text.includes(link.url)) return xWeightBounds(text);
  const parts = text.split(link.url);
  // Only a link standing between whitespace is sure to be read the way it is alone.
  for (let i = 0; i < parts.length - 1; i++) {
    if (!/(?:^|\s)$/.test(parts[i]) || !/^(?:\s|$)/.test(parts[i + 1])) return xWeightBounds(text);
  }
  let upper = (parts.length - 1) * link.weight;
  let lower = upper;
  for (const part of parts) {
    const bounds = xWeightBounds(part);
    upper += bounds.upper;
    lower += bounds.lower;
  }
  return { upper, lower };
}

interface KnownLink {
  url: string;
  weight: number;
}

function knownLink(url: string | null): KnownLink | null {
  return url ? { url, weight: xWeightedLength(url) } : null;
}

// ---------------------------------------------------------------------------------------------
// Tone

interface Tone {
  formality: number;
  humor: number;
  energy: number;
  emoji: boolean;
  exclamations: boolean;
  /** The brand asked for short posts: fewer optional parts. */
  brief: boolean;
}

const VOICE_CUES: readonly { pattern: RegExp; formality?: number; humor?: number; energy?: number }[] = [
  { pattern: /\b(formal|professional|authoritative|corporate|polished|expert|academic|respectful)\b/, formality: 2 },
  { pattern: /\b(casual|friendly|conversational|relaxed|laid[- ]back|chatty|informal|approachable)\b/, formality: -2 },
  { pattern: /\b(witty|playful|fun|funny|humou?r(ous)?|cheeky|irreverent|quirky|silly|jokey)\b/, humor: 2 },
  { pattern: /\b(serious|sober|earnest|no[- ]nonsense|straightforward)\b/, humor: -2 },
  { pattern: /\b(energetic|bold|excited|exciting|hype|upbeat|enthusiastic|loud|punchy|dynamic)\b/, energy: 2 },
  { pattern: /\b(calm|gentle|soothing|quiet|soft|mindful|understated|serene|minimal(ist)?)\b/, energy: -2 },
];
const NO_EMOJI = /\b(no|without|avoid|never use|don'?t use)\s+(any\s+)?emojis?\b/;
const WANTS_EMOJI =
  /\b(use|love|include|with|add|lots of|plenty of)\s+(some\s+|a few\s+)?emojis?\b|\bemojis? (are )?(welcome|encouraged|ok|okay)\b/;
const NO_EXCLAMATION = /\b(no|avoid|without|never use|don'?t use)\s+exclamation/;
const BRIEF = /\b(short|concise|brief|punchy|minimal(ist)?|tight)\b/;
const EMOJI_CHARACTER = /\p{Extended_Pictographic}/u;

const clampTone = (value: number) => Math.max(0, Math.min(10, Math.round(Number.isFinite(value) ? value : 5)));

/** The sliders, nudged by words in the voice and style notes ("witty", "calm", "no emoji"). */
function readTone(brand: BrandBrief): Tone {
  const words = [brand.voice, brand.style_notes].filter(Boolean).join(' ').toLowerCase();
  let formality = clampTone(brand.tone_formality);
  let humor = clampTone(brand.tone_humor);
  let energy = clampTone(brand.tone_energy);
  for (const cue of VOICE_CUES) {
    if (!cue.pattern.test(words)) continue;
    formality += cue.formality ?? 0;
    humor += cue.humor ?? 0;
    energy += cue.energy ?? 0;
  }
  formality = clampTone(formality);
  humor = clampTone(humor);
  energy = clampTone(energy);
  const examplesUseEmoji = brand.example_posts.some((post) => EMOJI_CHARACTER.test(post));
  const emoji = !NO_EMOJI.test(words) && (humor >= 6 || energy >= 7 || WANTS_EMOJI.test(words) || examplesUseEmoji);
  return {
    formality,
    humor,
    energy,
    emoji,
    exclamations: energy >= 6 && !NO_EXCLAMATION.test(words),
    brief: BRIEF.test(words),
  };
}

function toneAllows(flags: string, tone: Tone): boolean {
  for (const flag of flags) {
    if (flag === 'c' && tone.formality > 4) return false;
    if (flag === 'f' && tone.formality < 6) return false;
    if (flag === 'p' && tone.humor < 6) return false;
    if (flag === 'e' && tone.energy < 6) return false;
    if (flag === 'q' && tone.energy > 4) return false;
  }
  return true;
}

/** Contractions a formal voice writes out; the phrasebook is written with them. */
const CONTRACTIONS: Record<string, string> = {
  "don't": 'do not',
  "doesn't": 'does not',
  "didn't": 'did not',
  "isn't": 'is not',
  "aren't": 'are not',
  "wasn't": 'was not',
  "won't": 'will not',
  "can't": 'cannot',
  "haven't": 'have not',
  "wouldn't": 'would not',
  "shouldn't": 'should not',
  "it's": 'it is',
  "that's": 'that is',
  "here's": 'here is',
  "what's": 'what is',
  "there's": 'there is',
  "who's": 'who is',
  "let's": 'let us',
  "you're": 'you are',
  "we're": 'we are',
  "they're": 'they are',
  "you'll": 'you will',
  "we'll": 'we will',
  "you've": 'you have',
  "we've": 'we have',
  "you'd": 'you would',
  "we'd": 'we would',
  "i'm": 'I am',
  gonna: 'going to',
  "this one's": 'this one is',
};
const CONTRACTION = new RegExp(
  `(?<![\\p{L}\\p{N}'])(?:${Object.keys(CONTRACTIONS)
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|')})(?![\\p{L}\\p{N}])`,
  'giu',
);

function writeOutContractions(text: string): string {
  return text.replace(CONTRACTION, (found) => {
    const full = CONTRACTIONS[found.toLowerCase()];
    return found[0] === found[0].toUpperCase() ? full[0].toUpperCase() + full.slice(1) : full;
  });
}

// ---------------------------------------------------------------------------------------------
// The brand's own material, cleaned once per request

const HASH_SIGNS = /[#＃]/g;
const SPACES = /\s+/g;

/** A brand-supplied phrase as it may appear in a caption: NFC, one line, no hashtag signs. */
function cleanPhrase(text: string | null | undefined): string {
  if (!text) return '';
  return text.normalize('NFC').replace(HASH_SIGNS, '').replace(SPACES, ' ').trim();
}

/**
 * A noun phrase for the middle of a sentence: "Meal prep" becomes "meal prep", but "AI tools",
 * "iPhone tips" and "Gen Z" keep their capitals (acronyms, brand spellings, proper nouns).
 */
function asMidSentence(phrase: string): string {
  const words = phrase.split(' ');
  const first = words[0];
  if (first.length < 2 || first !== first[0] + first.slice(1).toLowerCase()) return phrase;
  if (words.slice(1).some((word) => /^\p{Lu}/u.test(word))) return phrase;
  return first[0].toLowerCase() + phrase.slice(1);
}

const lowerFirst = (text: string) => (/^\p{Lu}\p{Ll}/u.test(text) ? text[0].toLowerCase() + text.slice(1) : text);

function capitalise(text: string): string {
  if (text.length === 0) return text;
  // "iPhone" stays "iPhone".
  if (text.length > 1 && /^\p{Ll}\p{Lu}/u.test(text)) return text;
  return text[0].toUpperCase() + text.slice(1);
}

/** The text up to `max` characters, cut at a word boundary and not on a dangling "and" or "of". */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max + 1);
  const space = cut.lastIndexOf(' ');
  return (space > max / 2 ? cut.slice(0, space) : text.slice(0, max)).replace(DANGLING_END, '');
}
const DANGLING_END = /(?:[\s,;:–—-]+(?:and|or|of|the|a|an|to|for|with|in|on|at|by|including|from))*[\s,;:–—-]*$/iu;

/** A short audience phrase ("small business owners") from a possibly long description of it. */
function shortAudience(text: string): string | null {
  const cleaned = cleanPhrase(text).replace(/[.!]+$/, '');
  if (!cleaned) return null;
  const phrase =
    cleaned.length <= 40
      ? cleaned
      : cleaned.split(/[,;:(]|\s(?:who|that|which|aged|interested|looking|between|from)\s/)[0].trim();
  if (phrase.length < 3 || phrase.length > 40 || GENERIC_AUDIENCES.has(phrase.toLowerCase())) return null;
  return asMidSentence(phrase);
}

/** Audiences too vague to name in a call to action ("Calling all people"). */
const GENERIC_AUDIENCES = new Set([
  'people',
  'everyone',
  'everybody',
  'anyone',
  'users',
  'individuals',
  'customers',
  'consumers',
  'adults',
  'all',
]);

const LEADING_VERBS =
  /^(?:(?:promote|promoting|launch|launching|announce|announcing|showcase|showcasing|highlight|highlighting|share|sharing|introduce|introducing|celebrate|celebrating|drive|driving|build|building|grow|growing|increase|increasing|boost|boosting|raise|raising|market|marketing|sell|selling|advertise|advertising|feature|featuring|educate|educating|teach|teaching|explain|explaining|tell|about|all about|posts? about|content about|a campaign (?:about|for|on)|campaign (?:about|for|on))\s+)+(?:(?:our|the|a|an|people on|people about|awareness (?:of|about|for))\s+)*/i;

/** A topic from a campaign description: its first clause without the marketing verb in front. */
function topicFromDescription(description: string | null): string | null {
  const cleaned = cleanPhrase(description);
  if (!cleaned) return null;
  const clause = cleaned
    .split(/[.;:!?\n]|,\s|\s(?:to|for|with|among|across|so that|in order to|by|during)\s/i)[0]
    .trim();
  const stripped = clause.replace(LEADING_VERBS, '').trim();
  const words = stripped.split(' ').filter(Boolean);
  if (words.length === 0 || words.length > 6 || stripped.length < 3) return null;
  return asMidSentence(stripped);
}

// ---------------------------------------------------------------------------------------------
// Hashtags

const NUMBER_WORDS: Record<string, number> = {
  zero: 0,
  one: 1,
  a: 1,
  single: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};
const COUNT = String.raw`(\d{1,2}|zero|one|two|three|four|five|six|seven|eight|nine|ten|a|single)`;
const HASHTAG_WORD = String.raw`(?:\S+\s+){0,3}?(?:hash)?tags?\b`;
const AT_MOST = new RegExp(
  String.raw`\b(?:up to|at most|max(?:imum)?(?: of)?|no more than|not more than|maximum)\s+${COUNT}\s+${HASHTAG_WORD}`,
  'i',
);
const RANGE = new RegExp(String.raw`\b${COUNT}\s*(?:-|–|to|or)\s*${COUNT}\s+${HASHTAG_WORD}`, 'i');
const EXACT = new RegExp(String.raw`\b${COUNT}\s+${HASHTAG_WORD}`, 'gi');
const NONE =
  /\b(?:no|zero|without|avoid|never use|don'?t use|skip)\s+(?:any\s+)?(?:hash)?tags?\b|\bhashtags?:?\s*none\b/i;
const FEW = /\b(?:few|couple|minimal|sparing(?:ly)?|light|handful|one or two)\b/i;
const MANY = /\b(?:many|lots|plenty|heavy|maximum reach|as many)\b/i;
const EXPLICIT_TAG = /[#＃]([\p{L}\p{N}_]+)/gu;
const QUOTED = /["“]([^"”]{2,40})["”]/g;
const CAMEL_CASE = /(?<![\p{L}\p{N}#＃])\p{Lu}\p{Ll}+(?:\p{Lu}[\p{Ll}\p{N}]*)+(?![\p{L}\p{N}])/gu;
const NOT_TAGS = new Set([
  'linkedin',
  'tiktok',
  'youtube',
  'facebook',
  'instagram',
  'twitter',
  'iphone',
  'javascript',
  'typescript',
]);
const BRANDED = /\bbrand(?:ed)?\b|\bcompany\b|\bour name\b/i;
const MAX_TAG_LENGTH = 30;

const toCount = (word: string) => (/^\d+$/.test(word) ? Number(word) : (NUMBER_WORDS[word.toLowerCase()] ?? 3));

interface TagRule {
  /** How many tags a post gets, [fewest, most]; a post too long for X loses tags only down to the fewest before it loses a wanted line. */
  count: [number, number];
  /** Tags the strategy names, in its order. */
  named: string[];
  branded: boolean;
}

/** What the hashtag strategy asks for: "3 hashtags", "a few", "no hashtags", "#Acme on every post"… */
function readHashtagStrategy(strategy: string | null): TagRule {
  const text = cleanPhraseKeepingTags(strategy);
  if (!text) return { count: [2, 4], named: [], branded: false };
  const named: string[] = [];
  for (const match of text.matchAll(EXPLICIT_TAG)) named.push(match[1]);
  for (const match of text.matchAll(QUOTED)) named.push(toTag(match[1]));
  for (const match of text.matchAll(CAMEL_CASE)) if (!NOT_TAGS.has(match[0].toLowerCase())) named.push(match[0]);
  const branded = BRANDED.test(text);
  const bounded = (low: number, high: number): [number, number] => {
    const top = Math.min(MAX_GENERATED_HASHTAGS, Math.max(0, high));
    return [Math.min(Math.max(0, low), top), top];
  };
  let count: [number, number];
  const atMost = AT_MOST.exec(text);
  const range = RANGE.exec(text);
  const exactCounts = [...text.matchAll(EXACT)].map((match) => toCount(match[1]));
  if (atMost) count = bounded(Math.min(2, toCount(atMost[1])), toCount(atMost[1]));
  else if (range) count = bounded(toCount(range[1]), toCount(range[2]));
  else if (NONE.test(text)) count = [0, 0];
  else if (exactCounts.length > 0) {
    // "1 branded hashtag and 2 niche hashtags" is three in all.
    const total = exactCounts.reduce((sum, value) => sum + value, 0);
    count = bounded(total, total);
  } else if (FEW.test(text)) count = [2, 3];
  else if (MANY.test(text)) count = [6, 8];
  else count = [3, 4];
  return { count, named, branded };
}

const cleanPhraseKeepingTags = (text: string | null) => (text ? text.normalize('NFC').replace(SPACES, ' ').trim() : '');

/** "meal prep" → "MealPrep"; "self-care" → "SelfCare"; letters, digits and underscores only. */
function toTag(phrase: string): string {
  const words = phrase
    .normalize('NFC')
    .split(/[^\p{L}\p{N}_]+/u)
    .filter(Boolean);
  return words.map((word) => capitalise(word)).join('');
}

const STOPWORDS = new Set(
  'a an and the of for to in on at by with from your our my their its is are be how why what when new best top tips ideas'.split(
    ' ',
  ),
);

// ---------------------------------------------------------------------------------------------
// Templates: structure strings such as "Hook / 3 tips / CTA" turned into section kinds

type Section =
  | {
      kind:
        | 'hook'
        | 'cta'
        | 'urlCta'
        | 'question'
        | 'story'
        | 'problem'
        | 'solution'
        | 'benefit'
        | 'recap'
        | 'community'
        | 'fact'
        | 'body'
        | 'myth'
        | 'beforeAfter';
    }
  | { kind: 'list'; count: number; numbered: boolean; label: string };

const SECTION_SPLIT = /\s*(?:\/|\||→|->|=>|>|\+|,|;|\n|•|·|\bthen\b|\bfollowed by\b)\s*/iu;
const LIST_SECTION = new RegExp(
  String.raw`\b(?:(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|a few|few|some|several)\s+)?(?:[a-z-]+\s+){0,2}?(tips?|steps?|hacks?|ideas?|ways?|reasons?|lessons?|takeaways?|mistakes?|points?|things?|bullets?|list|checklist|rules?|secrets?)\b`,
  'i',
);
const SECTION_KINDS: readonly [RegExp, Section['kind']][] = [
  [/\bmyths?\b/i, 'myth'],
  [/\bbefore\b.*\bafter\b|\btransformation\b|\bbefore-after\b/i, 'beforeAfter'],
  [/\bcta\b|call[\s-]*to[\s-]*action/i, 'cta'],
  [/\b(?:recap|summary|summari[sz]e|tl;?dr|conclusion|key takeaway)\b/i, 'recap'],
];
const LATER_SECTION_KINDS: readonly [RegExp, Section['kind']][] = [
  [/\b(?:visit|link|website|site|shop|buy|download|register|sign[\s-]?up|book|url)\b/i, 'urlCta'],
  [/\b(?:follow|subscribe|share|save|dm|contact)\b/i, 'cta'],
  [/\b(?:questions?|ask|poll|comments?|engage|engagement|prompt)\b/i, 'question'],
  [/\b(?:hook|open(?:er|ing)|intro(?:duction)?|attention|headline|title|teaser|grabber)\b/i, 'hook'],
  [/\b(?:story|anecdote|behind|experience|journey|personal)\b/i, 'story'],
  [/\b(?:problem|pain(?: point)?|struggle|challenge|issue|frustration)\b/i, 'problem'],
  [/\b(?:solution|fix|answer|how it works)\b/i, 'solution'],
  [/\b(?:benefits?|results?|outcomes?|payoff|value|why)\b/i, 'benefit'],
  [/\b(?:quote|testimonial|review|social proof|customer)\b/i, 'community'],
  [/\b(?:facts?|stats?|statistics?|data|numbers?|insight)\b/i, 'fact'],
];

function parseTemplate(structure: string): Section[] {
  const normalised = structure
    .replace(/\bbefore\s*(?:\/|&|and|vs\.?|→|->)\s*after\b/gi, 'before-after')
    .replace(/\bmyths?\s*(?:\/|&|and|vs\.?|versus|→|->)\s*facts?\b/gi, 'myth vs fact')
    .replace(/\bproblem\s*(?:\/|&|and|→|->)\s*solution\b/gi, 'problem, solution');
  const sections: Section[] = [];
  for (const part of normalised.split(SECTION_SPLIT)) {
    const text = part.trim();
    if (!text) continue;
    const early = SECTION_KINDS.find(([pattern]) => pattern.test(text));
    if (early) {
      sections.push({ kind: early[1] } as Section);
      continue;
    }
    const list = LIST_SECTION.exec(text);
    if (list) {
      const amount = list[1]
        ? /^\d+$/.test(list[1])
          ? Number(list[1])
          : (NUMBER_WORDS[list[1].toLowerCase()] ?? 3)
        : 3;
      const label = list[2].toLowerCase();
      sections.push({
        kind: 'list',
        count: Math.max(2, Math.min(5, amount)),
        numbered: /^(step|rule|reason|way)/.test(label) || Boolean(list[1]),
        label,
      });
      continue;
    }
    const later = LATER_SECTION_KINDS.find(([pattern]) => pattern.test(text));
    sections.push({ kind: later ? later[1] : 'body' } as Section);
  }
  // "Myth / Fact" as two sections is one myth-and-fact pair.
  return sections.filter((section, i) => !(section.kind === 'fact' && sections[i - 1]?.kind === 'myth'));
}

// ---------------------------------------------------------------------------------------------
// The plan: everything that depends on the request only, prepared once per call

/** A topic to write about: `display` goes into captions, `label` into the draft's topic. */
interface Topic {
  display: string;
  capitalised: string;
  label: string | null;
  tags: string[];
}

/** A vocabulary word, ready for a sentence's middle or start and as a hashtag. */
interface Word {
  text: string;
  capitalised: string;
  tag: string | null;
}

interface Plan {
  campaignId: string;
  tone: Tone;
  bans: RegExp | null;
  brand: string | null;
  url: string | null;
  link: KnownLink | null;
  audience: string | null;
  vocabulary: Word[];
  /** Dealt in shuffled rounds; see `topicFor`. */
  topics: Topic[];
  topicOrders: Map<number, number[]>;
  tagRule: TagRule;
  namedTags: string[];
  /** Every tag above, lower-cased, so drafts compare tags without allocating. */
  tagKeys: Map<string, string>;
  brandTag: string | null;
  industryTag: string | null;
  familyTags: Record<Family, string[]>;
  phrases: Phrases;
  templates: Section[][];
}

interface Phrases {
  hooks: string[];
  familyHooks: Record<Family, string[]>;
  formatLines: Record<Family, string[]>;
  bodies: string[];
  tips: string[];
  /** The tips in lower case, to follow a colon. */
  tipsInSentence: string[];
  tipLines: string[];
  benefits: string[];
  stories: string[];
  ctas: string[];
  urlCtas: string[];
  audienceCtas: string[];
  brandCtas: string[];
  questions: string[];
  vocabLines: string[];
  brandLines: string[];
  myths: (readonly [string, string])[];
  beforeAfter: (readonly [string, string])[];
  problems: string[];
  recaps: string[];
  solutions: string[];
  community: string[];
  facts: string[];
  /** For a list of three; `listIntrosAnyCount` for any length. */
  listIntros: string[];
  listIntrosAnyCount: string[];
  mistakesIntro: string | null;
  /** The bodies that name the topic, and those that do not. */
  topicalBodies: string[];
  plainBodies: string[];
  /** Questions naming the topic, which can open a post. */
  topicQuestions: string[];
  emoji: Record<Family | 'any', string[]>;
}

const FAMILIES: Record<ContentType, Family> = {
  text_only: 'thought',
  single_image: 'scene',
  slideshow: 'sequence',
  reel: 'reel',
  talking_head: 'spoken',
  video_hook: 'video',
  video_hook_demo: 'demo',
  carousel: 'carousel',
};
const FAMILY_NAMES = Object.keys(book.FAMILY_HOOKS) as Family[];

/**
 * Plans of recent requests. The engine asks batch after batch (500 slots or fewer) with the same
 * campaign, brand and templates, each read afresh; preparing a plan costs about a millisecond, a
 * large share of a small batch.
 */
const recentPlans = new Map<string, Plan>();
const RECENT_PLANS = 16;

function planFor(request: GenerationRequest): Plan {
  const { campaign, brand, templates } = request;
  const key = JSON.stringify([campaign.id, campaign.name, campaign.description, brand, templates]);
  const known = recentPlans.get(key);
  if (known) return known;
  const plan = preparePlan(request);
  if (recentPlans.size >= RECENT_PLANS) recentPlans.delete(recentPlans.keys().next().value!);
  recentPlans.set(key, plan);
  return plan;
}

const PLACEHOLDER = /\{(\w+)\}/g;
const FLAGS = /^([a-z]+)\|/;

function preparePlan(request: GenerationRequest): Plan {
  const { brand, campaign } = request;
  const bans = anyPhrasePattern([...brand.forbidden_words, ...brand.topics_to_avoid]);
  const isClean = (text: string) => bans === null || !bans.test(text.toLowerCase());
  const tone = readTone(brand);

  const brandName = clip(cleanPhrase(brand.brand_name), 60);
  const url = cleanPhrase(brand.website_url).replace(/\s/g, '');
  const audience = shortAudience(brand.target_audience ?? '') ?? shortAudience(brand.audience ?? '');
  const vocabulary = unique(
    brand.vocabulary
      .map((word) => cleanPhrase(word))
      .filter((word) => word.length > 0 && word.length <= 40 && isClean(word)),
  );
  const facts = {
    brand: brandName && brandName.length <= 40 && isClean(brandName) ? brandName : null,
    url: url && url.length <= 100 && isClean(url) ? url : null,
    audience: audience && isClean(audience) ? audience : null,
  };

  let topicSources = brand.topics_to_lean_into.map((topic) =>
    asMidSentence(clip(cleanPhrase(topic), MAX_TOPIC_PHRASE_LENGTH)),
  );
  if (!topicSources.some((topic) => topic && isClean(topic))) {
    // No usable lean-into topic: the campaign says what it is about.
    topicSources = [
      cleanPhrase(campaign.name),
      topicFromDescription(campaign.description) ?? '',
      cleanPhrase(brand.industry),
    ].map((topic) => asMidSentence(clip(topic, MAX_TOPIC_PHRASE_LENGTH)));
  }
  let topics: Topic[] = unique(topicSources.filter((topic) => topic.length > 0 && isClean(topic))).map((topic) => ({
    display: topic,
    capitalised: capitalise(topic),
    label: topic,
    tags: topicTags(topic),
  }));
  if (topics.length === 0) {
    topics = book.FALLBACK_TOPICS.filter(isClean).map((topic) => ({
      display: topic,
      capitalised: capitalise(topic),
      label: null,
      tags: [],
    }));
  }
  // Even the generic topics are banned: only phrases that name no topic are used.
  const untopical = topics.length === 0;
  if (untopical) topics = [{ display: '', capitalised: '', label: null, tags: [] }];

  // A phrase is usable when the tone allows it, the brand can fill its placeholders, and no ban
  // sits in its own words (the placeholders are checked in the finished caption).
  const available = (key: string) =>
    key === 'brand'
      ? facts.brand !== null
      : key === 'url'
        ? facts.url !== null
        : key === 'audience'
          ? facts.audience !== null
          : key === 'vocab' || key === 'Vocab'
            ? vocabulary.length > 0
            : key === 'topic' || key === 'Topic'
              ? !untopical
              : true;
  const usable = (list: readonly string[]): string[] => {
    const out: string[] = [];
    for (const raw of list) {
      const flags = FLAGS.exec(raw);
      if (flags && !toneAllows(flags[1], tone)) continue;
      let text = flags ? raw.slice(flags[0].length) : raw;
      let fillable = true;
      for (const match of text.matchAll(PLACEHOLDER)) if (!available(match[1])) fillable = false;
      if (!fillable) continue;
      if (tone.formality >= 7) text = writeOutContractions(text);
      if (!isClean(text.replace(PLACEHOLDER, ' '))) continue;
      out.push(text);
    }
    return out;
  };
  const usablePairs = (pairs: readonly (readonly [string, string])[]) =>
    pairs
      .filter(([a, b]) => usable([a]).length === 1 && usable([b]).length === 1)
      .map(([a, b]) => [usable([a])[0], usable([b])[0]] as const);
  const perFamily = (source: Readonly<Record<Family, readonly string[]>>) =>
    Object.fromEntries(FAMILY_NAMES.map((family) => [family, usable(source[family])])) as Record<Family, string[]>;

  const phrases: Phrases = {
    hooks: usable(book.GENERIC_HOOKS),
    familyHooks: perFamily(book.FAMILY_HOOKS),
    formatLines: perFamily(book.FORMAT_LINES),
    bodies: usable(book.BODIES),
    tips: usable(book.TIPS),
    tipsInSentence: usable(book.TIPS).map(lowerFirst),
    tipLines: usable(book.TIP_LINES),
    benefits: usable(book.BENEFITS),
    stories: usable(book.STORIES),
    ctas: usable(book.GENERIC_CTAS),
    urlCtas: usable(book.URL_CTAS),
    audienceCtas: usable(book.AUDIENCE_CTAS),
    brandCtas: usable(book.BRAND_CTAS),
    questions: usable(book.QUESTIONS),
    vocabLines: usable(book.VOCAB_LINES),
    brandLines: usable(book.BRAND_LINES),
    myths: usablePairs(book.MYTHS),
    beforeAfter: usablePairs(book.BEFORE_AFTER),
    problems: usable(book.PROBLEMS),
    recaps: usable(book.RECAP_LINES),
    solutions: usable(book.SOLUTION_LINES),
    community: usable(book.COMMUNITY_LINES),
    facts: usable(book.FACT_LINES),
    listIntros: usable(book.LIST_INTROS),
    listIntrosAnyCount: usable(book.LIST_INTROS.filter((intro) => !/\b(three|3)\b/i.test(intro))),
    mistakesIntro: usable([book.MISTAKES_INTRO])[0] ?? null,
    topicalBodies: usable(book.BODIES.filter((body) => MENTIONS_TOPIC.test(body))),
    plainBodies: usable(book.BODIES.filter((body) => !MENTIONS_TOPIC.test(body))),
    topicQuestions: usable(book.QUESTIONS.filter((question) => MENTIONS_TOPIC.test(question))),
    emoji: {
      any: [...book.EMOJI.any],
      ...(Object.fromEntries(FAMILY_NAMES.map((family) => [family, [...book.EMOJI[family]]])) as Record<
        Family,
        string[]
      >),
    },
  };

  const tagRule = readHashtagStrategy(brand.hashtag_strategy);
  const cleanTag = (tag: string | null): string | null =>
    tag && isGeneratedHashtag(tag) && tag.length <= MAX_TAG_LENGTH && isClean(tag) ? tag : null;
  const familyTags = Object.fromEntries(
    FAMILY_NAMES.map((family) => [
      family,
      book.FAMILY_TAGS[family].map(cleanTag).filter((tag): tag is string => tag !== null),
    ]),
  ) as Record<Family, string[]>;
  for (const topic of topics) topic.tags = topic.tags.map(cleanTag).filter((tag): tag is string => tag !== null);

  const plan: Plan = {
    campaignId: campaign.id,
    tone,
    bans,
    brand: facts.brand,
    url: facts.url,
    link: knownLink(facts.url),
    audience: facts.audience,
    vocabulary: vocabulary.map((text) => ({ text, capitalised: capitalise(text), tag: cleanTag(toTag(text)) })),
    topics,
    topicOrders: new Map(),
    tagRule,
    namedTags: unique(tagRule.named.map(cleanTag).filter((tag): tag is string => tag !== null)),
    brandTag: cleanTag(brandName ? toTag(brandName) : null),
    industryTag: cleanTag(brand.industry ? toTag(cleanPhrase(brand.industry)) : null),
    familyTags,
    phrases,
    templates: request.templates.map(parseTemplate).filter((sections) => sections.length > 0),
    tagKeys: new Map(),
  };
  const everyTag = [...plan.namedTags, plan.brandTag, plan.industryTag, ...plan.vocabulary.map((word) => word.tag)];
  for (const topic of plan.topics) everyTag.push(...topic.tags);
  for (const family of FAMILY_NAMES) everyTag.push(...plan.familyTags[family]);
  for (const tag of everyTag) if (tag) plan.tagKeys.set(tag, tag.toLowerCase());
  return plan;
}

/** Case-insensitively distinct, first spelling kept. */
function unique(list: readonly string[]): string[] {
  const seen = new Set<string>();
  return list.filter((item) => {
    const key = item.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The topic as one tag, then its head noun: "sustainable packaging" → SustainablePackaging,
 * Packaging. A long topic gives its last two words ("new eco-friendly water bottles" → WaterBottles).
 */
function topicTags(topic: string): string[] {
  const words = topic.split(/[^\p{L}\p{N}_]+/u).filter(Boolean);
  const significant = words.filter((word) => !STOPWORDS.has(word.toLowerCase()));
  const tags = [toTag((words.length > 3 && significant.length >= 2 ? significant.slice(-2) : words).join(' '))];
  const head = [...words].reverse().find((word) => word.length >= 4 && !STOPWORDS.has(word.toLowerCase()));
  if (head && head.length >= 5 && words.length > 1) tags.push(capitalise(head));
  return tags;
}

/**
 * The topic of slot `index`: the lean-into topics are dealt in shuffled rounds, so every topic comes
 * up once in each run of that many consecutive slots, in an order that differs round to round.
 */
function topicFor(plan: Plan, index: number): Topic {
  const count = plan.topics.length;
  if (count === 1) return plan.topics[0];
  const round = Math.floor(index / count);
  let order = plan.topicOrders.get(round);
  if (!order) {
    order = new Random(`${plan.campaignId}:topics:${round}`).shuffled(Array.from({ length: count }, (_, i) => i));
    if (plan.topicOrders.size > 64) plan.topicOrders.clear();
    plan.topicOrders.set(round, order);
  }
  return plan.topics[order[index % count]];
}

// ---------------------------------------------------------------------------------------------
// Writing one draft. The hot path builds no closures: tsx wraps every function it creates with a
// name-keeping helper, which made per-draft arrow functions the largest cost of a campaign.

interface Piece {
  text: string;
  /** Dropped first when the post is too long: 1 optional, 2 wanted, 3 essential. */
  keep: number;
  /** What comes before it: a space, a line break or a blank line. */
  before: string;
  /** A call to action or question that closes a template's structure. */
  closing: boolean;
  /** Bounds on the text's weight on X (see `xWeightBounds`), so fitting rarely renders or parses. */
  upper: number;
  lower: number;
}

function makePiece(plan: Plan, text: string, keep: number, before: string, closing = false): Piece {
  // Most pieces are plain ASCII sentences with nothing a link could start from: X counts each
  // character once, and no character-by-character pass is needed.
  if (!NON_ASCII.test(text) && !LINK_START.test(text))
    return { text, keep, before, closing, upper: text.length, lower: text.length };
  const normalised = NON_ASCII.test(text) ? text.normalize('NFC') : text;
  const { upper, lower } = linkAwareBounds(normalised, plan.link);
  return { text: normalised, keep, before, closing, upper, lower };
}

/** Where `xWeightBounds` would suspect a link. */
const LINK_START = /[.。．｡][\p{L}\p{N}]|[.。．｡][^\p{ASCII}]|:\//u;

const MENTIONS_TOPIC = /\{[Tt]opic\}/;
const ATTEMPTS = 8;
const BULLETS = ['•', '-', '→'];
/** A check mark is an emoji on most phones: only for brands that use emoji. */
const BULLETS_WITH_EMOJI = [...BULLETS, '✔'];

function writeDraft(plan: Plan, index: number, contentType: ContentType): Draft {
  const topic = topicFor(plan, index);
  const family = FAMILIES[contentType] ?? 'scene';
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const composition = new Composition(plan, new Random(`${plan.campaignId}:${index}:${attempt}`), topic, family);
    // A template's sections are its point: cutting one to fit is left to the last attempts.
    const draft = composition.compose(attempt < ATTEMPTS - 2);
    if (draft) return draft;
  }
  return fallbackDraft(plan, topic, index);
}

/** One attempt at one slot's draft. */
class Composition {
  private readonly pieces: Piece[] = [];
  /** Placeholder values, by placeholder name. */
  private readonly vars: Record<string, string>;
  private readonly word: Word | null;

  constructor(
    private readonly plan: Plan,
    private readonly random: Random,
    private readonly topic: Topic,
    private readonly family: Family,
  ) {
    this.word = plan.vocabulary.length > 0 ? random.pick(plan.vocabulary) : null;
    this.vars = {
      topic: topic.display,
      Topic: topic.capitalised,
      brand: plan.brand ?? '',
      url: plan.url ?? '',
      audience: plan.audience ?? '',
      vocab: this.word?.text ?? '',
      Vocab: this.word?.capitalised ?? '',
      tip: '',
      n: String(3 + Math.floor(random.next() * 5)),
    };
  }

  compose(keepTemplateWhole: boolean): Draft | null {
    const { plan, random, phrases } = this;
    const template = plan.templates.length > 0 && random.chance(0.35) ? random.pick(plan.templates) : null;
    if (template) this.writeTemplate(template);
    else this.writeFreeform();

    // The brand's own words: before a template's closing call to action, or before ours.
    if (this.word && random.chance(0.65) && !this.says(this.word.text)) {
      const text = this.line(phrases.vocabLines);
      let at = this.pieces.length;
      while (template && at > 1 && this.pieces[at - 1].closing) at--;
      const before = at < this.pieces.length || random.chance(0.5) ? '\n\n' : ' ';
      if (text) this.pieces.splice(at, 0, makePiece(plan, text, 2, before));
    }
    if (!template) {
      this.add(this.energise(this.callToAction(), 0.7), 2, '\n\n');
      if (!plan.tone.brief && random.chance(0.3))
        this.add(this.line(phrases.questions), 1, random.chance(0.5) ? ' ' : '\n\n');
    }
    if (plan.tone.emoji && random.chance(0.6)) this.addEmoji();
    return fitDraft(plan, this.pieces, this.hashtags(), this.topic.label, template !== null && keepTemplateWhole);
  }

  private get phrases(): Phrases {
    return this.plan.phrases;
  }

  /** Opener, format line, message, and a tip, benefit, story or brand line. */
  private writeFreeform() {
    const { random, phrases, family } = this;
    // The opener: shaped by the format more often than not, now and then a question.
    const familyHooks = phrases.familyHooks[family];
    const useFamilyHook = familyHooks.length > 0 && (phrases.hooks.length === 0 || random.chance(0.55));
    const hooks = useFamilyHook
      ? familyHooks
      : phrases.topicQuestions.length > 0 && (phrases.hooks.length === 0 || random.chance(0.1))
        ? phrases.topicQuestions
        : phrases.hooks;
    // With bans that leave no opener at all, the message opens the post.
    const hookTemplate = hooks.length > 0 ? random.pick(hooks) : '';
    const hookNamesTopic = MENTIONS_TOPIC.test(hookTemplate);
    this.add(this.energise(fill(hookTemplate, this.vars), 0.85), 3, '');
    // A carousel or a slideshow always says it has slides to go through.
    const sequenced = family === 'carousel' || family === 'sequence';
    // A video says so more often than a photo or a text post needs to.
    const video = family === 'spoken' || family === 'video' || family === 'demo' || family === 'reel';
    if (sequenced ? !useFamilyHook : !useFamilyHook && random.chance(video ? 0.6 : 0.35)) {
      this.add(this.line(phrases.formatLines[family]), sequenced ? 3 : 1, ' ');
    }

    const extra = random.next();
    if (!this.plan.tone.brief && extra < 0.12) this.add(this.line(phrases.stories), 1, '\n\n');
    // The message names the topic when the opener did not, and mostly only then.
    const bodies = hookNamesTopic && random.chance(0.75) ? phrases.plainBodies : phrases.topicalBodies;
    if (random.next() < 0.22 && phrases.tips.length >= 4) {
      // A short list of tips: the steps a carousel or slideshow walks through, a text post's checklist.
      if (!hookNamesTopic) this.add(this.line(phrases.topicalBodies), 2, '\n\n');
      this.add(this.listOf(random.chance(0.5) ? 3 : 4, random.chance(0.5), random.chance(0.4)), 2, '\n\n');
    } else {
      this.add(this.line(bodies.length > 0 ? bodies : phrases.bodies), 2, random.chance(0.6) ? '\n\n' : ' ');
      if (extra >= 0.12 && extra < 0.45) this.add(this.tipLine(phrases.tipLines), 1, random.chance(0.5) ? '\n\n' : ' ');
      else if (extra >= 0.45 && extra < 0.75) this.add(this.energise(this.line(phrases.benefits), 0.4), 1, ' ');
      else if (extra >= 0.75 && extra < 0.9) this.add(this.line(phrases.brandLines), 1, ' ');
    }
  }

  /** The template's sections in its order, each as its own paragraph. */
  private writeTemplate(sections: Section[]) {
    const { random, phrases, family, plan } = this;
    // A carousel or slideshow says it has slides even when the template starts with something else.
    const sequenced = family === 'carousel' || family === 'sequence';
    if (sequenced && sections[0]?.kind !== 'hook') this.put(this.line(phrases.formatLines[family]), 3);
    for (const section of sections) {
      switch (section.kind) {
        case 'hook': {
          const ownHook = phrases.familyHooks[family].length > 0 && random.chance(0.6);
          this.put(this.energise(this.line(ownHook ? phrases.familyHooks[family] : phrases.hooks), 0.85), 3);
          if (!ownHook && sequenced) this.add(this.line(phrases.formatLines[family]), 3, ' ');
          break;
        }
        case 'list': {
          const list = this.listOf(section.count, section.numbered, false);
          const intro =
            section.label.startsWith('mistake') && phrases.mistakesIntro ? `${phrases.mistakesIntro}\n` : '';
          this.put(intro + list, 3);
          break;
        }
        case 'myth':
          if (phrases.myths.length > 0) {
            const [myth, fact] = random.pick(phrases.myths);
            this.put(`Myth: ${fill(myth, this.vars)}\nFact: ${fill(fact, this.vars)}`, 3);
          }
          break;
        case 'beforeAfter':
          if (phrases.beforeAfter.length > 0) {
            const [before, after] = random.pick(phrases.beforeAfter);
            this.put(`Before: ${before}\nAfter: ${after}`, 3);
          }
          break;
        case 'cta':
          this.put(this.energise(this.callToAction(), 0.7), 2, true);
          break;
        case 'urlCta':
          this.put(this.line(phrases.urlCtas.length > 0 ? phrases.urlCtas : phrases.ctas), 2, true);
          break;
        case 'question':
          this.put(this.line(phrases.questions), 2, true);
          break;
        case 'story':
          this.put(this.line(phrases.stories), 2);
          break;
        case 'problem':
          this.put(this.line(phrases.problems), 2);
          break;
        case 'solution':
          this.put(this.tipLine(phrases.solutions), 2);
          break;
        case 'benefit':
          this.put(this.energise(this.line(phrases.benefits), 0.4), 2);
          break;
        case 'recap':
          this.put(this.tipLine(phrases.recaps), 2);
          break;
        case 'community':
          this.put(this.line(phrases.community), 2);
          break;
        case 'fact':
          this.put(this.line(phrases.facts), 2);
          break;
        case 'body':
          this.put(this.line(plan.phrases.bodies), 2);
          break;
      }
    }
  }

  private add(text: string, keep: number, before: string, closing = false) {
    if (text) this.pieces.push(makePiece(this.plan, text, keep, before, closing));
  }

  /** A paragraph of its own. */
  private put(text: string, keep: number, closing = false) {
    this.add(text, keep, '\n\n', closing);
  }

  private line(list: readonly string[]): string {
    return list.length === 0 ? '' : fill(this.random.pick(list), this.vars);
  }

  private tipLine(list: readonly string[]): string {
    if (list.length === 0 || this.phrases.tipsInSentence.length === 0) return '';
    this.vars.tip = this.random.pick(this.phrases.tipsInSentence);
    return fill(this.random.pick(list), this.vars);
  }

  private says(text: string): boolean {
    for (const piece of this.pieces) if (piece.text.includes(text)) return true;
    return false;
  }

  /** A numbered or bulleted list of distinct tips, with an optional short intro. */
  private listOf(count: number, numbered: boolean, intro: boolean): string {
    const { random, phrases } = this;
    if (phrases.tips.length < 2) return '';
    const tips = random.shuffled(phrases.tips);
    const bullet = random.pick(this.plan.tone.emoji ? BULLETS_WITH_EMOJI : BULLETS);
    let text = '';
    if (intro) {
      const intros = count === 3 ? phrases.listIntros : phrases.listIntrosAnyCount;
      if (intros.length > 0) text = `${random.pick(intros)}\n`;
    }
    for (let i = 0; i < count && i < tips.length; i++)
      text += `${i > 0 ? '\n' : ''}${numbered ? `${i + 1}.` : bullet} ${tips[i]}`;
    return text;
  }

  /** A call to action: sometimes to the website, sometimes to the audience or by brand name. */
  private callToAction(): string {
    const { phrases } = this;
    const roll = this.random.next();
    const from =
      roll < 0.22 && phrases.urlCtas.length > 0
        ? phrases.urlCtas
        : roll < 0.42 && phrases.audienceCtas.length > 0
          ? phrases.audienceCtas
          : roll < 0.55 && phrases.brandCtas.length > 0
            ? phrases.brandCtas
            : phrases.ctas;
    return this.line(from);
  }

  /** Exclamation marks for a high-energy brand; a calm or neutral one keeps its full stops. */
  private energise(text: string, probability: number): string {
    const { tone } = this.plan;
    if (!tone.exclamations || !text.endsWith('.') || text.endsWith('..')) return text;
    const likelihood = tone.energy >= 8 ? probability : tone.energy >= 7 ? probability * 0.8 : probability * 0.35;
    return this.random.chance(likelihood) ? `${text.slice(0, -1)}!` : text;
  }

  /** An emoji at the end of the opening paragraph, not between the opener and the line continuing it. */
  private addEmoji() {
    const { random, phrases, pieces } = this;
    const emoji = random.pick(random.chance(0.5) ? phrases.emoji[this.family] : phrases.emoji.any);
    let last = 0;
    while (last + 1 < pieces.length && pieces[last + 1].before === ' ') last++;
    const piece = pieces[last];
    if (piece) pieces[last] = makePiece(this.plan, `${piece.text} ${emoji}`, piece.keep, piece.before, piece.closing);
  }

  /**
   * The strategy's first named tag (usually the branded one), the topic's tag, then the rest of the
   * named tags, the brand, industry and vocabulary in a shuffled order, and the format's generic
   * tags to fill up to the count.
   */
  private hashtags(): string[] {
    const { plan, random, topic } = this;
    const [low, high] = plan.tagRule.count;
    const count = low + Math.floor(random.next() * (high - low + 1));
    if (count === 0) return [];
    const lead: (string | null | undefined)[] = [plan.namedTags[0], topic.tags[0]];
    if (plan.tagRule.branded || (plan.namedTags.length === 0 && random.chance(0.7))) lead.push(plan.brandTag);
    const pool: (string | null | undefined)[] = plan.namedTags.slice(1);
    for (let i = 1; i < topic.tags.length; i++) pool.push(topic.tags[i]);
    pool.push(plan.industryTag, plan.brandTag, random.chance(0.5) ? this.word?.tag : null);
    const ordered = lead.concat(random.shuffled(pool), random.shuffled(plan.familyTags[this.family]));
    const tags: string[] = [];
    const keys: string[] = [];
    for (const tag of ordered) {
      if (!tag) continue;
      // Every tag was seen when the plan was made; its key is the case-folded spelling.
      const key = plan.tagKeys.get(tag) ?? tag.toLowerCase();
      if (keys.includes(key)) continue;
      keys.push(key);
      tags.push(tag);
      if (tags.length === count) break;
    }
    return tags;
  }
}

/** Placeholders filled from `vars`, without a replacer callback (see the note above `Piece`). */
function fill(template: string, vars: Record<string, string>): string {
  let open = template.indexOf('{');
  if (open < 0) return template;
  let text = '';
  let from = 0;
  while (open >= 0) {
    const close = template.indexOf('}', open);
    if (close < 0) break;
    text += template.slice(from, open) + (vars[template.slice(open + 1, close)] ?? '');
    from = close + 1;
    open = template.indexOf('{', from);
  }
  return text + template.slice(from);
}

function render(pieces: readonly Piece[]): string {
  let text = '';
  for (const piece of pieces) {
    if (text.length === 0) text = piece.text;
    // After a list or a link, a sentence on the same line would read as part of it.
    else text += piece.before === ' ' && !SENTENCE_END.test(text) ? `\n\n${piece.text}` : piece.before + piece.text;
  }
  return text;
}

const SENTENCE_END = /[.!?:)\p{Extended_Pictographic}\uFE0F]$/u;
const NON_ASCII = /[^\p{ASCII}]/u;

/**
 * The pieces and hashtags as a draft that fits every platform and says nothing banned, dropping
 * optional pieces first, then hashtags down to the fewest the brand wants, then wanted pieces
 * (unless `keepWanted`), then the remaining hashtags; null when even the essentials do not fit or
 * a ban slipped in across a join.
 */
function fitDraft(
  plan: Plan,
  pieces: Piece[],
  hashtags: string[],
  topicLabel: string | null,
  keepWanted = false,
): Draft | null {
  const parts: Piece[] = [];
  for (const piece of pieces) if (piece.text.trim().length > 0) parts.push(piece);
  if (parts.length === 0) return null;
  const tags = hashtags;
  // The fewest the brand asked for (or the default two) go only after every wanted piece.
  const tagFloor = Math.min(tags.length, plan.tagRule.count[0]);
  const tagWeights: { upper: number; lower: number }[] = [];
  for (const tag of tags) tagWeights.push(xWeightBounds(tag));
  for (;;) {
    // The pieces are NFC and separated by whitespace, so their bounds add up; a separator weighs 1
    // or 2, and the hashtags add a blank line and "#tag" words.
    let upper = 0;
    let lower = 0;
    for (let i = 0; i < parts.length; i++) {
      upper += parts[i].upper + (i > 0 ? 2 : 0);
      lower += parts[i].lower + (i > 0 ? parts[i].before.length : 0);
    }
    // "\n\n#one #two": a blank line, a # per tag, a space between tags.
    if (tags.length > 0) {
      upper += 1;
      lower += 1;
    }
    for (let i = 0; i < tags.length; i++) {
      upper += tagWeights[i].upper + 2;
      lower += tagWeights[i].lower + 2;
    }
    if (lower <= X_LIMIT) {
      const caption = render(parts).trim();
      if (upper <= X_LIMIT || xWeightedLength(postText(caption, tags)) <= X_LIMIT) {
        const draft = {
          caption,
          hashtags: tags,
          topic: topicLabel === null ? null : clip(topicLabel, MAX_TOPIC_LENGTH),
        };
        return saysNothingBanned(plan, draft) ? draft : null;
      }
    }
    if (dropWeakest(parts, 1)) continue;
    if (tags.length > tagFloor) {
      tags.pop();
      tagWeights.pop();
      continue;
    }
    if (keepWanted) return null;
    if (dropWeakest(parts, 2)) continue;
    if (tags.length > 0) {
      tags.pop();
      tagWeights.pop();
      continue;
    }
    if (dropWeakest(parts, 3)) continue;
    return null;
  }
}

/** Removes the last of the least-kept pieces at or under `atMost` (never the opener). */
function dropWeakest(parts: Piece[], atMost: number): boolean {
  let weakest = -1;
  for (let i = parts.length - 1; i > 0; i--) {
    if (parts[i].keep <= atMost && (weakest < 0 || parts[i].keep < parts[weakest].keep)) weakest = i;
  }
  if (weakest < 0) return false;
  parts.splice(weakest, 1);
  return true;
}

/** The check `draftProblems` makes for bans, on the same text: caption, hashtags and topic. */
function saysNothingBanned(plan: Plan, draft: Draft): boolean {
  if (plan.bans === null) return true;
  const said = `${draft.caption}\n${draft.hashtags.join(' ')}\n${draft.topic ?? ''}`.toLowerCase();
  return !plan.bans.test(said);
}

/**
 * When eight compositions all failed (a very long topic, or bans that catch nearly everything):
 * the plainest captions that can still be posted, then an error rather than a draft that breaks
 * the brand's rules.
 */
function fallbackDraft(plan: Plan, topic: Topic, index: number): Draft {
  const label = topic.label === null ? null : clip(topic.label, MAX_TOPIC_LENGTH);
  const candidates = [
    `${capitalise(clip(topic.display, 200))}.`,
    plan.brand ? `${plan.brand}.` : '',
    ...plan.phrases.plainBodies,
    ...plan.phrases.benefits,
    'New post.',
    'More soon.',
  ];
  for (const caption of candidates) {
    if (!caption || caption === '.') continue;
    for (const draft of [
      { caption, hashtags: topic.tags.slice(0, 1), topic: label },
      { caption, hashtags: [], topic: label },
      { caption, hashtags: [], topic: null },
    ]) {
      if (fitsEveryPlatform(postText(draft.caption, draft.hashtags), plan.link) && saysNothingBanned(plan, draft))
        return draft;
    }
  }
  throw new Error(`the built-in generator cannot write slot ${index} without a forbidden word or avoided topic`);
}
