import { Router, type Response } from 'express';
import type { Runtime } from '../../core/context.ts';
import type { ListEnvelope } from '../../core/pagination.ts';
import {
  CREDENTIALS_PLATFORMS,
  OAUTH_PLATFORMS,
  PLATFORM_NAMES,
  accountHandle,
  oauthApp,
  oauthAppConfig,
  oauthProvider,
} from '../../core/platforms/registry.ts';
import { startSessionConnection } from '../../core/social-accounts/connect.ts';
import { disconnectAccount } from '../../core/social-accounts/disconnect.ts';
import { listSocialAccounts } from '../../core/social-accounts/operations.ts';
import { listSocialAccountsWithActions, reconnectSocialAccount } from '../../core/social-accounts/policy.ts';
import { allows, type Verdict } from '../../core/policy.ts';
import type { SocialAccountResource } from '../../core/social-accounts/serialize.ts';
import { adminOf, field, foundOr404, type PageKit } from './kit.ts';

const STATUS_LABELS: Record<SocialAccountResource['status'], string> = {
  active: 'Active',
  needs_reconnect: 'Needs reconnect',
  disconnected: 'Disconnected',
};

/**
 * The origins of the consent pages of the configured OAuth platforms, as their connect links name
 * them. A placeholder state (and PKCE challenge) is enough: only the origin is read.
 */
function consentOrigins(runtime: Runtime): string[] {
  const origins = new Set<string>();
  for (const platform of OAUTH_PLATFORMS) {
    const app = oauthApp(runtime.config, platform);
    const provider = oauthProvider(runtime.config, runtime.clock, platform);
    if (!app || !provider) continue;
    origins.add(new URL(provider.authorizeUrl(app, { state: 'origin', codeChallenge: 'A'.repeat(43) })).origin);
  }
  return [...origins];
}

/**
 * "Connect" and "Reconnect" are form POSTs answered with a redirect to the platform's consent page, and
 * a browser holds a form's whole redirect chain to the page's `form-action`: with `'self'` alone it
 * stops at the 303 and nothing happens. This page's forms may therefore also lead to the configured
 * platforms' consent origins (and nowhere else).
 */
function allowFormsToConsentPages(res: Response, origins: string[]) {
  const policy = res.getHeader('Content-Security-Policy');
  if (typeof policy !== 'string' || origins.length === 0) return;
  res.setHeader(
    'Content-Security-Policy',
    policy.replace(/(^|;)\s*form-action 'self'/, `$1form-action 'self' ${origins.join(' ')}`),
  );
}

/** /app/accounts: a card per account, connecting over OAuth (bound to the session), reconnect, disconnect. */
export function accountPages(runtime: Runtime, kit: PageKit): Router {
  const router = Router();

  router.get('/accounts', async (req, res) => {
    const who = await adminOf(kit, req, res, 'Accounts');
    if (!who) return;
    const accounts = (
      await kit.run<ListEnvelope<SocialAccountResource & { allowed_actions: Verdict[] }>>(
        who,
        listSocialAccountsWithActions,
        {},
      )
    ).data;
    const connected = [req.query.social_account_id ?? []].flat().length;
    const at = (iso: string | null) => (iso ? kit.fmt(who, new Date(iso)) : null);
    allowFormsToConsentPages(res, consentOrigins(runtime));
    await kit.page(
      res,
      'Accounts',
      'pages/accounts',
      {
        platforms: OAUTH_PLATFORMS.map((id) => ({
          id,
          name: PLATFORM_NAMES[id],
          configured: oauthApp(runtime.config, id) !== null,
          variables: oauthAppConfig(runtime.config, id)!.credentialVariables,
        })),
        // Platforms that sign in with an app password (Bluesky) get a form: the password goes to the
        // platform once and is never stored.
        credentialPlatforms: CREDENTIALS_PLATFORMS.map((id) => ({ id, name: PLATFORM_NAMES[id] })),
        accounts: accounts.map((a) => ({
          id: a.id,
          platform: a.platform,
          platformName: PLATFORM_NAMES[a.platform],
          handle: accountHandle(a.platform, { username: a.username }),
          mode: a.mode === 'live' ? 'Live' : 'Sandbox',
          status: a.status,
          statusLabel: STATUS_LABELS[a.status],
          profileUrl: a.profile_url && /^https?:\/\//.test(a.profile_url) ? a.profile_url : null,
          tokenExpires: at(a.token_expires_at),
          reconnectBy: at(a.reconnect_by),
          // Shown exactly when the social account policy allows reconnecting.
          reconnect: allows(a.allowed_actions, 'reconnect'),
        })),
        notice:
          req.query.done === 'disconnected'
            ? 'Account disconnected.'
            : connected > 0
              ? `Connected ${connected} account${connected === 1 ? '' : 's'}.`
              : req.query.error === 'access_denied'
                ? 'The connection was cancelled; nothing was connected.'
                : undefined,
      },
      'accounts',
    );
  });

  // Starts the platform's consent flow, bound to this session: the callback comes back here.
  router.post(
    '/accounts/connect',
    kit.act(async (who, req) => {
      const started = await kit.run<{ authorize_url: string }>(who, startSessionConnection, {
        platform: field(req.body, 'platform'),
        return_url: new URL('/app/accounts', runtime.config.publicBaseUrl).toString(),
        session_hash: who.sessionHash,
      });
      return started.authorize_url;
    }),
  );

  // Reconnects one account: a new consent for its platform, bound to this session (the account policy decides).
  router.post(
    '/accounts/:id/reconnect',
    kit.act(async (who, req) => {
      const started = await kit.run<{ authorize_url: string }>(who, reconnectSocialAccount, {
        id: req.params.id,
        return_url: new URL('/app/accounts', runtime.config.publicBaseUrl).toString(),
        session_hash: who.sessionHash,
      });
      return started.authorize_url;
    }),
  );

  router.post(
    '/accounts/connect-credentials',
    kit.act(async (who, req) => {
      const account = await kit.run<SocialAccountResource>(who, startSessionConnection, {
        platform: field(req.body, 'platform'),
        identifier: field(req.body, 'identifier'),
        app_password: field(req.body, 'app_password'),
        session_hash: who.sessionHash,
      });
      return `/app/accounts?social_account_id=${encodeURIComponent(account.id)}`;
    }),
  );

  router.get('/accounts/:id/disconnect', async (req, res) => {
    const who = await adminOf(kit, req, res, 'Accounts');
    if (!who) return;
    const account = await foundOr404(
      kit,
      res,
      async () =>
        (await kit.run<ListEnvelope<SocialAccountResource>>(who, listSocialAccounts, {})).data.find(
          (a) => a.id === req.params.id,
        ),
      {
        message: 'There is no such account in this workspace.',
        back: { href: '/app/accounts', text: 'Back to accounts' },
      },
    );
    if (!account) return;
    const handle = accountHandle(account.platform, { username: account.username });
    await kit.page(res, 'Disconnect this account?', 'pages/confirm', {
      question: `Disconnect ${handle} on ${PLATFORM_NAMES[account.platform]}?`,
      detail: 'Nothing is published to it until it is connected again. Its card stays here, so you can reconnect it.',
      action: `/app/accounts/${account.id}/disconnect`,
      button: 'Disconnect',
      back: '/app/accounts',
    });
  });
  router.post(
    '/accounts/:id/disconnect',
    kit.act(async (who, req) => {
      await kit.run(who, disconnectAccount, { id: req.params.id });
      return '/app/accounts?done=disconnected';
    }),
  );
  return router;
}
