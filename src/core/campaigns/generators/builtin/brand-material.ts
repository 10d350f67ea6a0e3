import { book } from './phrasebook.ts';

// The brand's own material, cleaned once per request

const HASH_SIGNS = /[#＃]/g;
export const SPACES = /\s+/g;

/** A brand-supplied phrase as it may appear in a caption: NFC, one line, no hashtag signs. */
export function cleanPhrase(text: string | null | undefined): string {
  if (!text) return '';
  return text.normalize('NFC').replace(HASH_SIGNS, '').replace(SPACES, ' ').trim();
}

/**
 * A noun phrase for the middle of a sentence: "Meal prep" becomes "meal prep", but "AI tools",
 * "iPhone tips" and "Gen Z" keep their capitals (acronyms, brand spellings, proper nouns).
 */
export function asMidSentence(phrase: string): string {
  const words = phrase.split(' ');
  const first = words[0];
  if (first.length < 2 || first !== first[0] + first.slice(1).toLowerCase()) return phrase;
  if (words.slice(1).some((word) => /^\p{Lu}/u.test(word))) return phrase;
  return first[0].toLowerCase() + phrase.slice(1);
}

export const lowerFirst = (text: string) =>
  /^\p{Lu}\p{Ll}/u.test(text) ? text[0].toLowerCase() + text.slice(1) : text;

export function capitalise(text: string): string {
  if (text.length === 0) return text;
  // "iPhone" stays "iPhone".
  if (text.length > 1 && /^\p{Ll}\p{Lu}/u.test(text)) return text;
  return text[0].toUpperCase() + text.slice(1);
}

/** The text up to `max` characters, cut at a word boundary and not on a dangling "and" or "of". */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max + 1);
  const space = cut.lastIndexOf(' ');
  return (space > max / 2 ? cut.slice(0, space) : text.slice(0, max)).replace(DANGLING_END, '');
}
const DANGLING_END = /(?:[\s,;:–—-]+(?:and|or|of|the|a|an|to|for|with|in|on|at|by|including|from))*[\s,;:–—-]*$/iu;

/** A short audience phrase ("small business owners") from a possibly long description of it. */
export function shortAudience(text: string): string | null {
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
const GENERIC_AUDIENCES: ReadonlySet<string> = new Set(book.genericAudiences);

const LEADING_VERBS =
  /^(?:(?:promote|promoting|launch|launching|announce|announcing|showcase|showcasing|highlight|highlighting|share|sharing|introduce|introducing|celebrate|celebrating|drive|driving|build|building|grow|growing|increase|increasing|boost|boosting|raise|raising|market|marketing|sell|selling|advertise|advertising|feature|featuring|educate|educating|teach|teaching|explain|explaining|tell|about|all about|posts? about|content about|a campaign (?:about|for|on)|campaign (?:about|for|on))\s+)+(?:(?:our|the|a|an|people on|people about|awareness (?:of|about|for))\s+)*/i;

/** A topic from a campaign description: its first clause without the marketing verb in front. */
export function topicFromDescription(description: string | null): string | null {
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
