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
const HASHTAG = /(^|\s)([#＃]([^\s#＃]+))/gu;
/** Punctuation that ends a sentence rather than belonging to a link or tag written before it. */
const TRAILING_PUNCTUATION = /[.,;:!?)\]}'"…]+$/u;
/** Bluesky's longest tag, in characters. */
const MAX_TAG_LENGTH = 64;

function spansIn(text: string): Span[] {
  const spans: Span[] = [];
  for (const match of text.matchAll(LINK)) {
    const uri = match[0].replace(TRAILING_PUNCTUATION, '');
    if (uri.length > 'https://'.length)
      spans.push({ start: match.index, end: match.index + uri.length, feature: { kind: 'link', uri } });
  }
  for (const match of text.matchAll(MENTION)) {
    const start = match.index + match[1]!.length;
    spans.push({ start, end: start + match[2]!.length, feature: { kind: 'mention', handle: match[3]!.toLowerCase() } });
  }
  for (const match of text.matchAll(HASHTAG)) {
    const tag = match[3]!.replace(TRAILING_PUNCTUATION, '');
    if (tag === '' || /^\d+$/.test(tag) || [...tag].length > MAX_TAG_LENGTH) continue;
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
