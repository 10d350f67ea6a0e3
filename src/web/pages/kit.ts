import type { Request, RequestHandler, Response } from 'express';
import { contextFor, type Runtime } from '../../core/context.ts';
import { RateLimitError, ServiceError } from '../../core/errors.ts';
import { executeOperation, type Operation } from '../../core/operation.ts';
import type { SignedIn } from '../../core/people/sessions.ts';
import { decryptSecret, encryptSecret } from '../../core/secrets.ts';
import { actionErrorTitle, pageStatus } from '../errors.ts';
import { fmt } from '../format.ts';
import { backOf, safeNext, safeOrigin, withoutNotice } from '../links.ts';
import { layoutPage } from '../render.ts';
import type { PagePart } from '../send-page.ts';
import { allowedOrigins, locals } from '../session.ts';

/**
 * What the dashboard lends each page module (built once by pageKit): the layout, the signed-in
 * person (or a redirect to sign in), the core operations run as that person, form actions that
 * answer a 303 (or the error page), and dates in the workspace's timezone.
 */
export interface PageKit {
  page: (
    res: Response,
    title: string,
    view: string,
    data: Record<string, unknown>,
    nav?: string,
    parts?: readonly PagePart[],
  ) => Promise<void>;
  signedIn: (req: Request, res: Response) => SignedIn | null;
  run: <T>(who: SignedIn, operation: Operation, input: unknown) => Promise<T>;
  act: (handler: (who: SignedIn, req: Request) => Promise<string>) => RequestHandler;
  fmt: (who: SignedIn, at: Date | null) => string | null;
}

export function pageKit(runtime: Runtime): PageKit {
  const page = layoutPage(runtime);

  /** Pages past sign-in: the person, or a redirect to sign in that comes back here. */
  const signedIn = (req: Request, res: Response): SignedIn | null => {
    const who = locals(res).signedIn;
    if (who) return who;
    res.redirect(303, `/app/login?next=${encodeURIComponent(req.originalUrl)}`);
    return null;
  };
  const run = <T>(who: SignedIn, operation: Operation, input: unknown) =>
    executeOperation(contextFor(runtime, who.workspace, 'web', who.principal), operation, input) as Promise<T>;

  /** The dashboard page a form was sent from: its `back` field, else the same-origin Referer, else the inbox. */
  const formPageOf = (req: Request) => {
    const referer = req.get('referer');
    const fromReferer =
      referer && allowedOrigins(runtime, req).includes(safeOrigin(referer) ?? '')
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
        res.status(pageStatus(error.code));
        // The message names the first few field errors already; the rest are added, none twice.
        const more = Object.values(error.details?.fieldErrors ?? {})
          .flat()
          .filter((sentence) => !error.message.includes(sentence.replace(/\.$/, '')));
        await page(res, actionErrorTitle(error.code), 'message', {
          message: [error.message, ...new Set(more)].join(' '),
          link: { href: formPageOf(req), text: 'Back to the page you were on' },
        });
      }
    };
  return { page, signedIn, run, act, fmt };
}

/**
 * The signed-in admin, or null after answering: a redirect to sign in, or 403 for anyone else (the
 * operations behind the page refuse them too; this only spares them a page of refusals).
 */
export async function adminOf(kit: PageKit, req: Request, res: Response, what: string): Promise<SignedIn | null> {
  const who = kit.signedIn(req, res);
  if (!who) return null;
  if (who.principal.role === 'admin') return who;
  res.status(403);
  await kit.page(res, `${what} are for admins`, 'message', {
    message: `Only an admin of this workspace can see ${what.toLowerCase()}. Ask one if you need something changed.`,
    link: { href: '/app', text: 'Back to the home page' },
  });
  return null;
}

/** What a page says when the thing it shows is not in the workspace, and where it leads back to. */
export interface NotFound {
  message: string;
  back: { href: string; text: string };
}

/**
 * The thing `fetch` finds, or null after answering the 404 page: a not_found error and an undefined
 * result alike (a lookup in a list finds nothing). Any other error goes on to the error page.
 */
export async function foundOr404<T>(
  kit: PageKit,
  res: Response,
  fetch: () => T | undefined | Promise<T | undefined>,
  notFound: NotFound,
): Promise<T | null> {
  let found: T | undefined;
  try {
    found = await fetch();
  } catch (error) {
    if (!(error instanceof ServiceError && error.code === 'not_found')) throw error;
  }
  if (found !== undefined) return found;
  res.status(404);
  await kit.page(res, 'Not found', 'message', { message: notFound.message, link: notFound.back });
  return null;
}

/** Text from a form field: trimmed, or '' when absent or not text. */
export const field = (body: unknown, name: string): string => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value.trim() : '';
};

const FLASH_COOKIE = 'np_flash';
const FLASH_LIFETIME_MS = 5 * 60 * 1000;

/**
 * A secret shown once (a new key, a webhook's signing secret) travels from the form's POST to the page
 * it redirects to in a short-lived cookie: encrypted, bound to the session, read once and cleared. So
 * the page can be a plain GET after a 303, and reloading it shows the secret no more.
 */
export function flash(runtime: Runtime, res: Response, who: SignedIn, kind: string, value: string): void {
  const sealed = encryptSecret(runtime.config, JSON.stringify({ kind, value, session: who.sessionHash }));
  res.cookie(FLASH_COOKIE, sealed, {
    httpOnly: true,
    sameSite: 'strict',
    secure: runtime.config.publicBaseUrl.startsWith('https:'),
    path: '/app',
    maxAge: FLASH_LIFETIME_MS,
  });
}

/** The flash of `kind` left for this session, once: the cookie is cleared whatever it held. */
export function takeFlash(runtime: Runtime, req: Request, res: Response, who: SignedIn, kind: string): string | null {
  const sealed = (req.cookies as Record<string, unknown> | undefined)?.[FLASH_COOKIE];
  if (typeof sealed !== 'string') return null;
  res.clearCookie(FLASH_COOKIE, { path: '/app' });
  try {
    const opened = JSON.parse(decryptSecret(runtime.config, sealed)) as {
      kind: string;
      value: string;
      session: string;
    };
    return opened.kind === kind && opened.session === who.sessionHash ? opened.value : null;
  } catch {
    return null;
  }
}
