import { Router, type NextFunction, type Request, type Response } from 'express';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Runtime } from '../core/context.ts';
import { asServiceError, RateLimitError, ServiceError, ServiceUnavailableError } from '../core/errors.ts';
import { pageStatus, unreadableForm } from './errors.ts';
import { dashboardPages } from './pages/index.ts';
import { pageKit } from './pages/kit.ts';
import { webDir } from './render.ts';
import { locals, securityHeaders, sessionAndForms } from './session.ts';

const require = createRequire(import.meta.url);
const HTMX_FILE = require.resolve('htmx.org/dist/htmx.min.js');

/**
 * The people's door: server-rendered pages under /app, in the same process as the API. Pages call
 * the core operations with the signed-in person as the principal, so their role is checked where it
 * is for every door. Every state change is a plain form POST carrying a CSRF token, from the same origin.
 *
 * This file only assembles: headers, the static assets, the session and form checks (session.ts),
 * the page modules (pages/), and the answers for no page and for an error.
 */
export function webRoutes(runtime: Runtime): Router {
  const router = Router();
  const kit = pageKit(runtime);
  const { page } = kit;

  router.use(securityHeaders(runtime));
  router.get('/assets/htmx.min.js', (_req, res) =>
    res.type('js').sendFile(HTMX_FILE, { headers: { 'Cache-Control': 'public, max-age=86400' } }),
  );
  router.get('/assets/app.js', (_req, res) => res.type('js').sendFile(join(webDir, 'assets', 'app.js')));
  router.get('/assets/app.css', (_req, res) => res.type('css').sendFile(join(webDir, 'assets', 'app.css')));
  router.use(sessionAndForms(runtime, page));

  router.use(dashboardPages(runtime, kit));

  router.use(async (req, res) => {
    res.status(404);
    await page(res, 'Not found', 'message', {
      message: `There is no page at ${req.path}.`,
      link: { href: '/app/inbox', text: 'Back to the inbox' },
    });
  });
  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (error instanceof RateLimitError) {
      res.status(429).set('Retry-After', String(error.retryAfter));
      return page(res, 'Too many requests', 'message', { message: `Wait ${error.retryAfter} seconds and try again.` });
    }
    const unavailable = asServiceError(error);
    if (unavailable instanceof ServiceUnavailableError) {
      res.status(503).set('Retry-After', String(unavailable.retryAfter));
      // Without the signed-in header: its workspace switcher is read from the database.
      locals(res).signedIn = undefined;
      return page(res, 'Try again in a moment', 'message', {
        message: `The service cannot reach its database right now, so nothing was changed. Wait ${unavailable.retryAfter} seconds and try again.`,
      });
    }
    if (error instanceof ServiceError && error.code !== 'internal') {
      res.status(pageStatus(error.code));
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
