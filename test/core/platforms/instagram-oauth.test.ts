import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeInstagram, type FakeInstagram } from '../../../fakes/instagram.ts';
import { ManualClock } from '../../../src/core/clock.ts';
import { instagramOAuth, INSTAGRAM_SCOPES } from '../../../src/core/platforms/instagram/oauth.ts';
import { PlatformError, type OAuthApp, type OAuthProvider } from '../../../src/core/platforms/platform-client.ts';

const NOW = Date.UTC(2026, 5, 15, 9);
const DAY = 86_400_000;
const REDIRECT_URI = 'http://127.0.0.1:3000/callbacks/instagram/oauth';

let ig: FakeInstagram;
let clock: ManualClock;
let oauth: OAuthProvider;
let app: OAuthApp;
beforeEach(async () => {
  clock = new ManualClock(new Date(NOW));
  ig = await startFakeInstagram({ now: () => clock.now().getTime(), redirectUris: [REDIRECT_URI] });
  oauth = instagramOAuth({ authBaseUrl: ig.url, tokenBaseUrl: ig.url, apiBaseUrl: ig.url }, 5_000, clock);
  app = { clientId: ig.clientId, clientSecret: ig.clientSecret, redirectUri: REDIRECT_URI };
});
afterEach(async () => {
  await ig.close();
});

async function refusal(pending: Promise<unknown>): Promise<PlatformError> {
  const error = await pending.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

/** Drives the consent page over HTTP, as a browser would, and answers the callback's query. */
async function consent(state = 'state-1'): Promise<URLSearchParams> {
  const response = await fetch(oauth.authorizeUrl(app, { state }), { redirect: 'manual' });
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location')!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
  return location.searchParams;
}

describe('Instagram OAuth (Instagram Login)', () => {
  it('builds the authorize URL on the auth host with the comma-separated scopes and state, without PKCE', () => {
    const url = new URL(oauth.authorizeUrl(app, { state: 'abc' }));
    expect(`${url.origin}${url.pathname}`).toBe(`${ig.url}/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: ig.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'instagram_business_basic,instagram_business_content_publish',
      state: 'abc',
    });
    expect(oauth.pkce).toBe(false);
    expect(oauth.scopes).toEqual(INSTAGRAM_SCOPES);
    expect(oauth.renewal).toEqual({ by: 'access_token', minAgeMs: DAY, withinMs: 7 * DAY });
  });

  it('trades the code for a one-hour token, then at once for a 60-day token, and reads the professional account', async () => {
    const query = await consent();
    expect(query.get('state')).toBe('state-1');
    const grant = await oauth.exchangeCode(app, { code: query.get('code')! });

    expect(grant.refreshToken).toBeNull();
    expect(grant.expiresAt!.getTime()).toBe(NOW + 60 * DAY);
    expect(grant.scopes).toEqual([...INSTAGRAM_SCOPES]);
    expect(ig.log.calls('token')[0]!.body).toMatchObject({
      grant_type: 'authorization_code',
      redirect_uri: REDIRECT_URI,
    });
    expect(ig.log.calls('token.exchange')[0]!.query.grant_type).toBe('ig_exchange_token');

    const profile = await oauth.profile(grant.accessToken);
    const user = ig.users[0]!;
    expect(profile).toEqual({
      platformUserId: user.userId,
      username: user.username,
      displayName: user.name,
      profileUrl: `https://www.instagram.com/${user.username}`,
    });
  });

  it('answers access_denied on the redirect when the user cancels', async () => {
    ig.script.denyConsent();
    const query = await consent();
    expect(query.get('error')).toBe('access_denied');
    expect(query.get('code')).toBeNull();
  });

  it('refuses a used code as reauth_required, and a wrong secret as content_rejected without quoting the secret', async () => {
    const code = (await consent()).get('code')!;
    await oauth.exchangeCode(app, { code });
    const reused = await refusal(oauth.exchangeCode(app, { code }));
    expect(reused.kind).toBe('reauth_required');
    expect(reused.message).toContain('Invalid authorization code');

    const secret = 'not-the-secret-123456';
    const wrong = await refusal(
      oauth.exchangeCode({ ...app, clientSecret: secret }, { code: (await consent()).get('code')! }),
    );
    expect(wrong.kind).toBe('content_rejected');
    expect(wrong.message).toContain('INSTAGRAM_APP_SECRET');
    expect(wrong.message).not.toContain(secret);
  });

  it('refreshes the 60-day token with ig_refresh_token only once it is 24 hours old', async () => {
    const grant = await oauth.exchangeCode(app, { code: (await consent()).get('code')! });
    const young = await refusal(oauth.refresh(app, grant.accessToken));
    expect(young.kind).toBe('content_rejected');
    expect(young.message).toContain('24 hours');
    expect(young.message).not.toContain(grant.accessToken);

    clock.advance(25 * 3600_000);
    const renewed = await oauth.refresh(app, grant.accessToken);
    expect(renewed.accessToken).not.toBe(grant.accessToken);
    expect(renewed.expiresAt!.getTime()).toBe(clock.now().getTime() + 60 * DAY);
    expect(ig.log.last('token.refresh')!.query.grant_type).toBe('ig_refresh_token');
  });

  it('answers reauth_required (190) for a revoked token on refresh and profile, a 5xx as transient', async () => {
    const grant = await oauth.exchangeCode(app, { code: (await consent()).get('code')! });
    ig.script.unavailable('me', 1);
    expect((await refusal(oauth.profile(grant.accessToken))).kind).toBe('transient');

    ig.script.revoke(ig.users[0]!.userId);
    clock.advance(2 * DAY);
    const refresh = await refusal(oauth.refresh(app, grant.accessToken));
    expect(refresh.kind).toBe('reauth_required');
    expect(refresh.message).toContain('190');
    expect((await refusal(oauth.profile(grant.accessToken))).kind).toBe('reauth_required');
  });
});
