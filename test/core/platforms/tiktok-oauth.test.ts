import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeTikTok, type FakeTikTok } from '../../../fakes/tiktok.ts';
import { ManualClock } from '../../../src/core/clock.ts';
import { PlatformError, type OAuthApp } from '../../../src/core/platforms/platform-client.ts';
import { tiktokOAuth } from '../../../src/core/platforms/tiktok/oauth.ts';

const REDIRECT_URI = 'https://api.example.test/callbacks/tiktok/oauth';

let clock: ManualClock;
let tt: FakeTikTok;
let app: OAuthApp;
beforeEach(async () => {
  clock = new ManualClock('2026-06-15T09:00:00.000Z');
  tt = await startFakeTikTok({ now: () => clock.now().getTime() });
  app = { clientId: tt.clientKey, clientSecret: tt.clientSecret, redirectUri: REDIRECT_URI };
});
afterEach(async () => {
  await tt.close();
});

const provider = () => tiktokOAuth({ authBaseUrl: tt.url, apiBaseUrl: tt.url }, 5_000, clock);

async function failure(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(PlatformError);
  expect((error as Error).message).not.toContain(tt.clientSecret);
  return error as PlatformError;
}

/** Follows the consent page as a browser would: the fake approves and redirects with the code. */
async function consent(): Promise<URL> {
  const response = await fetch(provider().authorizeUrl(app, { state: 'st-1' }), { redirect: 'manual' });
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location')!);
}

describe('TikTok OAuth', () => {
  it('builds the consent URL with client_key, comma-separated scopes, response_type, redirect_uri and state', () => {
    const url = new URL(provider().authorizeUrl(app, { state: 'st-1' }));
    expect(`${url.origin}${url.pathname}`).toBe(`${tt.url}/v2/auth/authorize/`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_key: tt.clientKey,
      scope: 'user.info.basic,video.publish',
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      state: 'st-1',
    });
    expect(provider().pkce).toBe(false);
  });

  it('exchanges the code (form-encoded, key and secret in the body) for a grant with both lifetimes as answered', async () => {
    const back = await consent();
    expect(back.searchParams.get('state')).toBe('st-1');
    const grant = await provider().exchangeCode(app, { code: back.searchParams.get('code')! });

    const now = clock.now().getTime();
    expect(grant).toEqual({
      accessToken: expect.stringMatching(/^act-/),
      refreshToken: expect.stringMatching(/^act-rt-/),
      expiresAt: new Date(now + 2 * 3600 * 1000),
      refreshTokenExpiresAt: new Date(now + 180 * 86_400 * 1000),
      scopes: ['user.info.basic', 'video.publish'],
    });
    const call = tt.log.last('token')!;
    expect(call.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(call.body).toEqual({
      client_key: tt.clientKey,
      client_secret: tt.clientSecret,
      code: back.searchParams.get('code'),
      grant_type: 'authorization_code',
      redirect_uri: REDIRECT_URI,
    });
  });

  it('a used code is reauth_required, a wrong secret content_rejected, and neither message carries the code or secret', async () => {
    const code = (await consent()).searchParams.get('code')!;
    await provider().exchangeCode(app, { code });
    const reused = await failure(provider().exchangeCode(app, { code }));
    expect(reused.kind).toBe('reauth_required');
    expect(reused.message).toContain('invalid_grant');
    expect(reused.message).not.toContain(code);

    const fresh = (await consent()).searchParams.get('code')!;
    const wrong = await failure(provider().exchangeCode({ ...app, clientSecret: 'not-the-secret' }, { code: fresh }));
    expect(wrong.kind).toBe('content_rejected');
    expect(wrong.message).toContain('invalid_client');
    expect(wrong.message).not.toContain('not-the-secret');
  });

  it('a refresh rotates the refresh token; the old one is then refused as reauth_required', async () => {
    const issued = tt.issueTokens(tt.users[0]!.open_id);
    clock.advance(60_000);
    const grant = await provider().refresh(app, issued.refreshToken!);
    expect(grant.refreshToken).not.toBe(issued.refreshToken);
    expect(grant.accessToken).not.toBe(issued.accessToken);
    expect(grant.expiresAt).toEqual(new Date(clock.now().getTime() + 2 * 3600 * 1000));
    expect(grant.refreshTokenExpiresAt).toEqual(new Date(clock.now().getTime() + 180 * 86_400 * 1000));
    expect(tt.log.last('token')!.body).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: issued.refreshToken,
    });

    const reused = await failure(provider().refresh(app, issued.refreshToken!));
    expect(reused.kind).toBe('reauth_required');
    expect(reused.message).not.toContain(issued.refreshToken!);
    // The rotated one still works.
    await provider().refresh(app, grant.refreshToken!);
  });

  it('reads the profile: open id and name from user info (basic fields only), the username from creator info', async () => {
    const user = tt.users[0]!;
    const { accessToken } = tt.issueTokens(user.open_id);
    const profile = await provider().profile(accessToken);
    expect(profile).toEqual({
      platformUserId: user.open_id,
      username: user.username,
      displayName: user.display_name,
      profileUrl: `https://www.tiktok.com/@${user.username}`,
    });
    expect(tt.log.last('user.info')!.query).toEqual({ fields: 'open_id,union_id,avatar_url,display_name' });
    expect(tt.log.calls('creator_info.query')).toHaveLength(1);
  });

  it('a revoked token makes the profile read reauth_required, without the token in the message', async () => {
    const { accessToken } = tt.issueTokens(tt.users[0]!.open_id);
    tt.script.revoke(tt.users[0]!.open_id);
    const refused = await failure(provider().profile(accessToken));
    expect(refused.kind).toBe('reauth_required');
    expect(refused.message).toContain('access_token_invalid');
    expect(refused.message).not.toContain(accessToken);
  });

  it('a refused consent comes back with error=access_denied and the state', async () => {
    tt.script.denyConsent();
    const back = await consent();
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('st-1');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('an OAuth error answered with a 200 is still read as the error it names', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_grant', error_description: 'Refresh token is invalid', log_id: 'L1' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const refused = await failure(
        tiktokOAuth({ authBaseUrl: base, apiBaseUrl: base }, 5_000, clock).refresh(app, 'rt'),
      );
      expect(refused.kind).toBe('reauth_required');
      expect(refused.message).toContain('invalid_grant');
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });
});
