import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeThreads, type FakeThreads } from '../../../fakes/threads.ts';
import { ManualClock } from '../../../src/core/clock.ts';
import { PlatformError } from '../../../src/core/platforms/platform-client.ts';
import { threadsOAuth, THREADS_SCOPES } from '../../../src/core/platforms/threads/oauth.ts';

const DAY = 86_400_000;

describe('Threads OAuth', () => {
  const clock = new ManualClock('2026-11-27T09:00:00.000Z');
  let th: FakeThreads;
  beforeEach(async () => {
    th = await startFakeThreads({ now: () => clock.now().getTime() });
  });
  afterEach(async () => {
    await th.close();
  });
  const provider = () => threadsOAuth({ authBaseUrl: th.url, apiBaseUrl: th.url }, 5_000, clock);
  const app = () => ({
    clientId: th.appId,
    clientSecret: th.appSecret,
    redirectUri: 'https://svc.example/callbacks/threads/oauth',
  });

  async function consentCode(): Promise<string> {
    const url = provider().authorizeUrl(app(), { state: 'st-1' });
    expect(new URL(url).searchParams.get('scope')).toBe('threads_basic,threads_content_publish');
    const consent = await fetch(url, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const back = new URL(consent.headers.get('location')!);
    expect(back.searchParams.get('state')).toBe('st-1');
    return back.searchParams.get('code')!;
  }

  it('exchanges the code, then trades the short-lived token for a 60-day one; reads the profile', async () => {
    const grant = await provider().exchangeCode(app(), { code: await consentCode() });
    expect(grant.accessToken).toMatch(/^THfakeL/);
    expect(grant.refreshToken).toBeNull();
    expect(grant.expiresAt).toEqual(new Date(clock.now().getTime() + 60 * DAY));
    expect(grant.scopes).toEqual([...THREADS_SCOPES]);
    expect(th.log.calls('oauth.token')).toHaveLength(1);
    expect(th.log.calls('oauth.exchange')).toHaveLength(1);
    const profile = await provider().profile(grant.accessToken);
    expect(profile).toEqual({
      platformUserId: th.users[0]!.id,
      username: 'fake.threader',
      displayName: 'Fake Threader',
      profileUrl: 'https://www.threads.net/@fake.threader',
    });
  });

  it('a code used twice is reauth_required, and the message holds no secret', async () => {
    const code = await consentCode();
    await provider().exchangeCode(app(), { code });
    const error = await provider()
      .exchangeCode(app(), { code })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).kind).toBe('reauth_required');
    expect((error as PlatformError).message).not.toContain(th.appSecret);
    expect((error as PlatformError).message).not.toContain(code);
  });

  it('renews a long-lived token only once it is 24 hours old (th_refresh_token), as the renewal says', async () => {
    const { accessToken } = await provider().exchangeCode(app(), { code: await consentCode() });
    expect(provider().renewal).toEqual({ by: 'access_token', minAgeMs: DAY, withinMs: 7 * DAY });
    const early = await provider()
      .refresh(app(), accessToken)
      .catch((caught: unknown) => caught);
    expect(early).toBeInstanceOf(PlatformError);
    expect((early as PlatformError).message).toContain('24 hours');
    clock.advance(DAY);
    const renewed = await provider().refresh(app(), accessToken);
    expect(renewed.accessToken).not.toBe(accessToken);
    expect(renewed.expiresAt).toEqual(new Date(clock.now().getTime() + 60 * DAY));
  });

  it('a wrong app secret is content_rejected, pointing at the variables', async () => {
    const error = await provider()
      .exchangeCode({ ...app(), clientSecret: 'wrong' }, { code: await consentCode() })
      .catch((caught: unknown) => caught);
    expect((error as PlatformError).kind).toBe('content_rejected');
    expect((error as PlatformError).message).toContain('THREADS_APP_SECRET');
  });
});
