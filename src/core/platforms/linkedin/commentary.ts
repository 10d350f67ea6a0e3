/**
 * A post's text in LinkedIn's "little" text format, the format of the Posts API's `commentary`.
 *
 * little reserves `\ < > # ~ _ | [ ] * ( ) { } @` for its elements (mentions, hashtags, templates).
 * Sent raw, a reserved character is read as markup: LinkedIn then drops or truncates the rest of the
 * text, and the post goes out cut short without any error. So every reserved character the user wrote
 * is backslash-escaped and shows as itself.
 *
 * Hashtags are the exception, on purpose. An escaped `\#launch` is plain text, not a hashtag, yet the
 * service's posts end with their `#tag` words precisely so that they work as hashtags. A `#` that
 * starts a word (letters, digits, underscores, not glued to a preceding word) is therefore sent as
 * LinkedIn's documented hashtag template, `{hashtag|\#|launch}`, which renders as a clickable
 * #launch. The sign inside the template is escaped too: LinkedIn asks for every reserved character
 * to be escaped, even inside an element, and the escaped sign is what LinkedIn's own examples and
 * current integrations send. The same holds for a `_` inside the tag's word.
 *
 * Mentions (`@[Name](urn:li:person:…)`) are not produced: the service has no member URNs to mention,
 * so an `@name` in a caption stays plain text.
 */

const RESERVED = /[\\<>#~_|[\]*(){}@]/g;

/** A `#` at the start of a word, then the tag's word (Unicode letters and marks, digits, `_`). */
const HASHTAG_WORD = /(?<![\p{L}\p{M}\p{N}_])#([\p{L}\p{M}\p{N}_]+)/gu;

/** `text` as little plain text: every reserved character backslash-escaped. */
export function escapeLittleText(text: string): string {
  return text.replace(RESERVED, (character) => `\\${character}`);
}

/** The `commentary` for a post's text: escaped, with its `#tag` words as hashtag templates. */
export function linkedInCommentary(text: string): string {
  let commentary = '';
  let copiedUpTo = 0;
  for (const match of text.matchAll(HASHTAG_WORD)) {
    commentary += escapeLittleText(text.slice(copiedUpTo, match.index));
    commentary += `{hashtag|\\#|${escapeLittleText(match[1]!)}}`;
    copiedUpTo = match.index + match[0].length;
  }
  return commentary + escapeLittleText(text.slice(copiedUpTo));
}
