import { Router, type Request, type Response } from 'express';
import type { Runtime } from '../../core/context.ts';
import { RateLimitError, ServiceError } from '../../core/errors.ts';
import { acceptInvitation, openInvitation } from '../../core/people/invitations.ts';
import { checkSignIn, endSession, startSession } from '../../core/people/sessions.ts';
import { DEVICE_COOKIE_LIFETIME_MS } from '../../core/people/sign-in-limits.ts';
import { openLink, usePasswordLink, workspacesOf } from '../../core/people/users.ts';
import { chooseWorkspace, landingOf } from '../../core/people/workspace-choice.ts';
import { pageStatus } from '../errors.ts';
import { safeNext } from '../links.ts';
import { dashboardCookies, locals } from '../session.ts';
import type { PageKit } from './kit.ts';

/**
 * Signing in and out: /app/login, the setup and reset links, invitations, and the workspace a person
 * of several works in (asked at sign-in, switched from the header).
 */
export function signInPages(runtime: Runtime, kit: PageKit): Router {
  const router = Router();
  const { page } = kit;
  const cookies = dashboardCookies(runtime);
  const sessionCookie = cookies.session;
  const cookieOptions = cookies.options;

  const addressOf = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown';
  const signInAndGo = async (req: Request, res: Response, userId: string, workspaceId: string, next: string) => {
    const token = await startSession(runtime, userId, workspaceId, req.cookies?.[sessionCookie] as string | undefined);
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
  const linkRefused = async (res: Response, message: string) => {
    res.status(404);
    await page(res, 'This link cannot be used', 'message', { message, link: { href: '/app/login', text: 'Sign in' } });
  };

  router.get('/login', (req, res) => loginForm(res, { next: safeNext(req.query.next) }));
  router.post('/login', async (req, res) => {
    const body = req.body as Record<string, string>;
    const next = safeNext(body.next);
    try {
      const outcome = await checkSignIn(runtime, {
        email: String(body.email ?? ''),
        password: String(body.password ?? ''),
        address: addressOf(req),
        device: req.cookies?.[cookies.device] as string | undefined,
      });
      if (outcome instanceof ServiceError) {
        res.status(pageStatus(outcome.code));
        return loginForm(res, { next, email: body.email, error: outcome.message });
      }
      // Vouches for this browser at this email next time: its sign-ins are then counted apart (see sign-in-limits.ts).
      res.cookie(cookies.device, outcome.device, { ...cookieOptions, maxAge: DEVICE_COOKIE_LIFETIME_MS });
      // A person of several workspaces lands in the one they last chose, or is asked which.
      const landing = (await landingOf(runtime.db, outcome.userId)) ?? {
        workspaceId: outcome.workspaceId,
        choose: false,
      };
      await signInAndGo(
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
      await loginForm(res, { next, email: body.email, error: `Too many failed sign-ins. Try again in ${wait}.` });
    }
  });
  router.post('/logout', async (req, res) => {
    await endSession(runtime, req.cookies?.[sessionCookie] as string | undefined);
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
    router.get(`/${kind}`, async (req, res) => {
      const token = typeof req.query.token === 'string' ? req.query.token : '';
      const link = await openLink(runtime, token, kind);
      if (link instanceof ServiceError) return linkRefused(res, link.message);
      await form(res, {
        email: link.email,
        token,
        submit: kind === 'setup' ? 'Create the admin account' : 'Set password and sign in',
      });
    });
    router.post(`/${kind}`, async (req, res) => {
      const body = req.body as Record<string, string>;
      const token = String(body.token ?? '');
      // Whatever was wrong (the link, the email, the password), the form comes back to try again.
      const again = async (error: string) => {
        res.status(400);
        await form(res, { email: body.email, token, error, submit: 'Try again' });
      };
      try {
        const used = await usePasswordLink(runtime, {
          token,
          kind,
          email: body.email,
          password: String(body.password ?? ''),
        });
        if (used instanceof ServiceError) return await again(used.message);
        if (used.workspaceId === null) {
          return page(res, 'Password set', 'message', {
            message:
              'Your password is set. You are not a member of any workspace yet: open the invitation link an admin gave you, and accept it with this password.',
          });
        }
        // The landing rule of a sign-in: the workspace last chosen, or the question which.
        const landing = (await landingOf(runtime.db, used.userId)) ?? { workspaceId: used.workspaceId, choose: false };
        await signInAndGo(
          req,
          res,
          used.userId,
          landing.workspaceId,
          landing.choose ? '/app/workspaces?next=%2Fapp%2Finbox' : '/app/inbox',
        );
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        await again(error.details ? Object.values(error.details.fieldErrors).flat().join(' ') : error.message);
      }
    });
  }

  // An invitation: accepted signed in as the invitee, with the account's password, or, for a new
  // person, by choosing one (core/people/invitations.ts says who may do what).
  const invitePage = async (res: Response, token: string, extra: Record<string, unknown>) => {
    const invitation = await openInvitation(runtime, token, locals(res).signedIn?.user.id);
    if (invitation instanceof ServiceError) return linkRefused(res, invitation.message);
    await page(res, `Join ${invitation.workspaceName}`, 'invite', {
      ...invitation,
      token,
      signIn: `/app/login?next=${encodeURIComponent(`/app/invite?token=${encodeURIComponent(token)}`)}`,
      ...extra,
    });
  };
  router.get('/invite', async (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    // Reset links were printed on /app/invite before invitations had their own table.
    const unusable = (opened: object) => opened instanceof ServiceError;
    if (unusable(await openInvitation(runtime, token)) && !unusable(await openLink(runtime, token, 'reset'))) {
      return res.redirect(303, `/app/reset?token=${encodeURIComponent(token)}`);
    }
    await invitePage(res, token, {});
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
      if (accepted instanceof ServiceError) {
        if (accepted.code === 'invalid_link') return await linkRefused(res, accepted.message);
        // wrong_password and weak_password are 400, invalid_state (invited first elsewhere) 409.
        res.status(pageStatus(accepted.code));
        return await invitePage(res, token, { error: accepted.message });
      }
      if (who && who.user.id === accepted.userId) {
        await chooseWorkspace(runtime, req.cookies?.[sessionCookie] as string, accepted.userId, accepted.workspaceId);
        return res.redirect(303, '/app/inbox');
      }
      await signInAndGo(req, res, accepted.userId, accepted.workspaceId, '/app/inbox');
    } catch (error) {
      if (!(error instanceof RateLimitError)) throw error;
      res.status(429).set('Retry-After', String(error.retryAfter));
      await invitePage(res, token, {
        error: `Too many wrong passwords. Try again in ${Math.ceil(error.retryAfter / 60)} minutes.`,
      });
    }
  });

  // The workspace a person of several works in: asked at sign-in, switched from the header.
  router.get('/workspaces', async (req, res) => {
    const who = kit.signedIn(req, res);
    if (!who) return;
    await page(res, 'Choose a workspace', 'workspaces', {
      next: safeNext(req.query.next),
      current: who.workspace.id,
      workspaces: await workspacesOf(runtime.db, who.user.id),
    });
  });
  router.post(
    '/workspace',
    kit.act(async (who, req) => {
      const workspaceId = typeof req.body.workspace_id === 'string' ? req.body.workspace_id : '';
      await chooseWorkspace(runtime, req.cookies?.[sessionCookie] as string, who.user.id, workspaceId);
      return safeNext(req.body.next);
    }),
  );
  return router;
}
