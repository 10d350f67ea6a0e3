import { Router, type RequestHandler } from 'express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTENT_TYPES, type ContentStatus } from '../../../db/schema/index.ts';
import type { Runtime } from '../../core/context.ts';
import { browseContent, type CampaignChoice, type ReviewItem } from '../../core/content/review.ts';
import { PLATFORM_NAMES, PLATFORMS } from '../../core/platforms/registry.ts';
import { CONTENT_TYPE_LABELS, moment, noticeOf, queryString, STATUS_LABELS } from '../format.ts';
import { itemViews, ROW_PREVIEWS_SLOT } from '../item-view.ts';
import { eta, webDir } from '../render.ts';
import { PARTS_SLOT } from '../send-page.ts';
import { locals } from '../session.ts';
import type { PageKit } from './kit.ts';

/*
 * A list's row, rendered once per item: compiled once, so no row looks its template up by name
 * again, and in two halves around the row's previews, which are sent as kept bytes in between.
 */
const rowHalves = readFileSync(join(webDir, 'views', 'item-row.eta'), 'utf8').split(ROW_PREVIEWS_SLOT);
if (rowHalves.length !== 2) throw new Error(`item-row.eta must hold ${ROW_PREVIEWS_SLOT} once`);
const [rowBeforePreviews, rowAfterPreviews] = rowHalves.map((half) => eta.compile(half)) as [
  ReturnType<typeof eta.compile>,
  ReturnType<typeof eta.compile>,
];

const STATUS_TABS = ['', 'draft', 'pending_review', 'approved', 'scheduled', 'published', 'rejected'] as const;

/** What an empty list says: nothing at all, or nothing that matches the filters (with a way back). */
const emptyState = (
  kind: 'inbox' | 'content',
  path: string,
  q: Record<string, string | undefined>,
  status: string | undefined,
) => {
  const filtered = Boolean(
    q.campaign || q.platform || q.content_type || q.search || q.failed_since || q.scheduled_from || q.scheduled_to,
  );
  if (!filtered)
    return { empty: kind === 'inbox' ? 'Nothing is waiting for review.' : 'No content here yet.', clear: null };
  return {
    empty: kind === 'inbox' ? 'Nothing waiting for review matches these filters.' : 'No content matches these filters.',
    clear: kind === 'content' && status ? `${path}?status=${encodeURIComponent(status)}` : path,
  };
};

/** /app/inbox (what waits for review) and /app/content (everything, by status tab and filters). */
export function contentListPages(runtime: Runtime, kit: PageKit): Router {
  const router = Router();
  const itemView = itemViews(runtime);

  const listPage =
    (kind: 'inbox' | 'content'): RequestHandler =>
    async (req, res) => {
      const who = kit.signedIn(req, res);
      if (!who) return;
      const q = req.query as Record<string, string | undefined>;
      const status = kind === 'inbox' ? 'pending_review' : q.status || undefined;
      // The one content list's filters (core/content/list-filters.ts), named as the page's form names them.
      const input = {
        status,
        content_type: q.content_type || undefined,
        campaign_id: q.campaign || undefined,
        platform: q.platform || undefined,
        q: q.search || undefined,
        // The lists behind the home page's counts: a window of scheduled items, and the failed ones.
        scheduled_from: kind === 'content' ? q.scheduled_from || undefined : undefined,
        scheduled_to: kind === 'content' ? q.scheduled_to || undefined : undefined,
        failed_since: kind === 'content' ? q.failed_since || undefined : undefined,
        cursor: q.cursor,
        limit: q.limit ?? '20',
      };
      const result = await kit.run<{ items: ReviewItem[]; nextCursor: string | null; campaigns: CampaignChoice[] }>(
        who,
        browseContent,
        input,
      );
      const path = `/app/${kind}`;
      // Back to this list as filtered, without the notice of the action that led here.
      const { done: _shown, ...filtersOfList } = q;
      const back = `${path}${Object.keys(filtersOfList).length ? `?${queryString(filtersOfList)}` : ''}`;
      const tabs =
        kind === 'content'
          ? `<nav aria-label="Status" class="tabs"><ul>${STATUS_TABS.map((s) => {
              const label = s === '' ? 'All' : STATUS_LABELS[s as ContentStatus];
              // The failed-since list is no tab's: it cuts across statuses.
              const current = (status ?? '') === s && !q.failed_since ? ' aria-current="page"' : '';
              return `<li><a href="/app/content${s ? `?status=${s}` : ''}"${current}>${label}</a></li>`;
            }).join('')}</ul></nav>`
          : '';
      const { csrf } = locals(res);
      const rowData = { csrf, back };
      const views = result.items.map((item) => itemView.row(who, item));
      const rows = views.flatMap((view) => {
        const data = { ...rowData, item: view };
        return [eta.render(rowBeforePreviews, data), view.previews, eta.render(rowAfterPreviews, data)];
      });
      // The bulk bar offers what the policy allows on at least one item of the page.
      const bulk = {
        approve: views.some((view) => view.actions.approvable),
        reject: views.some((view) => view.actions.rejectable),
      };
      const body = eta.render('items', {
        csrf,
        filters: true,
        path,
        status: kind === 'content' ? status : undefined,
        // The home page's counts land here; the page says which list this is.
        failedSince: input.failed_since ? moment(who, input.failed_since) : undefined,
        scheduledWindow:
          input.scheduled_from || input.scheduled_to
            ? {
                from: input.scheduled_from ? moment(who, input.scheduled_from) : undefined,
                to: input.scheduled_to ? moment(who, input.scheduled_to) : undefined,
              }
            : undefined,
        showSearch: kind === 'content',
        search: q.search,
        campaign: q.campaign,
        platform: q.platform,
        contentType: q.content_type,
        campaigns: result.campaigns,
        platforms: PLATFORMS.map((id) => ({ id, name: PLATFORM_NAMES[id] })),
        contentTypes: CONTENT_TYPES.map((id) => ({ id, name: CONTENT_TYPE_LABELS[id] })),
        hasItems: result.items.length > 0,
        rows: PARTS_SLOT,
        bulk,
        back,
        ...emptyState(kind, path, q, status),
        next: result.nextCursor ? `${path}?${queryString({ ...q, cursor: result.nextCursor })}` : null,
      });
      await kit.page(
        res,
        kind === 'inbox' ? 'Approval inbox' : 'Content',
        'message-raw',
        { raw: tabs + body, notice: noticeOf(q.done) },
        kind,
        rows,
      );
    };
  router.get('/inbox', listPage('inbox'));
  router.get('/content', listPage('content'));
  return router;
}
