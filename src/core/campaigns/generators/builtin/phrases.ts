import { lowerFirst } from './brand-material.ts';
import { book, FAMILY_NAMES, type Family, type Phrase } from './phrasebook.ts';
import { toneAllows, writeOutContractions, type Tone } from './tone.ts';

/** The phrasebook's phrases one brand may use, as the composition picks from them. */
export interface Phrases {
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

/** Which placeholders the brand can fill; the others ({tip}, {n}) always can be. */
export interface Fillable {
  brand: boolean;
  url: boolean;
  audience: boolean;
  vocab: boolean;
  topic: boolean;
}

const PLACEHOLDER = /\{(\w+)\}/g;
export const MENTIONS_TOPIC = /\{[Tt]opic\}/;

function canFill(key: string, fillable: Fillable): boolean {
  if (key === 'brand' || key === 'url' || key === 'audience') return fillable[key];
  if (key === 'vocab' || key === 'Vocab') return fillable.vocab;
  if (key === 'topic' || key === 'Topic') return fillable.topic;
  return true;
}

/**
 * The phrases a brand may use: those its tone allows, whose placeholders it can fill, and with no
 * ban in their own words (what fills the placeholders is checked in the finished caption).
 */
export function preparePhrases(tone: Tone, bans: RegExp | null, fillable: Fillable): Phrases {
  const usable = (list: readonly Phrase[]): string[] => {
    const out: string[] = [];
    for (const phrase of list) {
      if (!toneAllows(phrase.tone, tone)) continue;
      let text = phrase.text;
      let filled = true;
      for (const match of text.matchAll(PLACEHOLDER)) if (!canFill(match[1]!, fillable)) filled = false;
      if (!filled) continue;
      if (tone.formality >= 7) text = writeOutContractions(text);
      if (bans !== null && bans.test(text.replace(PLACEHOLDER, ' ').toLowerCase())) continue;
      out.push(text);
    }
    return out;
  };
  const usablePairs = (pairs: readonly (readonly [Phrase, Phrase])[]) =>
    pairs
      .filter(([a, b]) => usable([a]).length === 1 && usable([b]).length === 1)
      .map(([a, b]) => [usable([a])[0]!, usable([b])[0]!] as const);
  const perFamily = (source: Readonly<Record<Family, readonly Phrase[]>>) =>
    Object.fromEntries(FAMILY_NAMES.map((family) => [family, usable(source[family])])) as Record<Family, string[]>;
  const naming = (list: readonly Phrase[], topic: boolean) =>
    list.filter((phrase) => MENTIONS_TOPIC.test(phrase.text) === topic);

  return {
    hooks: usable(book.genericHooks),
    familyHooks: perFamily(book.familyHooks),
    formatLines: perFamily(book.formatLines),
    bodies: usable(book.bodies),
    tips: usable(book.tips),
    tipsInSentence: usable(book.tips).map(lowerFirst),
    tipLines: usable(book.tipLines),
    benefits: usable(book.benefits),
    stories: usable(book.stories),
    ctas: usable(book.genericCtas),
    urlCtas: usable(book.urlCtas),
    audienceCtas: usable(book.audienceCtas),
    brandCtas: usable(book.brandCtas),
    questions: usable(book.questions),
    vocabLines: usable(book.vocabLines),
    brandLines: usable(book.brandLines),
    myths: usablePairs(book.myths.map(({ myth, fact }) => [myth, fact] as const)),
    beforeAfter: usablePairs(book.beforeAfter.map(({ before, after }) => [before, after] as const)),
    problems: usable(book.problems),
    recaps: usable(book.recapLines),
    solutions: usable(book.solutionLines),
    community: usable(book.communityLines),
    facts: usable(book.factLines),
    listIntros: usable(book.listIntros),
    listIntrosAnyCount: usable(book.listIntros.filter((intro) => !/\b(three|3)\b/i.test(intro.text))),
    mistakesIntro: usable([book.mistakesIntro])[0] ?? null,
    topicalBodies: usable(naming(book.bodies, true)),
    plainBodies: usable(naming(book.bodies, false)),
    topicQuestions: usable(naming(book.questions, true)),
    emoji: {
      any: [...book.emoji.any],
      ...(Object.fromEntries(FAMILY_NAMES.map((family) => [family, [...book.emoji[family]]])) as Record<
        Family,
        string[]
      >),
    },
  };
}
