import cookieParser from 'cookie-parser';
import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import helmet from 'helmet';
import { Eta } from 'eta';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ContentStatus } from '../../db/schema/index.ts';
import { PLATFORMS } from '../core/platforms/registry.ts';
import { updateAccount } from '../core/accounts/get-account.ts';
import { boundedMemo } from '../core/bounded-memo.ts';
import { contextFor, type Runtime, type ServiceContext } from '../core/context.ts';
import { updateContent } from '../core/content/operations.ts';
import {
  browseContent,
  calendarContent,
  reviewContent,
  type CampaignChoice,
  type ReviewItem,
} from '../core/content/review.ts';
import type { ContentRow } from '../core/content/serialize.ts';
import { RateLimitError, ServiceError } from '../core/errors.ts';
import { executeOperation, type Operation } from '../core/operation.ts';
import { roleIncludes } from '../core/people/roles.ts';
import {
  checkSignIn,
  endSession,
  resolveSession,
  sessionCookieName,
  startSession,
  type SignedIn,
} from '../core/people/sessions.ts';
import { DEVICE_COOKIE_LIFETIME_MS, deviceCookieName } from '../core/people/sign-in-limits.ts';
import { acceptInvitation, openInvitation } from '../core/people/invitations.ts';
import { openLink, usePasswordLink, workspacesOf } from '../core/people/users.ts';
import { chooseWorkspace, landingOf } from '../core/people/workspace-choice.ts';
import { derivedKey } from '../core/secrets.ts';
import { dayKey, fromLocal, localParts, moveToDay, parseLocalInput, toLocalInput } from '../core/time-zones.ts';
import { ERROR_STATUS } from '../rest/errors.ts';
import {
  foldIndex,
  platformName,
  renderHashtagLine,
  renderMediaStrip,
  renderPreviewCard,
} from './preview/platform-preview.ts';
import { adminPages } from './admin/index.ts';
import { PARTS_SLOT, sendPage } from './send-page.ts';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const HTMX_FILE = require.resolve('htmx.org/dist/htmx.min.js');
const eta = new Eta({ views: join(here, 'views'), autoEscape: true, cache: true, autoTrim: false });
/** A list's row, rendered once per item: compiled once, so no row looks its template up by name again. */
const itemRowTemplate = eta.compile(readFileSync(join(here, 'views', 'item-row.eta'), 'utf8'));

const STATUS_LABELS: Record<ContentStatus, string> = {
  draft: 'Draft',
  pending_review: 'Waiting for review',
  approved: 'Approved',
  scheduled: 'Scheduled',
  rejected: 'Rejected',
  archived: 'Archived',
  publishing: 'Publishing',
  published: 'Published',
};

interface PageLocals {
  signedIn?: SignedIn;
  csrf: string;
}

const locals = (res: Response): PageLocals => res.locals as PageLocals;

/**
 * The people's door: server-rendered pages under /app, in the same process as the API. Pages call
 * the core operations with the signed-in person as the principal, so their role is checked where it
 * is for every door. Every state change is a plain form POST carrying a CSRF token, from the same origin.
 */
