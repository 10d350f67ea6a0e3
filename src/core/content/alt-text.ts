import { fieldError } from '../errors.ts';
import type { ContentRow } from './serialize.ts';

/*
 * An item's own alt text (media_alt_text), keyed by the media URL it describes: it must name media
 * the item attaches, and an entry whose media is detached by an edit goes with it.
 */

/** Every media URL the item attaches: its own and any platform's override. */
export function attachedMedia(
  mediaUrls: readonly string[],
  platformSpecific: ContentRow['platformSpecific'],
): Set<string> {
  return new Set([...mediaUrls, ...Object.values(platformSpecific).flatMap((override) => override.media_urls ?? [])]);
}

/** The item's alt text, refused when an entry names media the item does not attach (a typo would go unseen). */
export function checkedAltText(given: Record<string, string>, attached: Set<string>): Record<string, string> {
  const stray = Object.keys(given).find((url) => !attached.has(url));
  if (stray !== undefined) {
    throw fieldError(
      'media_alt_text',
      `${stray} is not one of the item's media_urls (nor of a platform's in platform_specific): key the alt text by the media URL it describes.`,
    );
  }
  return given;
}

export const withoutDetached = (altText: Record<string, string>, attached: Set<string>): Record<string, string> =>
  Object.fromEntries(Object.entries(altText).filter(([url]) => attached.has(url)));
