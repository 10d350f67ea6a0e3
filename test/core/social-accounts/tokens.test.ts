import { eq, sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { socialAccounts } from '../../../db/schema/index.ts';
import { contextFor } from '../../../src/core/context.ts';
import { runOperation } from '../../../src/core/operation.ts';
import {
  connectSocialAccount,
  countActiveAccounts,
  listSocialAccounts,
  platformAccountsOf,
} from '../../../src/core/social-accounts/operations.ts';
import { reconnectBy, toSocialAccountResource } from '../../../src/core/social-accounts/serialize.ts';
import {
  readTokens,
  releaseRefreshLease,
  storeTokens,
  takeRefreshLease,
} from '../../../src/core/social-accounts/tokens.ts';
import { makeWorkspace, type TestWorkspace } from '../../helpers/factories.ts';
import { testRuntime, type TestRuntime } from '../../helpers/runtime.ts';

const ACCESS = 'access-token-AAAA-1111';
const REFRESH = 'refresh-token-RRRR-2222';
const DAY = 24 * 60 * 60 * 1000;

describe('social account tokens and the live fields', () => {
  let runtime: TestRuntime;
  let ws: TestWorkspace;
  let accountId: string;
  beforeEach(async () => {
    runtime = await testRuntime();
    ws = await makeWorkspace(runtime, { plan: 'pro' });
    accountId = (
      await connectSocialAccount(runtime, {
        workspaceId: ws.workspace.id,
        platform: 'linkedin',
        username: 'acme',
      })
    ).id;
  });
  const row = async () =>
    (await runtime.db.select().from(socialAccounts).where(eq(socialAccounts.id, accountId)).get())!;
  const makeLive = async (fields: Partial<typeof socialAccounts.$inferInsert> = {}) =>
    runtime.db
      .update(socialAccounts)
      .set({ mode: 'live', scopes: ['openid', 'profile', 'w_member_social'], ...fields })
      .where(eq(socialAccounts.id, accountId))
      .run();
  const setStatus = async (status: 'active' | 'needs_reconnect' | 'disconnected') =>
    runtime.db.update(socialAccounts).set({ status }).where(eq(socialAccounts.id, accountId)).run();

  it('stores tokens encrypted at rest and reads them back decrypted', async () => {
    const expiresAt = new Date('2026-05-09T12:00:00.000Z');
    expect(await storeTokens(runtime, accountId, { accessToken: ACCESS, refreshToken: REFRESH, expiresAt })).toBe(true);
    const stored = await row();
    for (const column of [stored.accessTokenEncrypted, stored.refreshTokenEncrypted]) {
      expect(column).toEqual(expect.any(String));
      expect(column).not.toContain(ACCESS);
      expect(column).not.toContain(REFRESH);
    }
    // Nothing anywhere in the raw row (as the database holds it) carries a token in clear.
    const raw = JSON.stringify(await runtime.db.all(sql`select * from social_accounts`));
    expect(raw).not.toContain(ACCESS);
    expect(raw).not.toContain(REFRESH);
    expect(await readTokens(runtime, accountId)).toEqual({
      accessToken: ACCESS,
      refreshToken: REFRESH,
      expiresAt,
      refreshTokenExpiresAt: null,
      issuedAt: runtime.clock.now(),
    });
  });

  it('has no tokens for a sandbox account, and an unknown account stores nothing', async () => {
    expect(await readTokens(runtime, accountId)).toBeNull();
    expect(await storeTokens(runtime, 'no-such-account', { accessToken: ACCESS, expiresAt: null })).toBe(false);
  });

  it('stores a rotated refresh token with its access token, and an empty one never overwrites the stored one', async () => {
    await storeTokens(runtime, accountId, {
      accessToken: 'first-access',
      refreshToken: 'first-refresh',
      expiresAt: new Date('2026-03-10T14:00:30.000Z'),
      refreshTokenExpiresAt: new Date('2026-09-10T00:00:00.000Z'),
    });
    await storeTokens(runtime, accountId, {
      accessToken: 'second-access',
      refreshToken: 'second-refresh',
      expiresAt: new Date('2026-03-10T16:00:30.000Z'),
    });
    expect(await readTokens(runtime, accountId)).toMatchObject({
      accessToken: 'second-access',
      refreshToken: 'second-refresh',
      refreshTokenExpiresAt: null,
    });
    for (const refreshToken of [undefined, null, '']) {
      await storeTokens(runtime, accountId, {
        accessToken: 'third-access',
        refreshToken,
        expiresAt: new Date('2026-03-10T18:00:30.000Z'),
      });
      expect(await readTokens(runtime, accountId)).toEqual({
        accessToken: 'third-access',
        refreshToken: 'second-refresh',
        expiresAt: new Date('2026-03-10T18:00:30.000Z'),
        refreshTokenExpiresAt: null,
        issuedAt: runtime.clock.now(),
      });
    }
  });

  it('records the granted scopes only when a grant names them', async () => {
    await storeTokens(runtime, accountId, {
      accessToken: ACCESS,
      expiresAt: null,
      scopes: ['openid', 'w_member_social'],
    });
    await storeTokens(runtime, accountId, { accessToken: ACCESS, expiresAt: null });
    expect((await row()).scopes).toEqual(['openid', 'w_member_social']);
  });

  it('gives the refresh lease to one holder at a time, until it is released or runs out', async () => {
    const now = runtime.clock.now();
    const first = await takeRefreshLease(runtime.db, accountId, now, 30_000);
    expect(first).toEqual(expect.any(String));
    expect(await takeRefreshLease(runtime.db, accountId, now, 30_000)).toBeNull();
    expect(await takeRefreshLease(runtime.db, accountId, new Date(now.getTime() + 29_999), 30_000)).toBeNull();

    expect(await releaseRefreshLease(runtime.db, accountId, 'not-the-holder')).toBe(false);
    expect(await releaseRefreshLease(runtime.db, accountId, first!)).toBe(true);
    const second = await takeRefreshLease(runtime.db, accountId, now, 30_000);
    expect(second).toEqual(expect.any(String));
    expect(second).not.toBe(first);

    // A lease that ran out goes to the next taker; the old holder can neither release it nor store with it.
    const third = await takeRefreshLease(runtime.db, accountId, new Date(now.getTime() + 30_000), 30_000);
    expect(third).toEqual(expect.any(String));
    expect(await releaseRefreshLease(runtime.db, accountId, second!)).toBe(false);
    expect(await storeTokens(runtime, accountId, { accessToken: 'stale', expiresAt: null }, second!)).toBe(false);
    expect(await readTokens(runtime, accountId)).toBeNull();
    expect(await storeTokens(runtime, accountId, { accessToken: 'fresh', expiresAt: null }, third!)).toBe(true);
    expect((await readTokens(runtime, accountId))?.accessToken).toBe('fresh');
  });

  it('keeps is_active true exactly when the status is active', async () => {
    const active = async () => ({
      row: (await row()).isActive,
      count: await countActiveAccounts(runtime.db, ws.workspace.id),
    });
    expect(await active()).toEqual({ row: true, count: 1 });
    for (const status of ['needs_reconnect', 'disconnected'] as const) {
      await setStatus(status);
      expect(await active()).toEqual({ row: false, count: 0 });
      expect((await platformAccountsOf(runtime.db, ws.workspace.id))('linkedin').state).toBe('inactive');
    }
    await setStatus('active');
    expect(await active()).toEqual({ row: true, count: 1 });
  });

  it('shows a live account over the list with its fields and never a token', async () => {
    await makeLive({ profileUrl: 'https://www.linkedin.com/in/acme' });
    await storeTokens(runtime, accountId, {
      accessToken: ACCESS,
      refreshToken: REFRESH,
      expiresAt: new Date('2026-03-10T14:00:30.000Z'),
      refreshTokenExpiresAt: new Date('2027-03-10T12:00:30.000Z'),
    });
    await takeRefreshLease(runtime.db, accountId, runtime.clock.now(), 30_000);
    const list = await runOperation(listSocialAccounts, contextFor(runtime, ws.workspace, 'rest'), {});
    expect(list.data).toEqual([
      expect.objectContaining({
        id: accountId,
        mode: 'live',
        status: 'active',
        is_active: true,
        scopes: ['openid', 'profile', 'w_member_social'],
        token_expires_at: '2026-03-10T14:00:30.000Z',
        reconnect_by: null,
        profile_url: 'https://www.linkedin.com/in/acme',
      }),
    ]);
    const text = JSON.stringify(list);
    expect(text).not.toContain(ACCESS);
    expect(text).not.toContain(REFRESH);
    expect(text).not.toContain((await row()).accessTokenEncrypted!);
    expect(text).not.toMatch(/token_encrypted|lease|refresh/i);
  });

  describe('reconnect_by', () => {
    const expiresAt = new Date('2026-05-09T12:00:00.000Z');
    const by = new Date(expiresAt.getTime() - 7 * DAY);
    const at = async (time: number) => reconnectBy(await row(), new Date(time));

    it('is 7 days before expiry for a live token that cannot be refreshed, from that moment on', async () => {
      await makeLive();
      await storeTokens(runtime, accountId, { accessToken: ACCESS, expiresAt });
      expect(await at(by.getTime() - 1)).toBeNull();
      expect(await at(by.getTime())).toEqual(by);
      expect(await at(expiresAt.getTime() + DAY)).toEqual(by);
      expect(toSocialAccountResource(await row(), by).reconnect_by).toBe('2026-05-02T12:00:00.000Z');
    });

    it('is null for a refreshable token, a token without expiry, a sandbox account and an inactive one', async () => {
      await makeLive();
      await storeTokens(runtime, accountId, { accessToken: ACCESS, refreshToken: REFRESH, expiresAt });
      expect(await at(expiresAt.getTime())).toBeNull();

      await makeLive({ refreshTokenEncrypted: null, tokenExpiresAt: null });
      expect(await at(expiresAt.getTime())).toBeNull();

      await makeLive({ tokenExpiresAt: expiresAt });
      expect(await at(expiresAt.getTime())).toEqual(by);
      await setStatus('needs_reconnect');
      expect(await at(expiresAt.getTime())).toBeNull();

      await setStatus('active');
      await runtime.db.update(socialAccounts).set({ mode: 'sandbox' }).where(eq(socialAccounts.id, accountId)).run();
      expect(await at(expiresAt.getTime())).toBeNull();
    });
  });
});