export function webRoutes(runtime: Runtime): Router {
  const router = Router();
  const secure = runtime.config.publicBaseUrl.startsWith('https:');
  const sessionCookie = sessionCookieName(runtime.config);
  const deviceCookie = deviceCookieName(runtime.config);
  const preCookie = secure ? '__Host-np_pre' : 'np_pre';
  const cookieOptions = { httpOnly: true, sameSite: 'lax' as const, secure, path: '/' };
  const csrfKey = derivedKey(runtime.config, 'dashboard-csrf');
  const csrfFor = (binding: string) => createHmac('sha256', csrfKey).update(binding).digest('base64url');
  const allowedOrigins = (req: Request) => [
    new URL(runtime.config.publicBaseUrl).origin,
    `${req.protocol}://${req.get('host')}`,
  ];

  router.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", new URL(runtime.config.publicBaseUrl).origin],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          objectSrc: ["'none'"],
          baseUri: ["'none'"],
          upgradeInsecureRequests: secure ? [] : null,
        },
      },
      strictTransportSecurity: secure,
      // frame-ancestors 'none' above forbids every frame; helmet's default X-Frame-Options (SAMEORIGIN)
      // would say the opposite to a browser that reads only the older header.
      xFrameOptions: false,
      // helmet's default, no-referrer, makes a browser send `Origin: null` with every form POST, which the
      // same-origin check below must refuse; same-origin keeps the real origin and still tells no other site.
      referrerPolicy: { policy: 'same-origin' },
    }),
  );
  router.use((_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });
  router.get('/assets/htmx.min.js', (_req, res) =>
    res.type('js').sendFile(HTMX_FILE, { headers: { 'Cache-Control': 'public, max-age=86400' } }),
  );
  router.get('/assets/app.js', (_req, res) => res.type('js').sendFile(join(here, 'assets', 'app.js')));
  router.get('/assets/app.css', (_req, res) => res.type('css').sendFile(join(here, 'assets', 'app.css')));
  router.use(cookieParser());
  router.use(express.urlencoded({ extended: false, limit: '64kb' }));

  // Who is signed in, and the CSRF token bound to their session (or, before sign-in, to a browser cookie).
  router.use((req, res, next) => {
    const signedIn = resolveSession(runtime, req.cookies?.[sessionCookie] as string | undefined) ?? undefined;
    let binding: string;
    if (signedIn) binding = `s:${signedIn.sessionHash}`;
    else {
      let pre = req.cookies?.[preCookie] as string | undefined;
      if (!pre || !/^[A-Za-z0-9_-]{43}$/.test(pre)) {
        pre = randomBytes(32).toString('base64url');
        res.cookie(preCookie, pre, cookieOptions);
      }
      binding = `p:${pre}`;
    }
    res.locals.signedIn = signedIn;
    res.locals.csrf = csrfFor(binding);
    next();
  });

  // Every state change: a same-origin Origin and the form's CSRF token, or 403 and nothing happens.
  router.use((req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    const origin = req.get('origin') ?? (req.get('referer') ? safeOrigin(req.get('referer')!) : undefined);
    const sent = (req.body as Record<string, unknown> | undefined)?._csrf ?? req.get('x-csrf-token');
    const expected = Buffer.from(locals(res).csrf);
    const given = Buffer.from(typeof sent === 'string' ? sent : '');
    const tokenOk = given.length === expected.length && timingSafeEqual(given, expected);
    if (!origin || !allowedOrigins(req).includes(origin) || !tokenOk) {
      res.status(403);
      return page(res, 'This form cannot be used', 'message', {
        message: 'The form was not sent from this dashboard, or the page was too old. Reload the page and try again.',
      });
    }
    next();
  });

  /**
   * Renders `view` inside the layout and sends it. A long list passes its rows as `parts`, each
   * rendered on its own, and its view puts PARTS_SLOT where they go: the page is then encoded a
   * part at a time, never joined into one long string first (see sendPage).
   */
  const page = (
    res: Response,
    title: string,
    view: string,
    data: Record<string, unknown>,
    nav?: string,
    parts?: readonly string[],
  ) => {
    const { signedIn, csrf } = locals(res);
    const body = eta.render(view, { ...data, csrf });
    const me = signedIn && {
      email: signedIn.user.email,
      role: signedIn.principal.role,
      workspace: signedIn.workspace.name,
      workspaceId: signedIn.workspace.id,
      // The header's switcher: shown to a person of more than one workspace.
      workspaces: workspacesOf(runtime.db, signedIn.user.id),
    };
    const html = eta.render('layout', { title, body, me, csrf, nav, notice: data.notice, error: data.error });
    sendPage(res, html, parts);
  };

  /** Pages past sign-in: the person, or a redirect to sign in that comes back here. */
  const signedIn = (req: Request, res: Response): SignedIn | null => {
    const who = locals(res).signedIn;
    if (who) return who;
    res.redirect(303, `/app/login?next=${encodeURIComponent(req.originalUrl)}`);
    return null;
  };
  const ctxOf = (who: SignedIn): ServiceContext => contextFor(runtime, who.workspace, 'web', who.principal);
  const run = <T>(who: SignedIn, operation: Operation, input: unknown) =>
    executeOperation(ctxOf(who), operation, input) as Promise<T>;

  // --- sign-in, setup, invite, sign-out
  const addressOf = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown';
  /**
   * A dashboard path to go to next, or the inbox. Judged as the browser will resolve it, so dot
   * segments, backslashes or encoded dots ("/app/..//elsewhere") cannot lead off the dashboard.
   */
  const safeNext = (next: unknown) => {
    if (typeof next !== 'string' || !next.startsWith('/')) return '/app/inbox';
    const base = 'http://dashboard.invalid';
    let resolved: URL;
    try {
      resolved = new URL(next, base);
    } catch {
      return '/app/inbox';
    }
    const path = `${resolved.pathname}${resolved.search}`;
    return resolved.origin === base && /^\/app(\/|$|\?)/.test(path) && !path.startsWith('//') ? path : '/app/inbox';
  };
  const signInAndGo = (req: Request, res: Response, userId: string, workspaceId: string, next: string) => {
    const token = startSession(runtime, userId, workspaceId, req.cookies?.[sessionCookie] as string | undefined);
    res.cookie(sessionCookie, token, cookieOptions);
    res.redirect(303, next);
  };
  const loginForm = (res: Response, extra: Record<string, unknown>) =>
    page(res, 'Sign in', 'login', {
      action: '/app/login',
      askEmail: true,
      passwordLabel: 'Password',
      autocomplete: 'current-password',
      submit: 'Sign in',
      ...extra,
    });

  router.get('/login', (req, res) => loginForm(res, { next: safeNext(req.query.next) }));
  router.post('/login', async (req, res) => {
    const body = req.body as Record<string, string>;
    const next = safeNext(body.next);
    try {
      const outcome = await checkSignIn(runtime, {
        email: String(body.email ?? ''),
        password: String(body.password ?? ''),
        address: addressOf(req),
        device: req.cookies?.[deviceCookie] as string | undefined,
      });
      if ('refused' in outcome) {
        res.status(401);
        return loginForm(res, { next, email: body.email, error: outcome.refused });
      }
      // Vouches for this browser at this email next time: its sign-ins are then counted apart (see sign-in-limits.ts).
      res.cookie(deviceCookie, outcome.device, { ...cookieOptions, maxAge: DEVICE_COOKIE_LIFETIME_MS });
      // A person of several workspaces lands in the one they last chose, or is asked which.
      const landing = landingOf(runtime.db, outcome.userId) ?? { workspaceId: outcome.workspaceId, choose: false };
      signInAndGo(
        req,
        res,
        outcome.userId,
        landing.workspaceId,
        landing.choose ? `/app/workspaces?next=${encodeURIComponent(next)}` : next,
      );
    } catch (error) {
      if (!(error instanceof RateLimitError)) throw error;
      res.status(429).set('Retry-After', String(error.retryAfter));
      const wait =
        error.retryAfter < 60
          ? `${error.retryAfter} seconds`
          : `${Math.ceil(error.retryAfter / 60)} minute${error.retryAfter > 60 ? 's' : ''}`;
      loginForm(res, { next, email: body.email, error: `Too many failed sign-ins. Try again in ${wait}.` });
    }
  });
  router.post('/logout', (req, res) => {
    endSession(runtime, req.cookies?.[sessionCookie] as string | undefined);
    res.clearCookie(sessionCookie, cookieOptions);
    res.redirect(303, '/app/login');
  });
  for (const kind of ['setup', 'reset'] as const) {
    const title = kind === 'setup' ? 'Set up the dashboard' : 'Choose a new password';
    const form = (res: Response, extra: Record<string, unknown>) =>
      page(res, title, 'login', {
        action: `/app/${kind}`,
        askEmail: kind === 'setup',
        passwordLabel: 'New password (at least 10 characters)',
        autocomplete: 'new-password',
        ...extra,
      });
    router.get(`/${kind}`, (req, res) => {
      const token = typeof req.query.token === 'string' ? req.query.token : '';
      const link = openLink(runtime, token, kind);
      if ('refused' in link) return linkRefused(res, link.refused);
      form(res, {
        email: link.email,
        token,
        submit: kind === 'setup' ? 'Create the admin account' : 'Set password and sign in',
      });
    });
    router.post(`/${kind}`, async (req, res) => {
      const body = req.body as Record<string, string>;
      const token = String(body.token ?? '');
      const again = (error: string) => {
        res.status(400);
        form(res, { email: body.email, token, error, submit: 'Try again' });
      };
      try {
        const used = await usePasswordLink(runtime, {
          token,
          kind,
          email: body.email,
          password: String(body.password ?? ''),
        });
        if ('refused' in used) return again(used.refused);
        if (used.workspaceId === null) {
          return page(res, 'Password set', 'message', {
            message:
              'Your password is set. You are not a member of any workspace yet: open the invitation link an admin gave you, and accept it with this password.',
          });
        }
        // The landing rule of a sign-in: the workspace last chosen, or the question which.
        const landing = landingOf(runtime.db, used.userId) ?? { workspaceId: used.workspaceId, choose: false };
        signInAndGo(
          req,
          res,
          used.userId,
          landing.workspaceId,
          landing.choose ? '/app/workspaces?next=%2Fapp%2Finbox' : '/app/inbox',
        );
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        again(error.details ? Object.values(error.details.fieldErrors).flat().join(' ') : error.message);
      }
    });
  }
  const linkRefused = (res: Response, message: string) => {
    res.status(404);
    page(res, 'This link cannot be used', 'message', { message, link: { href: '/app/login', text: 'Sign in' } });
  };

  // An invitation: accepted signed in as the invitee, with the account's password, or, for a new
  // person, by choosing one (core/people/invitations.ts says who may do what).
  const invitePage = (res: Response, token: string, extra: Record<string, unknown>) => {
    const invitation = openInvitation(runtime, token, locals(res).signedIn?.user.id);
    if ('refused' in invitation) return linkRefused(res, invitation.refused);
    page(res, `Join ${invitation.workspaceName}`, 'invite', {
      ...invitation,
      token,
      signIn: `/app/login?next=${encodeURIComponent(`/app/invite?token=${encodeURIComponent(token)}`)}`,
      ...extra,
    });
  };
  router.get('/invite', (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    // Reset links were printed on /app/invite before invitations had their own table.
    if ('refused' in openInvitation(runtime, token) && !('refused' in openLink(runtime, token, 'reset'))) {
      return res.redirect(303, `/app/reset?token=${encodeURIComponent(token)}`);
    }
    invitePage(res, token, {});
  });
  router.post('/invite', async (req, res) => {
    const body = req.body as Record<string, string>;
    const token = String(body.token ?? '');
    const who = locals(res).signedIn;
    try {
      const accepted = await acceptInvitation(runtime, {
        token,
        password: typeof body.password === 'string' ? body.password : undefined,
        signedInUserId: who?.user.id,
        address: addressOf(req),
      });
      if ('refused' in accepted) {
        if (accepted.status === 404) return linkRefused(res, accepted.refused);
        res.status(accepted.status);
        return invitePage(res, token, { error: accepted.refused });
      }
      if (who && who.user.id === accepted.userId) {
        chooseWorkspace(runtime, req.cookies?.[sessionCookie] as string, accepted.userId, accepted.workspaceId);
        return res.redirect(303, '/app/inbox');
      }
      signInAndGo(req, res, accepted.userId, accepted.workspaceId, '/app/inbox');
    } catch (error) {
      if (!(error instanceof RateLimitError)) throw error;
      res.status(429).set('Retry-After', String(error.retryAfter));
      invitePage(res, token, {
        error: `Too many wrong passwords. Try again in ${Math.ceil(error.retryAfter / 60)} minutes.`,
      });
    }
  });

  // --- lists
  const fmt = (who: SignedIn, at: Date | null) => (at ? dateTimeFormat(who.workspace.timezone).format(at) : null);
  const sameList = (a: readonly string[], b: readonly string[]) =>
    a.length === b.length && a.every((value, i) => value === b[i]);
  /** The caption's first line, cut after 60 characters (code points, so no emoji is halved). */
  const titleOf = (row: ContentRow) => {
    const lineEnd = row.caption.indexOf('\n');
    const line = lineEnd < 0 ? row.caption : row.caption.slice(0, lineEnd);
    const cut = foldIndex(line, 60);
    return cut === null ? line : `${line.slice(0, cut)}…`;
  };
  /**
   * The item's preview cards. In a list, the media and the hashtags every platform gets alike are
   * shown once above the cards instead of once per card, and the cards stop at each platform's fold
   * (the whole caption is above them).
   */
  const previewCards = (previews: ReviewItem['previews'], inList: boolean) => {
    if (!inList) return renderCards(previews, false);
    // Core keeps an unchanged item's previews (the same object from one reload to the next): its
    // cards are rendered once for them.
    let rendered = listCards.get(previews);
    if (!rendered) {
      rendered = renderCards(previews, true);
      listCards.set(previews, rendered);
    }
    return rendered;
  };
  const listCards = new WeakMap<ReviewItem['previews'], { shared: string; cards: string }>();
  // Images load from the service alone (its uploads, img-src above); media kept elsewhere are links.
  const mediaOrigin = new URL(runtime.config.publicBaseUrl).origin;
  const renderCards = (previews: ReviewItem['previews'], inList: boolean) => {
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
  const itemView = (who: SignedIn, { row, previews }: ReviewItem, inList = false) => ({
    id: row.id,
    title: titleOf(row),
    caption: row.caption,
    status: row.status,
    statusLabel: STATUS_LABELS[row.status],
    created: fmt(who, row.createdAt),
    scheduled: fmt(who, row.scheduledFor),
    reviewNote: row.reviewNote,
    ...previewCards(previews, inList),
  });
  /** A date-time a list was filtered by, as the page shows it: machine-readable and in the workspace's zone. */
  const moment = (who: SignedIn, iso: string) => ({ iso, when: fmt(who, new Date(iso)) });
  const canReview = (who: SignedIn) => who.principal.role !== null && roleIncludes(who.principal.role, 'approver');
  const queryString = (q: Record<string, unknown>) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(q)) if (typeof v === 'string' && v !== '') params.set(k, v);
    return params.toString();
  };

  /** What an empty list says: nothing at all, or nothing that matches the filters (with a way back). */
  const emptyState = (
    kind: 'inbox' | 'content',
    path: string,
    q: Record<string, string | undefined>,
    status: string | undefined,
  ) => {
    const filtered = Boolean(
      q.campaign || q.platform || q.search || q.failed_since || q.scheduled_from || q.scheduled_to,
    );
    if (!filtered)
      return { empty: kind === 'inbox' ? 'Nothing is waiting for review.' : 'No content here yet.', clear: null };
    return {
      empty:
        kind === 'inbox' ? 'Nothing waiting for review matches these filters.' : 'No content matches these filters.',
      clear: kind === 'content' && status ? `${path}?status=${encodeURIComponent(status)}` : path,
    };
  };

  const listPage =
    (kind: 'inbox' | 'content'): RequestHandler =>
    async (req, res) => {
      const who = signedIn(req, res);
      if (!who) return;
      const q = req.query as Record<string, string | undefined>;
      const status = kind === 'inbox' ? 'pending_review' : q.status || undefined;
      const input = {
        status,
        campaign_id: q.campaign || undefined,
        platform: q.platform || undefined,
        search: q.search || undefined,
        // The lists behind the home page's counts: a window of scheduled items, and the failed ones.
        scheduled_from: kind === 'content' ? q.scheduled_from || undefined : undefined,
        scheduled_to: kind === 'content' ? q.scheduled_to || undefined : undefined,
        failed_since: kind === 'content' ? q.failed_since || undefined : undefined,
        cursor: q.cursor,
        limit: q.limit ?? '20',
      };
      const result = await run<{ items: ReviewItem[]; nextCursor: string | null; campaigns: CampaignChoice[] }>(
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
          ? `<nav aria-label="Status" class="tabs"><ul>${[
              '',
              'draft',
              'pending_review',
              'approved',
              'scheduled',
              'published',
              'rejected',
            ]
              .map((s) => {
                const label = s === '' ? 'All' : STATUS_LABELS[s as ContentStatus];
                // The failed-since list is no tab's: it cuts across statuses.
                const current = (status ?? '') === s && !q.failed_since ? ' aria-current="page"' : '';
                return `<li><a href="/app/content${s ? `?status=${s}` : ''}"${current}>${label}</a></li>`;
              })
              .join('')}</ul></nav>`
          : '';
      const rowData = { csrf: locals(res).csrf, canReview: canReview(who), back };
      const rows = result.items.map((item) =>
        eta.render(itemRowTemplate, { ...rowData, item: itemView(who, item, true) }),
      );
      const body = eta.render('items', {
        csrf: locals(res).csrf,
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
        campaigns: result.campaigns,
        platforms: PLATFORMS.map((id) => ({ id, name: platformName(id) })),
        hasItems: result.items.length > 0,
        rows: PARTS_SLOT,
        canReview: canReview(who),
        back,
        ...emptyState(kind, path, q, status),
        next: result.nextCursor ? `${path}?${queryString({ ...q, cursor: result.nextCursor })}` : null,
      });
      page(
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

  // --- actions
  const backOf = (body: Record<string, unknown>, fallback: string) =>
    typeof body.back === 'string' ? safeNext(body.back) : fallback;
  /** The page to return to, saying what was done; it replaces the notice of an earlier action, never adds a second. */
  const withDone = (url: string, done: string) => {
    const target = new URL(url, 'http://dashboard.invalid');
    target.searchParams.set('done', done);
    return `${target.pathname}${target.search}`;
  };
  /** A page's path and query without the notice of the action that led to it. */
  const withoutNotice = (url: URL) => {
    url.searchParams.delete('done');
    return `${url.pathname}${url.search}`;
  };
  /** The dashboard page a form was sent from: its `back` field, else the same-origin Referer, else the inbox. */
  const formPageOf = (req: Request) => {
    const referer = req.get('referer');
    const fromReferer =
      referer && allowedOrigins(req).includes(safeOrigin(referer) ?? '')
        ? safeNext(withoutNotice(new URL(referer)))
        : '/app/inbox';
    return backOf((req.body ?? {}) as Record<string, unknown>, fromReferer);
  };
  const act =
    (handler: (who: SignedIn, req: Request) => Promise<string>): RequestHandler =>
    async (req, res, next) => {
      const who = signedIn(req, res);
      if (!who) return;
      try {
        res.redirect(303, await handler(who, req));
      } catch (error) {
        if (!(error instanceof ServiceError) || error instanceof RateLimitError) return next(error);
        res.status(ERROR_STATUS[error.code]);
        // The message names the first few field errors already; the rest are added, none twice.
        const more = Object.values(error.details?.fieldErrors ?? {})
          .flat()
          .filter((sentence) => !error.message.includes(sentence.replace(/\.$/, '')));
        page(res, error.code === 'not_found' ? 'Not found' : 'That did not work', 'message', {
          message: [error.message, ...new Set(more)].join(' '),
          link: { href: formPageOf(req), text: 'Back to the page you were on' },
        });
      }
    };
  router.post(
    '/content/:id/approve',
    act(async (who, req) => {
      await run(who, updateContent, { id: req.params.id, status: 'approved' });
      return withDone(backOf(req.body, '/app/inbox'), 'approved');
    }),
  );
  router.post(
    '/content/:id/reject',
    act(async (who, req) => {
      const reason = typeof req.body.reason === 'string' && req.body.reason.trim() !== '' ? req.body.reason : null;
      await run(who, updateContent, { id: req.params.id, status: 'rejected', review_note: reason });
      return withDone(backOf(req.body, '/app/inbox'), 'rejected');
    }),
  );
  router.post(
    '/bulk',
    act(async (who, req) => {
      const raw = req.body.ids;
      const ids: string[] = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw])
        .filter((id: unknown) => typeof id === 'string')
        .slice(0, 100);
      const action = req.body.action === 'reject' ? 'rejected' : req.body.action === 'approve' ? 'approved' : null;
      if (!action) throw new ServiceError('invalid_body', 'Choose Approve selected or Reject selected.');
      if (ids.length === 0) throw new ServiceError('invalid_body', 'Select at least one item first.');
      const reason = typeof req.body.reason === 'string' && req.body.reason.trim() !== '' ? req.body.reason : null;
      for (const id of ids) {
        await run(who, updateContent, {
          id,
          status: action,
          ...(action === 'rejected' ? { review_note: reason } : {}),
        });
      }
      return withDone(backOf(req.body, '/app/inbox'), `${action}-${ids.length}`);
    }),
  );
  router.post(
    '/content/:id/reschedule',
    act(async (who, req) => {
      const local = parseLocalInput(String(req.body.scheduled_for ?? ''));
      if (!local) throw new ServiceError('invalid_body', 'Give the date and time as shown, such as 2026-12-17T09:30.');
      const at = fromLocal(local, who.workspace.timezone);
      const { row } = await run<{ row: ContentRow }>(who, reviewContent, { id: req.params.id });
      const status = row.status === 'approved' || row.status === 'scheduled' ? { status: 'scheduled' } : {};
      await run(who, updateContent, { id: row.id, scheduled_for: at.toISOString(), ...status });
      return withDone(`/app/content/${row.id}`, 'rescheduled');
    }),
  );
  router.post(
    '/content/:id/move',
    act(async (who, req) => {
      // A day of the calendar (2026-02-31 is none), read as the time input reads its date.
      const text = String(req.body.day ?? '');
      const day = /^\d{4}-\d{2}-\d{2}$/.test(text) ? parseLocalInput(`${text}T00:00`) : null;
      if (!day) throw new ServiceError('invalid_body', 'Give the day as YYYY-MM-DD, a day of the calendar.');
      const { row } = await run<{ row: ContentRow }>(who, reviewContent, { id: req.params.id });
      if (row.status !== 'scheduled' || !row.scheduledFor) {
        throw new ServiceError(
          'invalid_state',
          'Only scheduled items can be moved; published items stay where they went out.',
        );
      }
      const at = moveToDay(row.scheduledFor, day, who.workspace.timezone);
      await run(who, updateContent, { id: row.id, scheduled_for: at.toISOString() });
      return withDone(backOf(req.body, '/app/calendar'), 'rescheduled');
    }),
  );

  // --- item page
  router.get('/content/:id', async (req, res, next) => {
    const who = signedIn(req, res);
    if (!who) return;
    let item: {
      row: ContentRow;
      previews: ReviewItem['previews'];
      history: Array<{ action: string; by: string; note: string | null; at: Date }>;
    };
    try {
      item = await run(who, reviewContent, { id: req.params.id });
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'not_found') {
        res.status(404);
        return page(res, 'Not found', 'message', {
          message: 'There is no such item in this workspace.',
          link: { href: '/app/inbox', text: 'Back to the inbox' },
        });
      }
      return next(error);
    }
    const { row } = item;
    const tz = who.workspace.timezone;
    page(res, titleOf(row), 'item', {
      timezone: tz,
      item: {
        ...itemView(who, { row, previews: item.previews }),
        localInput: row.scheduledFor ? toLocalInput(row.scheduledFor, tz) : '',
      },
      actions: {
        review: canReview(who) && row.status === 'pending_review',
        reschedule: canReview(who) && ['approved', 'scheduled', 'pending_review', 'draft'].includes(row.status),
      },
      results: row.publishResults.map((r) => ({
        name: platformName(r.platform),
        outcome: r.success ? 'published' : `failed: ${r.error ?? 'unknown error'}`,
        url: r.success && r.url && /^https?:\/\//.test(r.url) ? r.url : null,
      })),
      history: item.history.map((h) => ({ ...h, iso: h.at.toISOString(), when: fmt(who, h.at) })),
      notice: noticeOf(req.query.done),
    });
  });

  // --- calendar
  router.get('/calendar', async (req, res) => {
    const who = signedIn(req, res);
    if (!who) return;
    const tz = who.workspace.timezone;
    const now = localParts(runtime.clock.now(), tz);
    const asked = /^(\d{4})-(\d{2})$/.exec(String(req.query.month ?? ''));
    const year = asked ? +asked[1]! : now.year;
    const month = asked && +asked[2]! >= 1 && +asked[2]! <= 12 ? +asked[2]! : now.month;
    const from = fromLocal({ year, month, day: 1, hour: 0, minute: 0 }, tz);
    const nextMonth = month === 12 ? { year: year + 1, month: 1 } : { year, month: month + 1 };
    const prevMonth = month === 1 ? { year: year - 1, month: 12 } : { year, month: month - 1 };
    const to = fromLocal({ ...nextMonth, day: 1, hour: 0, minute: 0 }, tz);
    const rows = await run<ContentRow[]>(who, calendarContent, { from, to });
    const timeFmt = timeOfDayFormat(tz);
    const entries = rows.map((row) => {
      const at = row.publishedAt ?? row.scheduledFor!;
      const p = localParts(at, tz);
      return {
        id: row.id,
        title: titleOf(row),
        status: row.status,
        statusLabel: STATUS_LABELS[row.status],
        iso: at.toISOString(),
        when: fmt(who, at),
        time: timeFmt.format(at),
        key: dayKey(p),
        movable: row.status === 'scheduled' && canReview(who),
      };
    });
    const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
    const firstWeekday = (new Date(Date.UTC(year, month - 1, 1)).getUTCDay() + 6) % 7;
    const cells: Array<{ key: string; label: number; entries: typeof entries } | null> = Array.from(
      { length: firstWeekday },
      () => null,
    );
    for (let d = 1; d <= days; d++) {
      const key = dayKey({ year, month, day: d });
      cells.push({ key, label: d, entries: entries.filter((e) => e.key === key) });
    }
    while (cells.length % 7 !== 0) cells.push(null);
    const weeks = Array.from({ length: cells.length / 7 }, (_, i) => cells.slice(i * 7, i * 7 + 7));
    const ym = (m: { year: number; month: number }) => `${m.year}-${String(m.month).padStart(2, '0')}`;
    page(
      res,
      'Calendar',
      'calendar',
      {
        timezone: tz,
        view: req.query.view === 'list' ? 'list' : 'month',
        month: ym({ year, month }),
        prev: ym(prevMonth),
        next: ym(nextMonth),
        monthLabel: new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', month: 'long', year: 'numeric' }).format(
          new Date(Date.UTC(year, month - 1, 15)),
        ),
        weeks,
        entries,
        notice: noticeOf(req.query.done),
      },
      'calendar',
    );
  });

  // --- the workspace a person of several works in: asked at sign-in, switched from the header
  router.get('/workspaces', (req, res) => {
    const who = signedIn(req, res);
    if (!who) return;
    page(res, 'Choose a workspace', 'workspaces', {
      next: safeNext(req.query.next),
      current: who.workspace.id,
      workspaces: workspacesOf(runtime.db, who.user.id),
    });
  });
  router.post(
    '/workspace',
    act(async (who, req) => {
      const workspaceId = typeof req.body.workspace_id === 'string' ? req.body.workspace_id : '';
      chooseWorkspace(runtime, req.cookies?.[sessionCookie] as string, who.user.id, workspaceId);
      return safeNext(req.body.next);
    }),
  );

  // --- settings (admin)
  const zones = Intl.supportedValuesOf('timeZone');
  router.get('/settings', (req, res) => {
    const who = signedIn(req, res);
    if (!who) return;
    if (who.principal.role !== 'admin') {
      res.status(403);
      return page(res, 'Settings are for admins', 'message', {
        message: 'Ask an admin of this workspace to change its settings.',
      });
    }
    page(
      res,
      'Settings',
      'settings',
      {
        timezone: who.workspace.timezone,
        approverMustDiffer: who.workspace.approverMustDiffer,
        defaultLanguage: who.workspace.defaultLanguage,
        zones,
        notice: noticeOf(req.query.done),
      },
      'settings',
    );
  });
  router.post(
    '/settings',
    act(async (who, req) => {
      await run(who, updateAccount, {
        timezone: String(req.body.timezone ?? '').trim(),
        approver_must_differ: req.body.approver_must_differ === 'on',
        default_language: String(req.body.default_language ?? '').trim() || null,
      });
      return '/app/settings?done=saved';
    }),
  );

  // Home, accounts, webhooks, keys, members and campaigns: their own modules, on the same helpers.
  router.use(adminPages(runtime, { page, signedIn, run, act, fmt }));

  router.use((req, res) => {
    res.status(404);
    page(res, 'Not found', 'message', {
      message: `There is no page at ${req.path}.`,
      link: { href: '/app/inbox', text: 'Back to the inbox' },
    });
  });
  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (error instanceof RateLimitError) {
      res.status(429).set('Retry-After', String(error.retryAfter));
      return page(res, 'Too many requests', 'message', { message: `Wait ${error.retryAfter} seconds and try again.` });
    }
    if (error instanceof ServiceError && error.code !== 'internal') {
      res.status(ERROR_STATUS[error.code]);
      return page(res, 'That did not work', 'message', { message: error.message });
    }
    const unreadable = unreadableForm(error);
    if (unreadable) {
      res.status(unreadable.status);
      return page(res, 'That form could not be read', 'message', {
        message: unreadable.message,
        link: { href: '/app/inbox', text: 'Back to the inbox' },
      });
    }
    next(error);
  });
  return router;
}

