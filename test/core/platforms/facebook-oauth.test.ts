import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeFacebook, type FakeFacebook } from '../../../fakes/facebook.ts';
import { ManualClock } from '../../../src/core/clock.ts';
import { FACEBOOK_SCOPES, facebookOAuth } from '../../../src/core/platforms/facebook/oauth.ts';
import { PlatformError, type OAuthApp, type OAuthProvider } from '../../../src/core/platforms/platform-client.ts';

const V = 'v24.0';
const clock = new ManualClock('2026-06-15T09:00:00.000Z');

let fb: FakeFacebook;
let provider: OAuthProvider;
let app: OAuthApp;
beforeEach(async () => {
  fb = await startFakeFacebook({ now: () => clock.now().getTime(), accountsPageSize: 2 });
  provider = facebookOAuth({ authBaseUrl: fb.url, apiBaseUrl: fb.url, graphVersion: V }, 5_000, clock);
  app = {
    clientId: fb.appId,
    clientSecret: fb.appSecret,
    redirectUri: 'https://svc.example.test/callbacks/facebook/oauth',
  };
});
afterEach(async () => {
  await fb.close();
});

/** The consent dialog over HTTP, as a browser follows it: the code from the redirect. */
async function consent(state = 'state-1'): Promise<string> {
  const response = await fetch(provider.authorizeUrl(app, { state }), { redirect: 'manual' });
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location')!);
  expect(location.searchParams.get('state')).toBe(state);
  return location.searchParams.get('code')!;
}

async function failure(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PlatformError);
  const message = (error as Error).message;
  expect(message).not.toContain(fb.appSecret);
  return error as PlatformError;
}

describe('Facebook OAuth', () => {
  it('sends the user to the versioned dialog with the Page scopes, comma-separated', () => {
    const url = new URL(provider.authorizeUrl(app, { state: 's' }));
    expect(`${url.origin}${url.pathname}`).toBe(`${fb.url}/${V}/dialog/oauth`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: fb.appId,
      redirect_uri: app.redirectUri,
      state: 's',
      scope: 'pages_show_list,pages_manage_posts,pages_read_engagement,publish_video',
      response_type: 'code',
    });
    expect(provider).toMatchObject({ platform: 'facebook', pkce: false, scopes: FACEBOOK_SCOPES });
    expect(provider.renewal).toBeUndefined();
  });

  it('trades the code for a long-lived user token, and connects the one Page with its non-expiring Page token', async () => {
    const grant = await provider.exchangeCode(app, { code: await consent() });
    expect(grant.refreshToken).toBeNull();
    expect(grant.expiresAt).toEqual(new Date(clock.now().getTime() + 60 * 86_400_000));
    expect(fb.log.calls('token')).toHaveLength(1);
    expect(fb.log.calls('token.exchange')[0]!.query).toMatchObject({
      grant_type: 'fb_exchange_token',
      client_id: fb.appId,
      client_secret: fb.appSecret,
    });

    const accounts = await provider.connectableAccounts!(app, grant);
    const page = fb.users[0]!.pages[0]!;
    expect(accounts).toEqual([
      {
        profile: {
          platformUserId: page.id,
          username: 'Fake Bakery',
          displayName: 'Fake Bakery',
          profileUrl: `https://www.facebook.com/${page.id}`,
        },
        grant: {
          accessToken: expect.stringMatching(/^EAAFP/),
          refreshToken: null,
          expiresAt: null,
          scopes: expect.arrayContaining(['pages_manage_posts', 'publish_video']),
        },
      },
    ]);
    // Long after the user token has expired, the Page token still reads the Page.
    fb.clock.advance(90 * 86_400_000);
    expect(await provider.profile(accounts[0]!.grant.accessToken)).toEqual(accounts[0]!.profile);
  });

  it('lists every Page across paged answers, following paging.next with the token in the header only', async () => {
    fb.script.loginAs(fb.users[1]!.id);
    const grant = await provider.exchangeCode(app, { code: await consent() });
    const accounts = await provider.connectableAccounts!(app, grant);
    expect(accounts.map((account) => account.profile.username)).toEqual(['Agency One', 'Agency Two', 'Agency Three']);
    const calls = fb.log.calls('me.accounts');
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call.query.access_token).toBeUndefined();
      expect(call.headers.authorization).toBe(`Bearer ${grant.accessToken}`);
    }
    expect(new Set(accounts.map((account) => account.grant.accessToken)).size).toBe(3);
  });

  it('leaves out Pages where the user cannot create content, and refuses a login with no usable Page', async () => {
    const userId = fb.users[1]!.id;
    fb.script.loginAs(userId);
    fb.script.pages(userId, [
      { id: '300000000000001', name: 'Can Post', tasks: ['CREATE_CONTENT', 'MANAGE'] },
      { id: '300000000000002', name: 'Analyst Only', tasks: ['ANALYZE'] },
    ]);
    const grant = await provider.exchangeCode(app, { code: await consent() });
    expect((await provider.connectableAccounts!(app, grant)).map((account) => account.profile.username)).toEqual([
      'Can Post',
    ]);

    fb.script.pages(userId, []);
    const none = await failure(provider.connectableAccounts!(app, grant));
    expect(none.kind).toBe('reauth_required');
    expect(none.message).toContain('no Page');
  });

  it('refuses a login that declined pages_manage_posts, naming it', async () => {
    fb.script.declinePermissions(['pages_manage_posts']);
    const grant = await provider.exchangeCode(app, { code: await consent() });
    const error = await failure(provider.connectableAccounts!(app, grant));
    expect(error.kind).toBe('reauth_required');
    expect(error.message).toContain('declined pages_manage_posts');
    expect(fb.log.calls('me.accounts')).toHaveLength(0);
  });

  it('connects without publish_video: text and photos still work', async () => {
    fb.script.declinePermissions(['publish_video']);
    const grant = await provider.exchangeCode(app, { code: await consent() });
    const [account] = await provider.connectableAccounts!(app, grant);
    expect(account!.grant.scopes).not.toContain('publish_video');
  });

  it('sorts token-endpoint refusals: a used code asks to connect again, a wrong secret points at the app', async () => {
    const code = await consent();
    await provider.exchangeCode(app, { code });
    const used = await failure(provider.exchangeCode(app, { code }));
    expect(used.kind).toBe('reauth_required');
    expect(used.message).toContain('(#100/36009)');
    expect(used.message).not.toContain(code);

    const wrongSecret = await failure(
      provider.exchangeCode({ ...app, clientSecret: 'not-the-secret' }, { code: await consent() }),
    );
    expect(wrongSecret.kind).toBe('content_rejected');
    expect(wrongSecret.message).toContain('FACEBOOK_APP_SECRET');
    expect(wrongSecret.message).not.toContain('not-the-secret');

    fb.script.unavailable('token', 1);
    expect((await failure(provider.exchangeCode(app, { code: await consent() }))).kind).toBe('transient');
  });

  it('never refreshes: a Page token that stops working needs a new login', async () => {
    const error = await failure(provider.refresh(app, 'anything'));
    expect(error.kind).toBe('reauth_required');
  });

  it('answers a revoked token on the profile read as reauth_required', async () => {
    const pageToken = fb.issueTokens(fb.users[0]!.id).pageTokens[fb.users[0]!.pages[0]!.id]!;
    fb.script.revoke(fb.users[0]!.id);
    const error = await failure(provider.profile(pageToken));
    expect(error.kind).toBe('reauth_required');
    expect(error.message).not.toContain(pageToken);
  });
});
