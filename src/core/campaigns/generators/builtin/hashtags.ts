import { isGeneratedHashtag, MAX_GENERATED_HASHTAGS } from '../../generator.ts';
import { capitalise, SPACES } from './brand-material.ts';
import { book } from './phrasebook.ts';

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
const NOT_TAGS: ReadonlySet<string> = new Set(book.notTags);
const BRANDED = /\bbrand(?:ed)?\b|\bcompany\b|\bour name\b/i;
/** Longer generated tags read as run-on words. */
const MAX_TAG_LENGTH = 30;

/** A count written in digits or words ("3", "three", "a"); 3 for a word that is not one ("few"). */
export const toCount = (word: string) => (/^\d+$/.test(word) ? Number(word) : (NUMBER_WORDS[word.toLowerCase()] ?? 3));

export interface TagRule {
  /** How many tags a post gets, [fewest, most]; a post too long for X loses tags only down to the fewest before it loses a wanted line. */
  count: [number, number];
  /** Tags the strategy names, in its order. */
  named: string[];
  branded: boolean;
}

/** What the hashtag strategy asks for: "3 hashtags", "a few", "no hashtags", "#Acme on every post"… */
export function readHashtagStrategy(strategy: string | null): TagRule {
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
export function toTag(phrase: string): string {
  const words = phrase
    .normalize('NFC')
    .split(/[^\p{L}\p{N}_]+/u)
    .filter(Boolean);
  return words.map((word) => capitalise(word)).join('');
}

const STOPWORDS: ReadonlySet<string> = new Set(book.stopwords);

/**
 * The topic as one tag, then its head noun: "sustainable packaging" → SustainablePackaging,
 * Packaging. A long topic gives its last two words ("new eco-friendly water bottles" → WaterBottles).
 */
export function topicTags(topic: string): string[] {
  const words = topic.split(/[^\p{L}\p{N}_]+/u).filter(Boolean);
  const significant = words.filter((word) => !STOPWORDS.has(word.toLowerCase()));
  const tags = [toTag((words.length > 3 && significant.length >= 2 ? significant.slice(-2) : words).join(' '))];
  const head = [...words].reverse().find((word) => word.length >= 4 && !STOPWORDS.has(word.toLowerCase()));
  if (head && head.length >= 5 && words.length > 1) tags.push(capitalise(head));
  return tags;
}

/** `tag` when a generated post may carry it: a valid tag, not too long, saying nothing banned; else null. */
export function usableTag(tag: string | null, bans: RegExp | null): string | null {
  return tag &&
    isGeneratedHashtag(tag) &&
    tag.length <= MAX_TAG_LENGTH &&
    (bans === null || !bans.test(tag.toLowerCase()))
    ? tag
    : null;
}
