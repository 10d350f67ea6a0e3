/** A string matched literally inside a regular expression. */
export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]+/u;

/** The lower-cased words of `phrase`: its runs of letters and digits. */
function wordsOf(phrase: string): string[] {
  return phrase.trim().toLowerCase().split(NOT_LETTER_OR_DIGIT).filter(Boolean);
}

/**
 * The ways `words` may be written: apart, with anything but letters and digits between them ("no
 * filter", "no-filter"), and joined ("nofilter", so #NoFilter too). A single word is one way.
 */
function spellingsOf(words: readonly string[]): string[] {
  const apart = words.map(escapeRegExp).join('[^\\p{L}\\p{N}]+');
  return words.length === 1 ? [apart] : [apart, escapeRegExp(words.join(''))];
}

/** Any of `alternatives` standing as whole words: no letter or digit just before or after. */
const asWholeWords = (alternatives: readonly string[]) =>
  new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, 'u');

/** A compiled phrase match; `matches` tests lower-cased text. */
export interface PhraseMatch {
  phrase: string;
  matches(lowerCasedText: string): boolean;
}

/**
 * `phrase` as whole words, ignoring case, apart or joined: a hashtag counts (#NoFilter mentions "no
 * filter" and "nofilter"), so a banned phrase cannot be slipped in as a tag. A phrase with no word
 * matches nothing.
 */
export function phraseMatch(phrase: string): PhraseMatch {
  const words = wordsOf(phrase);
  if (words.length === 0) return { phrase, matches: () => false };
  const pattern = asWholeWords(spellingsOf(words));
  // Cheap first: a text without the first word's letters cannot match either spelling.
  const first = words[0]!;
  return { phrase, matches: (text) => text.includes(first) && pattern.test(text) };
}

/**
 * One expression matching lower-cased text that mentions any of `phrases` (as `phraseMatch` reads
 * each), or null when none has a word: one test instead of one per phrase, for hot loops.
 */
export function anyPhrasePattern(phrases: readonly string[]): RegExp | null {
  const alternatives = new Set<string>();
  for (const phrase of phrases) {
    const words = wordsOf(phrase);
    if (words.length > 0) for (const spelling of spellingsOf(words)) alternatives.add(spelling);
  }
  if (alternatives.size === 0) return null;
  // Longest first, so a phrase is tried before a word it starts with; the result is the same either way.
  return asWholeWords([...alternatives].sort((a, b) => b.length - a.length));
}
