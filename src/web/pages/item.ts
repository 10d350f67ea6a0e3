import { Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import { reviewContent, type ReviewItem } from '../../core/content/review.ts';
import type { ContentRow } from '../../core/content/serialize.ts';
import { fmt, noticeOf, titleOf } from '../format.ts';
import { itemViews } from '../item-view.ts';
import { isPlatform, PLATFORM_NAMES } from '../../core/platforms/registry.ts';
import { foundOr404, type PageKit } from './kit.ts';

/** /app/content/:id: one item with its previews, what was published where, its history, and its review forms. */
export function itemPage(runtime: Runtime, kit: PageKit): Router {
  const router = Router();
  const itemView = itemViews(runtime);
  router.get('/content/:id', async (req, res) => {
    const who = kit.signedIn(req, res);
    if (!who) return;
    const item = await foundOr404(
      kit,
      res,
      () =>
        kit.run<{
          row: ContentRow;
          previews: ReviewItem['previews'];
          history: Array<{ action: string; by: string; note: string | null; at: Date }>;
        }>(who, reviewContent, { id: req.params.id }),
      { message: 'There is no such item in this workspace.', back: { href: '/app/inbox', text: 'Back to the inbox' } },
    );
    if (!item) return;
    const { row } = item;
    const tz = who.workspace.timezone;
    await kit.page(res, titleOf(row), 'item', {
      timezone: tz,
      item: itemView.page(who, { row, previews: item.previews }),
      results: row.publishResults.map((r) => ({
        name: isPlatform(r.platform) ? PLATFORM_NAMES[r.platform] : r.platform,
        outcome: r.success ? 'published' : `failed: ${r.error ?? 'unknown error'}`,
        url: r.success && r.url && /^https?:\/\//.test(r.url) ? r.url : null,
      })),
      history: item.history.map((h) => ({ ...h, iso: h.at.toISOString(), when: fmt(who, h.at) })),
      notice: noticeOf(req.query.done),
    });
  });
  return router;
}
