import cookieParser from 'cookie-parser';
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import helmet from 'helmet';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Runtime } from '../core/context.ts';
import { resolveSession, sessionCookieName, type SignedIn } from '../core/people/sessions.ts';
import { deviceCookieName } from '../core/people/sign-in-limits.ts';
import { derivedKey } from '../core/secrets.ts';
import { safeOrigin } from './links.ts';
import type { PageKit } from './pages/kit.ts';

/** What the session middleware leaves on every response for the pages. */
interface PageLocals {
  signedIn?: SignedIn;
  csrf: string;
}

/** The signed-in person (if any) and the CSRF token of this request. */
export const locals = (res: Response): PageLocals => res.locals as PageLocals;

/** The dashboard's cookies: the session, the device that vouches for a browser, the pre-sign-in CSRF binding. */
export function dashboardCookies(runtime: Runtime) {
  const secure = runtime.config.publicBaseUrl.startsWith('https:');
  return {
    secure,
    session: sessionCookieName(runtime.config),
    device: deviceCookieName(runtime.config),
    pre: secure ? '__Host-np_pre' : 'np_pre',
    options: { httpOnly: true, sameSite: 'lax' as const, secure, path: '/' },
  };
}

/** The origins a form may be sent from: the public base URL's, and the one the request came in on. */
export const allowedOrigins = (runtime: Runtime, req: Request): string[] => [
  new URL(runtime.config.publicBaseUrl).origin,
  `${req.protocol}://${req.get('host')}`,
];

/** helmet's headers with the dashboard's CSP, and no caching of any page. */
export function securityHeaders(runtime: Runtime): RequestHandler[] {
  const { secure } = dashboardCookies(runtime);
  return [
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
    (_req, res, next) => {
      res.set('Cache-Control', 'no-store');
      next();
    },
  ];
}

/**
 * Cookies and forms read, the person signed in resolved, and every state change checked: a
 * same-origin Origin and the form's CSRF token, or 403 and nothing happens.
 */
export function sessionAndForms(runtime: Runtime, page: PageKit['page']): Router {
  const router = Router();
  const cookies = dashboardCookies(runtime);
  const csrfKey = derivedKey(runtime.config, 'dashboard-csrf');
  const csrfFor = (binding: string) => createHmac('sha256', csrfKey).update(binding).digest('base64url');

  router.use(cookieParser());
  router.use(express.urlencoded({ extended: false, limit: '64kb' }));

  // Who is signed in, and the CSRF token bound to their session (or, before sign-in, to a browser cookie).
  router.use(async (req, res, next) => {
    const signedIn = (await resolveSession(runtime, req.cookies?.[cookies.session] as string | undefined)) ?? undefined;
    let binding: string;
    if (signedIn) binding = `s:${signedIn.sessionHash}`;
    else {
      let pre = req.cookies?.[cookies.pre] as string | undefined;
      if (!pre || !/^[A-Za-z0-9_-]{43}$/.test(pre)) {
        pre = randomBytes(32).toString('base64url');
        res.cookie(cookies.pre, pre, cookies.options);
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
    if (!origin || !allowedOrigins(runtime, req).includes(origin) || !tokenOk) {
      res.status(403);
      return page(res, 'This form cannot be used', 'message', {
        message: 'The form was not sent from this dashboard, or the page was too old. Reload the page and try again.',
      });
    }
    next();
  });
  return router;
}
