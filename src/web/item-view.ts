import type { Runtime } from '../core/context.ts';
import type { ReviewItem } from '../core/content/review.ts';
import type { SignedIn } from '../core/people/sessions.ts';
import { statusWord } from '../core/content/words.ts';
import { fmt, titleOf } from './format.ts';
import { itemActionsOf } from './item-actions.ts';
import { renderHashtagLine, renderMediaStrip, renderPreviewCard } from './preview/platform-preview.ts';

type Cards = { shared: string; cards: string };

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((value, i) => value === b[i]);

/**
 * An item as the list rows and the item page show it, with its preview cards. In a list, the media
 * and the hashtags every platform gets alike are shown once above the cards instead of once per
 * card, and the cards stop at each platform's fold (the whole caption is above them).
 */
export function itemViews(runtime: Runtime) {
  // Images load from the service alone (its uploads, img-src in session.ts); media kept elsewhere are links.
  const mediaOrigin = new URL(runtime.config.publicBaseUrl).origin;
  const renderCards = (previews: ReviewItem['previews'], inList: boolean): Cards => {
    const first = inList ? previews[0] : undefined;
    const mediaAlike = first !== undefined && previews.every((p) => sameList(p.mediaUrls, first.mediaUrls));
    const hashtagsAlike = first !== undefined && previews.every((p) => sameList(p.hashtags, first.hashtags));
    return {
      shared:
        (mediaAlike ? renderMediaStrip(first.mediaUrls, first.mediaAltText, mediaOrigin) : '') +
        (hashtagsAlike ? renderHashtagLine(first.hashtags) : ''),
      cards: previews
        .map((p) =>
          renderPreviewCard(p, {
            showMedia: !mediaAlike,
            showHashtags: !hashtagsAlike,
            compact: inList,
            ownOrigin: mediaOrigin,
          }),
        )
        .join(''),
    };
  };
  const listPreviews = new WeakMap<ReviewItem['previews'], Uint8Array>();
  /*
   * A list row's previews, encoded: core keeps an unchanged item's previews (the same object from
   * one reload to the next), so their cards are rendered and encoded once, and each page copies the
   * bytes. They are most of a row, and encoding them was most of sending the page.
   */
  const previewsInList = (previews: ReviewItem['previews']) => {
    let encoded = listPreviews.get(previews);
    if (!encoded) {
      const { shared, cards } = renderCards(previews, true);
      encoded = Buffer.from(`${shared}<div class="cards">${cards}</div>`);
      listPreviews.set(previews, encoded);
    }
    return encoded;
  };
  const common = (who: SignedIn, row: ReviewItem['row']) => ({
    id: row.id,
    title: titleOf(row),
    caption: row.caption,
    status: row.status,
    statusLabel: statusWord(row.status, row.publishQueued),
    created: fmt(who, row.createdAt),
    scheduled: fmt(who, row.scheduledFor),
    reviewNote: row.reviewNote,
    actions: itemActionsOf(runtime, who, row),
  });
  return {
    /** The item page's view: its cards in full. */
    page: (who: SignedIn, { row, previews }: ReviewItem) => ({
      ...common(who, row),
      cards: renderCards(previews, false).cards,
    }),
    /** A list row's view: its previews as the row shows them, encoded (the row's view puts ROW_PREVIEWS_SLOT for them). */
    row: (who: SignedIn, { row, previews }: ReviewItem) => ({
      ...common(who, row),
      previews: previewsInList(previews),
    }),
  };
}

/** Where a list row's view (item-row.eta) has the row's previews, sent as the bytes `itemViews().row` gives. */
export const ROW_PREVIEWS_SLOT = '<!--previews-->';
