/**
 * Instagram renews its 60-day token itself (ig_refresh_token), only in the maintenance pass, and only
 * once the token is a day old and has less than a week left: the pass against the fake, on one clock.
 */
import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { socialAccounts } from '../../../db/schema/index.ts';
import { fakePlatformEnvironment } from '../../../fakes/environment.ts';
import { startFakeInstagram, type FakeInstagram } from '../../../fakes/instagram.ts';
import { tokenSourceFor } from '../../../src/core/social-accounts/token-lifecycle.ts';
import { refreshExpiringTokens } from '../../../src/core/social-accounts/token-lifecycle.ts';
import { readTokens } from '../../../src/core/social-accounts/tokens.ts';
import { makeWorkspace } from '../../helpers/factories.ts';
import { connectLiveAccount } from '../../helpers/publishing.ts';
import { testRuntime, type TestRuntime } from '../../helpers/runtime.ts';

const DAY = 24 * 3600 * 1000;

describe('Instagram token renewal in maintenance', () => {
  let ig: FakeInstagram;
  let runtime: TestRuntime;

  beforeEach(async () => {
    ig = await startFakeInstagram();
    runtime = await testRuntime({ env: fakePlatformEnvironment({ instagram: ig }) });
    // One clock for both sides: the test moves them together.
    ig.clock.set(runtime.clock.now().getTime());
  });
  afterEach(async () => {
    await ig.close();
  });

  const renew = () => refreshExpiringTokens(runtime, (platform) => tokenSourceFor(runtime, platform));

  it('renews a 60-day token only when it is a day old and within a week of expiry, keeping the account active', async () => {
    const ws = await makeWorkspace(runtime);
    const user = ig.users[0]!;
    const issued = ig.issueTokens(user.userId);
    const expiresAt = new Date(runtime.clock.now().getTime() + issued.expiresIn * 1000);
    const account = await connectLiveAccount(runtime, ws.workspace, 'instagram', {
      accessToken: issued.accessToken,
      expiresAt,
    });

    // A fresh 60-day token: nothing to do, and the fake is not asked.
    expect(await renew()).toEqual({ refreshed: 0, failed: 0 });
    expect(ig.log.calls('token.refresh')).toHaveLength(0);

    // Six days before expiry (and far past a day old): renewed once, for another 60 days.
    const later = expiresAt.getTime() - 6 * DAY;
    runtime.clock.set(later);
    ig.clock.set(later);
    expect(await renew()).toEqual({ refreshed: 1, failed: 0 });
    const renewed = (await readTokens(runtime, account.id))!;
    expect(renewed.accessToken).not.toBe(issued.accessToken);
    expect(renewed.expiresAt!.getTime()).toBeGreaterThan(later + 50 * DAY);
    expect(renewed.refreshToken).toBeNull();
    expect(ig.log.calls('token.refresh')).toHaveLength(1);

    // The renewed token is young again: the next passes leave it alone.
    expect(await renew()).toEqual({ refreshed: 0, failed: 0 });
    expect(
      (await runtime.db.select().from(socialAccounts).where(eq(socialAccounts.id, account.id)).get())!.status,
    ).toBe('active');
  });

  it('does not renew a token younger than a day, even close to its expiry', async () => {
    const ws = await makeWorkspace(runtime);
    const issued = ig.issueTokens(ig.users[0]!.userId);
    // Stored as expiring in 3 days (within the week), but issued just now.
    const account = await connectLiveAccount(runtime, ws.workspace, 'instagram', {
      accessToken: issued.accessToken,
      expiresAt: new Date(runtime.clock.now().getTime() + 3 * DAY),
    });
    runtime.clock.advance(23 * 3600 * 1000);
    ig.clock.advance(23 * 3600 * 1000);
    expect(await renew()).toEqual({ refreshed: 0, failed: 0 });
    expect(ig.log.calls('token.refresh')).toHaveLength(0);

    runtime.clock.advance(2 * 3600 * 1000);
    ig.clock.advance(2 * 3600 * 1000);
    expect(await renew()).toEqual({ refreshed: 1, failed: 0 });
    expect((await readTokens(runtime, account.id))!.accessToken).not.toBe(issued.accessToken);
  });
});
