import { PLATFORM_RULES, xWeightBounds, xWeightedLength } from '../../../platforms/rules.ts';

// Length: X's weighted count is the tightest limit of all platforms, and twitter-text's parser is
// slow (tens of microseconds), so an upper bound decides most drafts and the parser only the rare
// one near the limit.

export const X_LIMIT = PLATFORM_RULES.twitter.maxText;

/**
 * Whether the text as posted fits X (and so every platform). The brand's website, which captions
 * carry between spaces or at a line's end, weighs what X makes of it alone: X finds a link the same
 * way whatever whitespace surrounds it.
 */
export function fitsEveryPlatform(text: string, link: KnownLink | null): boolean {
  const { upper, lower } = linkAwareBounds(text, link);
  if (upper <= X_LIMIT) return true;
  if (lower > X_LIMIT) return false;
  return xWeightedLength(text) <= X_LIMIT;
}

export function linkAwareBounds(text: string, link: KnownLink | null): { upper: number; lower: number } {
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

export interface KnownLink {
  url: string;
  weight: number;
}

export function knownLink(url: string | null): KnownLink | null {
  return url ? { url, weight: xWeightedLength(url) } : null;
}
