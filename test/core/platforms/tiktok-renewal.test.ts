/**
 * TikTok rotates refresh tokens: the maintenance pass spends the stored one once, stores the new pair
 * in one write, and the fake refuses the old refresh token afterwards.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakePlatformEnvironment } from '../../../fakes/environment.ts';
import { startFakeTikTok, type FakeTikTok } from '../../../fakes/tiktok.ts';
import { tokenSourceFor } from '../../../src/core/social-accounts/token-lifecycle.ts';
import { refreshExpiringTokens } from '../../../src/core/social-accounts/token-lifecycle.ts';
import { readTokens } from '../../../src/core/social-accounts/tokens.ts';
import { makeWorkspace } from '../../helpers/factories.ts';
import { connectLiveAccount } from '../../helpers/publishing.ts';
import { testRuntime, type TestRuntime } from '../../helpers/runtime.ts';

describe('TikTok token rotation in maintenance', () => {
  let tiktok: FakeTikTok;
  let runtime: TestRuntime;

  beforeEach(async () => {
    tiktok = await startFakeTikTok();
    runtime = await testRuntime({ env: fakePlatformEnvironment({ tiktok }) });
    tiktok.clock.set(runtime.clock.now().getTime());
  });
  afterEach(async () => {
    await tiktok.close();
  });

  it('refreshes a token expiring within the hour, stores the rotated pair together, and never spends the old one again', async () => {
    const ws = await makeWorkspace(runtime);
    const issued = tiktok.issueTokens(tiktok.users[0]!.open_id);
    const account = await connectLiveAccount(runtime, ws.workspace, 'tiktok', {
      accessToken: issued.accessToken,
      refreshToken: issued.refreshToken!,
      // Due for the pass: it expires within the hour.
      expiresAt: new Date(runtime.clock.now().getTime() + 30 * 60_000),
    });

    expect(await refreshExpiringTokens(runtime, (platform) => tokenSourceFor(runtime, platform))).toEqual({
      refreshed: 1,
      failed: 0,
    });
    const stored = (await readTokens(runtime, account.id))!;
    expect(stored.accessToken).not.toBe(issued.accessToken);
    expect(stored.refreshToken).not.toBe(issued.refreshToken);
    expect(stored.refreshTokenExpiresAt).not.toBeNull();
    const refreshes = tiktok.log.calls('token').filter((call) => (call.body as any)?.grant_type === 'refresh_token');
    expect(refreshes).toHaveLength(1);

    // The pass again: the new token has hours left, so nothing is spent.
    await refreshExpiringTokens(runtime, (platform) => tokenSourceFor(runtime, platform));
    expect(tiktok.log.calls('token').filter((call) => (call.body as any)?.grant_type === 'refresh_token')).toHaveLength(
      1,
    );

    const reuse = await fetch(`${tiktok.url}/v2/oauth/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_key: tiktok.clientKey,
        client_secret: tiktok.clientSecret,
        grant_type: 'refresh_token',
        refresh_token: issued.refreshToken!,
      }),
    });
    expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' });
  });
});
