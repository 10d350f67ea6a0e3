import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLinkedIn, type FakeLinkedIn } from '../../../fakes/linkedin.ts';
import { fakePlatformEnvironment } from '../../../fakes/environment.ts';
import { startFakeX, type FakeX } from '../../../fakes/x.ts';
import { ManualClock } from '../../../src/core/clock.ts';
import { loadConfig } from '../../../src/core/config.ts';
import { PlatformError, type OAuthApp } from '../../../src/core/platforms/platform-client.ts';
import { OAUTH_PLATFORMS, oauthApp, oauthProvider } from '../../../src/core/platforms/registry.ts';

/** The refresh half of the OAuth clients, which the publishing framework relies on, against the fakes. */
describe('live OAuth providers', () => {
  const clock = new ManualClock('2026-03-10T12:00:00.000Z');
  let x: FakeX;
  let linkedIn: FakeLinkedIn;
  let config: ReturnType<typeof loadConfig>;

  beforeAll(async () => {
    x = await startFakeX({ now: () => clock.now().getTime() });
    linkedIn = await startFakeLinkedIn({ now: () => clock.now().getTime(), issueRefreshTokens: true });
    config = loadConfig({
      PUBLIC_BASE_URL: 'https://api.example.test/',
      PLATFORM_TIMEOUT_SECONDS: '5',
      ...fakePlatformEnvironment({ x, linkedin: linkedIn }),
    });
  });
  afterAll(async () => {
    await x.close();
    await linkedIn.close();
  });

  const provider = (platform: string) => oauthProvider(config, clock, platform)!;
  const app = (platform: string) => oauthApp(config, platform)!;

  /** The error a promise rejects with, checked to be a PlatformError. */
  async function failure(promise: Promise<unknown>): Promise<PlatformError> {
    const error = await promise.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(PlatformError);
    return error as PlatformError;
  }

  it('serves every platform, and an app only with both credentials', () => {
    expect(OAUTH_PLATFORMS).toEqual(['twitter', 'linkedin', 'instagram', 'facebook', 'tiktok', 'threads']);
    expect(oauthProvider(config, clock, 'nope')).toBeNull();
    expect(oauthApp(config, 'nope')).toBeNull();
    for (const platform of ['instagram', 'facebook', 'tiktok', 'threads']) {
      expect(oauthProvider(config, clock, platform)?.platform).toBe(platform);
      // Not configured in this test: no credentials, no app.
      expect(oauthApp(config, platform)).toBeNull();
    }
    expect(app('twitter')).toEqual({
      clientId: x.clientId,
      clientSecret: x.clientSecret,
      redirectUri: 'https://api.example.test/callbacks/twitter/oauth',
    });
    const halfConfigured = loadConfig({ X_CLIENT_ID: 'id-only' });
    expect(oauthApp(halfConfigured, 'twitter')).toBeNull();
    expect(oauthProvider(halfConfigured, clock, 'twitter')).not.toBeNull();
  });

  it('X: a refresh rotates the pair, expiry on the injected clock; the old refresh token is then reauth_required', async () => {
    const issued = x.issueTokens(x.users[0]!.id);
    const grant = await provider('twitter').refresh(app('twitter'), issued.refreshToken!);
    expect(grant).toMatchObject({
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      expiresAt: new Date(clock.now().getTime() + 7200 * 1000),
      scopes: ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'],
    });
    expect(grant.accessToken).not.toBe(issued.accessToken);
    expect(grant.refreshToken).not.toBe(issued.refreshToken);
    expect(x.log.last('token')!.headers.authorization).toMatch(/^Basic /);

    const reused = await failure(provider('twitter').refresh(app('twitter'), issued.refreshToken!));
    expect(reused.kind).toBe('reauth_required');
    expect(reused.details.status).toBe(400);
    expect(reused.message).toContain('invalid_request');
    expect(reused.message).not.toContain(issued.refreshToken!);

    const profile = await provider('twitter').profile(grant.accessToken);
    expect(profile).toEqual({
      platformUserId: x.users[0]!.id,
      username: x.users[0]!.username,
      displayName: x.users[0]!.name,
      profileUrl: `https://x.com/${x.users[0]!.username}`,
    });
  });

  it('X: a 5xx and an unreachable host are transient; a wrong client secret is not reauth, and the secret stays out of the message', async () => {
    const issued = x.issueTokens(x.users[0]!.id);
    x.script.unavailable('token', 1);
    const unavailable = await failure(provider('twitter').refresh(app('twitter'), issued.refreshToken!));
    expect(unavailable).toMatchObject({ kind: 'transient', details: { status: 503 } });

    const unreachable = oauthProvider(
      loadConfig({ X_API_BASE_URL: 'http://127.0.0.1:9', PLATFORM_TIMEOUT_SECONDS: '2' }),
      clock,
      'twitter',
    )!;
    expect((await failure(unreachable.refresh(app('twitter'), issued.refreshToken!))).kind).toBe('transient');

    const wrongSecret = { ...app('twitter'), clientSecret: 'not-the-registered-secret' } satisfies OAuthApp;
    const refused = await failure(provider('twitter').refresh(wrongSecret, issued.refreshToken!));
    expect(refused.kind).toBe('content_rejected');
    expect(refused.message).toContain('unauthorized_client');
    expect(refused.message).not.toContain('not-the-registered-secret');
  });

  it('X: the profile read with a revoked token is reauth_required', async () => {
    const issued = x.issueTokens(x.users[1]!.id);
    x.script.revoke(x.users[1]!.id);
    const revoked = await failure(provider('twitter').profile(issued.accessToken));
    expect(revoked).toMatchObject({ kind: 'reauth_required', details: { status: 401 } });
  });

  it('LinkedIn: a refresh sends the credentials in the form; a bad refresh token is reauth_required', async () => {
    const issued = linkedIn.issueTokens(linkedIn.members[0]!.sub);
    const grant = await provider('linkedin').refresh(app('linkedin'), issued.refreshToken!);
    expect(grant.expiresAt).toEqual(new Date(clock.now().getTime() + 60 * 86_400 * 1000));
    expect(grant.scopes).toEqual(['openid', 'profile', 'email', 'w_member_social']);
    expect(linkedIn.log.last('token')!.body).toMatchObject({
      grant_type: 'refresh_token',
      client_id: linkedIn.clientId,
    });
    const refused = await failure(provider('linkedin').refresh(app('linkedin'), 'not-a-refresh-token'));
    expect(refused.kind).toBe('reauth_required');
  });

  it('LinkedIn: the profile comes from userinfo, without a profile URL', async () => {
    const member = linkedIn.members[1]!;
    const issued = linkedIn.issueTokens(member.sub);
    expect(await provider('linkedin').profile(issued.accessToken)).toEqual({
      platformUserId: member.sub,
      username: member.name,
      displayName: member.name,
      profileUrl: null,
    });
    linkedIn.script.revoke(member.sub);
    expect((await failure(provider('linkedin').profile(issued.accessToken))).kind).toBe('reauth_required');
  });
});