/*
 * Building an Intl.DateTimeFormat takes about a fifth of a millisecond, and a list page formats a
 * hundred dates: one formatter per time zone is kept (workspaces use few zones).
 */
const dateTimeFormats = boundedMemo<Intl.DateTimeFormat>(100);
const dateTimeFormat = (timeZone: string) =>
  dateTimeFormats(
    timeZone,
    () => new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' }),
  );
const timeOfDayFormats = boundedMemo<Intl.DateTimeFormat>(100);
const timeOfDayFormat = (timeZone: string) =>
  timeOfDayFormats(
    timeZone,
    () => new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }),
  );

const NOTICES: Record<string, string> = {
  approved: 'Approved.',
  rejected: 'Rejected.',
  rescheduled: 'Rescheduled.',
  saved: 'Settings saved.',
};
function noticeOf(done: unknown): string | undefined {
  if (typeof done !== 'string') return undefined;
  const bulk = /^(approved|rejected)-(\d{1,3})$/.exec(done);
  if (bulk) return `${bulk[1] === 'approved' ? 'Approved' : 'Rejected'} ${bulk[2]} item${bulk[2] === '1' ? '' : 's'}.`;
  return NOTICES[done];
}

/**
 * A form body the parser refused before any page saw it, as body-parser reports it (an http-error with
 * a 4xx `status` and a `type`; an undecodable Content-Encoding is zlib's error with a 400): its status
 * and what to tell the person. Too large is 413, an unknown charset or encoding 415, the rest 400.
 */
function unreadableForm(error: unknown): { status: number; message: string } | undefined {
  const { status, type, code } = (error ?? {}) as { status?: unknown; type?: unknown; code?: unknown };
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  const fromParser = typeof type === 'string' || (typeof code === 'string' && /^(Z_|ERR__)/.test(code));
  if (!fromParser) return undefined;
  if (status === 413) {
    return {
      status,
      message: 'The form is larger than the dashboard accepts. Shorten what you typed and send it again.',
    };
  }
  if (type === 'charset.unsupported' || type === 'encoding.unsupported') {
    return {
      status: 415,
      message: 'The form was sent in an encoding the dashboard cannot read. Send it again from the dashboard page.',
    };
  }
  return { status: 400, message: 'The form arrived incomplete or garbled. Send it again from the dashboard page.' };
}

function safeOrigin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
