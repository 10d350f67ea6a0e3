/**
 * Rich text: Bluesky shows links, mentions and hashtags only where the post's `facets` say, each
 * over a range of the text's UTF-8 bytes (not characters: an emoji before a link moves the link by 4
 * bytes, by 2 UTF-16 units). Mentions name the account by DID, so each handle is resolved first; a
 * handle that resolves to no account stays plain text.
 */

export type FacetFeature =
  | { $type: 'app.bsky.richtext.facet#link'; uri: string }
  | { $type: 'app.bsky.richtext.facet#mention'; did: string }
  | { $type: 'app.bsky.richtext.facet#tag'; tag: string };

export interface Facet {
  index: { byteStart: number; byteEnd: number };
  features: [FacetFeature];
}

/** What the text holds, before mentions are resolved: ranges in UTF-16 indices of the string. */
interface Span {
  start: number;
  end: number;
  feature: { kind: 'link'; uri: string } | { kind: 'mention'; handle: string } | { kind: 'tag'; tag: string };
}

const LINK = /https?:\/\/[^\s<>"]+/g;
/** A handle: domain labels (letters, digits, inner hyphens) with at least one dot, after a space, `(` or the start. */
const MENTION = /(^|[\s(])(@([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+))/gi;
/**
 * Bluesky's own tag rule (`@atproto/api`'s TAG_REGEX): after a space or the start, `#` or `＃`, then a
 * run of characters up to a space or an invisible joiner, holding at least one that is neither a
 * digit nor punctuation (so `#2026` and `#?` are no tags). A `#` followed by U+FE0F or U+20E3 is the
 * keycap emoji #️⃣, not a tag.
 */
const HASHTAG =
  // eslint-disable-next-line no-misleading-character-class -- the joiners are listed one by one, on purpose
  /(^|\s)([#＃](?![\uFE0F\u20E3])([^\s\u00AD\u2060\u200A\u200B\u200C\u200D\u20E2]*[^\d\s\p{P}\u00AD\u2060\u200A\u200B\u200C\u200D\u20E2][^\s\u00AD\u2060\u200A\u200B\u200C\u200D\u20E2]*))/gu;
/** Any punctuation at a tag's end (a full stop, a dash, a closing quote or guillemet) ends the sentence, not the tag. */
const TAG_TRAILING_PUNCTUATION = /\p{P}+$/u;
/** Bluesky's longest tag, in graphemes. */
const MAX_TAG_LENGTH = 64;
// Counted here rather than with rules.ts's graphemeLength: rules.ts reads every platform's entry, this one's too.
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
const graphemeLength = (text: string) => [...graphemes.segment(text)].length;

function spansIn(text: string): Span[] {
  const spans: Span[] = [];
  for (const match of text.matchAll(LINK)) {
    const uri = withoutTrailingPunctuation(match[0]);
    if (uri.length > 'https://'.length)
      spans.push({ start: match.index, end: match.index + uri.length, feature: { kind: 'link', uri } });
  }
  for (const match of text.matchAll(MENTION)) {
    const start = match.index + match[1]!.length;
    spans.push({ start, end: start + match[2]!.length, feature: { kind: 'mention', handle: match[3]!.toLowerCase() } });
  }
  for (const match of text.matchAll(HASHTAG)) {
    const tag = match[3]!.replace(TAG_TRAILING_PUNCTUATION, '');
    if (tag === '' || graphemeLength(tag) > MAX_TAG_LENGTH) continue;
    const start = match.index + match[1]!.length;
    spans.push({ start, end: start + 1 + tag.length, feature: { kind: 'tag', tag } });
  }
  // A span inside a link (a `#fragment`, an `@` in a path) is part of the link.
  const links = spans.filter((span) => span.feature.kind === 'link');
  return spans
    .filter(
      (span) => span.feature.kind === 'link' || !links.some((link) => span.start < link.end && span.end > link.start),
    )
    .sort((a, b) => a.start - b.start);
}

/** The handles mentioned in `text`, each once. */
export function mentionedHandles(text: string): string[] {
  return [...new Set(spansIn(text).flatMap((span) => (span.feature.kind === 'mention' ? [span.feature.handle] : [])))];
}

/**
 * The facets of `text`, with byte ranges. `didOf` answers a mentioned handle's DID, or null when it
 * names no account (that mention gets no facet).
 */
export function facetsOf(text: string, didOf: (handle: string) => string | null): Facet[] {
  const bytesBefore = (index: number) => Buffer.byteLength(text.slice(0, index), 'utf8');
  const facets: Facet[] = [];
  for (const span of spansIn(text)) {
    let feature: FacetFeature;
    if (span.feature.kind === 'link') feature = { $type: 'app.bsky.richtext.facet#link', uri: span.feature.uri };
    else if (span.feature.kind === 'tag') feature = { $type: 'app.bsky.richtext.facet#tag', tag: span.feature.tag };
    else {
      const did = didOf(span.feature.handle);
      if (did === null) continue;
      feature = { $type: 'app.bsky.richtext.facet#mention', did };
    }
    facets.push({ index: { byteStart: bytesBefore(span.start), byteEnd: bytesBefore(span.end) }, features: [feature] });
  }
  return facets;
}

/** Punctuation that ends a sentence rather than belonging to a link written before it. */
const SENTENCE_END = /[.,;:!?'"…»”’]$/u;
const CLOSING = { ')': '(', ']': '[', '}': '{' } as const;

/**
 * The link without what the sentence put after it: a full stop, a comma, a quote, and a closing
 * bracket that closes none opened inside the link. So `(see https://example.com/a)` links
 * `https://example.com/a`, while `https://en.wikipedia.org/wiki/Rust_(programming_language)` keeps
 * its `)`, and so does it inside parentheses of its own.
 */
function withoutTrailingPunctuation(uri: string): string {
  for (;;) {
    const last = uri.at(-1)!;
    if (SENTENCE_END.test(last)) {
      uri = uri.slice(0, -1);
      continue;
    }
    const opening = CLOSING[last as keyof typeof CLOSING];
    if (opening && count(uri, last) > count(uri, opening)) {
      uri = uri.slice(0, -1);
      continue;
    }
    return uri;
  }
}

const count = (text: string, char: string) => text.split(char).length - 1;
