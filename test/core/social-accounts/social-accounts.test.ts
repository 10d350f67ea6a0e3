import { eq } from 'drizzle-orm';
import { createHmac } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { dataDeletionRequests, socialAccounts } from '../../../db/schema/index.ts';
import { contextFor } from '../../../src/core/context.ts';
import { ServiceError } from '../../../src/core/errors.ts';
import { runOperation } from '../../../src/core/operation.ts';
import {
  getDataDeletionRequest,
  handlePlatformCallback,
  verifySignedRequest,
} from '../../../src/core/social-accounts/deauthorization.ts';
import {
  platformAccountsOf,
  connectSocialAccount,
  countActiveAccounts,
  disconnectSocialAccount,
  listSocialAccounts,
  unavailableAccountReason,
} from '../../../src/core/social-accounts/operations.ts';
import { makeWorkspace, type TestWorkspace } from '../../helpers/factories.ts';
import { eventsOf } from '../../helpers/rest-expect.ts';
import { TEST_START, testRuntime, type TestRuntime } from '../../helpers/runtime.ts';
import { signedRequest } from '../../helpers/signed-request.ts';

const SECRET = 'facebook-app-secret';

const sign = (payload: unknown, secret = SECRET): string => signedRequest(payload, secret);
const NOW = new Date(TEST_START);

/** Runs `work` and returns the ServiceError it throws (failing when it throws none or another kind). */
async function serviceError(work: () => unknown): Promise<ServiceError> {
  try {
    await work();
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error('expected a ServiceError');
}

const accountRows = async (runtime: TestRuntime) => runtime.db.select().from(socialAccounts).all();

describe('social accounts: connect, disconnect, lookup', () => {
  let runtime: TestRuntime;
  let ws: TestWorkspace;
  beforeEach(async () => {
    runtime = await testRuntime();
    ws = await makeWorkspace(runtime, { plan: 'starter' });
  });
  const connect = async (input: Partial<Parameters<typeof connectSocialAccount>[1]> = {}) =>
    connectSocialAccount(runtime, { workspaceId: ws.workspace.id, platform: 'twitter', username: 'acme', ...input });

  it('connects with every field, strips a leading @, and emits no event', async () => {
    const account = await connect({ username: '@acme', platformUserId: '1234567890', displayName: 'Acme Inc' });
    const now = runtime.clock.now().toISOString();
    expect(account).toEqual({
      id: account.id,
      object: 'social_account',
      platform: 'twitter',
      platform_user_id: '1234567890',
      username: 'acme',
      display_name: 'Acme Inc',
      mode: 'sandbox',
      status: 'active',
      is_active: true,
      scopes: [],
      token_expires_at: null,
      reconnect_by: null,
      profile_url: null,
      connected_at: now,
      created_at: now,
    });
    expect(await eventsOf(runtime)).toEqual([]);
  });

  it('makes up a 16-digit numeric platform user id when none is given', async () => {
    const ids = new Set(
      [await connect({ username: 'a' }), await connect({ username: 'b' })].map((a) => a.platform_user_id),
    );
    expect(ids.size).toBe(2);
    for (const id of ids) expect(id).toMatch(/^[1-9]\d{15}$/);
  });

  it('refuses an unknown platform, naming the known ids, and an empty or overlong username', async () => {
    const unknown = await serviceError(async () => connect({ platform: 'myspace' }));
    expect(unknown.code).toBe('invalid_body');
    expect(unknown.details?.fieldErrors.platform?.[0]).toContain('myspace');
    for (const id of ['twitter', 'linkedin', 'instagram', 'facebook', 'tiktok']) expect(unknown.message).toContain(id);
    expect((await serviceError(async () => connect({ username: '@' }))).details?.fieldErrors.username).toBeDefined();
    expect(
      (await serviceError(async () => connect({ username: 'x'.repeat(101) }))).details?.fieldErrors.username,
    ).toBeDefined();
    expect((await connect({ username: 'x'.repeat(100) })).username).toHaveLength(100);
    expect(await accountRows(runtime)).toHaveLength(1);
  });

  it('answers not_found for an unknown workspace', async () => {
    const error = await serviceError(async () => connect({ workspaceId: '00000000-0000-4000-8000-000000000000' }));
    expect(error.code).toBe('not_found');
    expect(await accountRows(runtime)).toEqual([]);
  });

  it('caps active accounts at platforms_limit: the limit fits, one more is quota_exceeded', async () => {
    expect(ws.workspace.features.platforms_limit).toBe(3);
    await connect({ platform: 'twitter' });
    await connect({ platform: 'linkedin' });
    await connect({ platform: 'instagram' });
    const over = await serviceError(async () => connect({ platform: 'facebook' }));
    expect(over.code).toBe('quota_exceeded');
    expect(over.message).toMatch(/3 active social accounts/);
    expect(over.message).toMatch(/starter/);
    expect(await countActiveAccounts(runtime.db, ws.workspace.id)).toBe(3);
    expect(await accountRows(runtime)).toHaveLength(3);
  });

  it('lets an inactive account free a slot, and refuses to reactivate one past the limit', async () => {
    const first = await connect({ platform: 'twitter', platformUserId: '111' });
    await connect({ platform: 'linkedin' });
    await connect({ platform: 'instagram' });
    await disconnectSocialAccount(runtime, first.id);
    const fourth = await connect({ platform: 'facebook' });
    expect(fourth.is_active).toBe(true);
    // The slot is taken again: reconnecting the first one would make four active.
    expect((await serviceError(async () => connect({ platform: 'twitter', platformUserId: '111' }))).code).toBe(
      'quota_exceeded',
    );
    expect((await accountRows(runtime)).find((r) => r.id === first.id)?.isActive).toBe(false);
  });

  it('reconnecting the same platform user reactivates and refreshes that row, even at the limit', async () => {
    const first = await connect({ platformUserId: '42', username: 'old', displayName: 'Old name' });
    await connect({ platform: 'linkedin' });
    await connect({ platform: 'instagram' });
    runtime.clock.advance(60_000);
    // Reconnecting an active account adds no active account: allowed at the limit.
    const refreshed = await connect({ platformUserId: '42', username: 'new' });
    expect(refreshed).toMatchObject({
      id: first.id,
      username: 'new',
      display_name: 'Old name',
      created_at: first.created_at,
    });
    expect(refreshed.connected_at).toBe(runtime.clock.now().toISOString());

    await disconnectSocialAccount(runtime, first.id);
    runtime.clock.advance(60_000);
    const again = await connect({ platformUserId: '42', username: 'new', displayName: 'New name' });
    expect(again).toMatchObject({ id: first.id, is_active: true, display_name: 'New name' });
    expect(await accountRows(runtime)).toHaveLength(3);
  });

  it('without a platform user id, the same platform and username (any case) is the same account', async () => {
    const first = await connect({ username: 'Acme' });
    await disconnectSocialAccount(runtime, first.id);
    const again = await connect({ username: '@acme' });
    expect(again).toMatchObject({ id: first.id, platform_user_id: first.platform_user_id, is_active: true });
    // Another platform, or another username, is another account.
    expect((await connect({ username: 'acme', platform: 'linkedin' })).id).not.toBe(first.id);
    expect((await connect({ username: 'acme2' })).id).not.toBe(first.id);
  });

  it('the same platform user may be connected to two workspaces, each counted on its own', async () => {
    const other = await makeWorkspace(runtime, { plan: 'free' });
    const mine = await connect({ platformUserId: '77' });
    const theirs = await connectSocialAccount(runtime, {
      workspaceId: other.workspace.id,
      platform: 'twitter',
      username: 'acme',
      platformUserId: '77',
    });
    expect(theirs.id).not.toBe(mine.id);
    expect(await countActiveAccounts(runtime.db, other.workspace.id)).toBe(1);
  });

  it('disconnect marks the account inactive, keeps the row, emits nothing; an unknown id is not_found', async () => {
    const account = await connect();
    const disconnected = await disconnectSocialAccount(runtime, account.id);
    expect(disconnected).toEqual({ ...account, status: 'disconnected', is_active: false });
    expect(await accountRows(runtime)).toHaveLength(1);
    expect(await eventsOf(runtime)).toEqual([]);
    expect(
      (await serviceError(async () => disconnectSocialAccount(runtime, '00000000-0000-4000-8000-000000000000'))).code,
    ).toBe('not_found');
  });

  it('listSocialAccounts returns the full set, newest first, in the list envelope, and only this workspace', async () => {
    const other = await makeWorkspace(runtime);
    await connectSocialAccount(runtime, { workspaceId: other.workspace.id, platform: 'twitter', username: 'theirs' });
    const a = await connect({ platform: 'twitter' });
    runtime.clock.advance(1000);
    const b = await connect({ platform: 'linkedin' });
    await disconnectSocialAccount(runtime, a.id);
    const list = await runOperation(listSocialAccounts, contextFor(runtime, ws.workspace, 'rest'), {});
    expect(list).toEqual({
      object: 'list',
      data: [b, { ...a, status: 'disconnected', is_active: false }],
      has_more: false,
      next_cursor: null,
    });
  });

  it('platformAccountsOf tells active, inactive and none apart, preferring the latest active account', async () => {
    const lookup = async () => (await platformAccountsOf(runtime.db, ws.workspace.id))('twitter');
    expect(await lookup()).toEqual({ state: 'none' });
    expect(unavailableAccountReason('twitter', await lookup())).toBe(
      'No connected twitter account in this workspace; connect one before publishing to twitter.',
    );

    const older = await connect({ username: 'older' });
    runtime.clock.advance(1000);
    const newer = await connect({ username: 'newer' });
    expect(await lookup()).toMatchObject({ state: 'active', account: { id: newer.id } });
    expect(unavailableAccountReason('twitter', await lookup())).toBeNull();

    await disconnectSocialAccount(runtime, newer.id);
    expect(await lookup()).toMatchObject({ state: 'active', account: { id: older.id } });
    await disconnectSocialAccount(runtime, older.id);
    const inactive = await lookup();
    expect(inactive).toMatchObject({ state: 'inactive', account: { id: newer.id } });
    expect(unavailableAccountReason('twitter', inactive)).toBe(
      'The twitter account @newer is inactive; reconnect it before publishing to twitter.',
    );
    // Another workspace's account and an unknown platform id are nothing to this one.
    const other = await makeWorkspace(runtime);
    await connectSocialAccount(runtime, { workspaceId: other.workspace.id, platform: 'linkedin', username: 'x' });
    expect((await platformAccountsOf(runtime.db, ws.workspace.id))('linkedin')).toEqual({ state: 'none' });
    expect((await platformAccountsOf(runtime.db, ws.workspace.id))('myspace')).toEqual({ state: 'none' });
  });
});

describe('verifySignedRequest (Meta format)', () => {
  it('accepts a good signature and returns user_id, with or without algorithm (any case)', () => {
    const issuedAt = NOW.getTime() / 1000 - 5;
    expect(verifySignedRequest(sign({ user_id: '123', issued_at: issuedAt }), SECRET, NOW)).toMatchObject({
      userId: '123',
      issuedAt: new Date(issuedAt * 1000),
    });
    expect(verifySignedRequest(sign({ user_id: '123', algorithm: 'hmac-sha256' }), SECRET, NOW).userId).toBe('123');
    expect(verifySignedRequest(sign({ user_id: 123, algorithm: 'HMAC-SHA256' }), SECRET, NOW).userId).toBe('123');
  });

  it('takes an issued_at up to ten minutes off the clock either way, and no further', async () => {
    const at = (offsetSeconds: number) => sign({ user_id: '1', issued_at: NOW.getTime() / 1000 + offsetSeconds });
    for (const fresh of [-600, 600, 0]) expect(verifySignedRequest(at(fresh), SECRET, NOW).userId).toBe('1');
    for (const stale of [-601, 601]) {
      const error = await serviceError(() => verifySignedRequest(at(stale), SECRET, NOW));
      expect(error.code).toBe('invalid_body');
      expect(error.message).toMatch(/more than 10 minutes from now/);
    }
  });

  it.each([
    ['missing', undefined, /required/],
    ['an array', ['a.b'], /required/],
    ['one part', 'abc', /malformed/],
    ['three parts', 'a.b.c', /malformed/],
    ['not base64url', 'a+b.c/d', /malformed/],
    [
      'a short signature',
      `${Buffer.from('short').toString('base64url')}.${Buffer.from('{"user_id":"1"}').toString('base64url')}`,
      /signature/,
    ],
    ['another secret', sign({ user_id: '1' }, 'other-secret'), /signature/],
    ['a wrong algorithm', sign({ user_id: '1', algorithm: 'HMAC-SHA1' }), /algorithm/],
    ['no user_id', sign({ algorithm: 'HMAC-SHA256' }), /user_id/],
    [
      'an unsafe numeric user_id',
      `${createHmac('sha256', SECRET).update(Buffer.from('{"user_id":12345678901234567}').toString('base64url')).digest('base64url')}.${Buffer.from('{"user_id":12345678901234567}').toString('base64url')}`,
      /user_id/,
    ],
    ['a non-object payload', sign(['user_id']), /object/],
    ['no issued_at', sign({ user_id: '1', issued_at: undefined }), /issued_at/],
    ['a text issued_at', sign({ user_id: '1', issued_at: String(Date.parse(TEST_START) / 1000) }), /issued_at/],
    ['an issued_at in 2001', sign({ user_id: '1', issued_at: 1_000_000_000 }), /issued at 2001-09-09T01:46:40\.000Z/],
  ])('refuses %s with invalid_body on signed_request', async (_name, value, message) => {
    const error = await serviceError(() => verifySignedRequest(value, SECRET, NOW));
    expect(error.code).toBe('invalid_body');
    expect(error.message).toMatch(message);
    expect(Object.keys(error.details!.fieldErrors)).toEqual(['signed_request']);
  });

  it('refuses a payload altered after signing', async () => {
    const [signature] = sign({ user_id: '1' }).split('.');
    const forged = `${signature}.${Buffer.from(JSON.stringify({ user_id: '2' })).toString('base64url')}`;
    expect((await serviceError(() => verifySignedRequest(forged, SECRET, NOW))).message).toMatch(/signature/);
  });
});

describe('handlePlatformCallback', () => {
  let runtime: TestRuntime;
  let a: TestWorkspace;
  let b: TestWorkspace;
  beforeEach(async () => {
    runtime = await testRuntime({ env: { FACEBOOK_APP_SECRET: SECRET, PUBLIC_BASE_URL: 'https://api.example.test' } });
    a = await makeWorkspace(runtime);
    b = await makeWorkspace(runtime);
  });
  const connectTo = async (
    ws: TestWorkspace,
    input: { platform?: string; platformUserId?: string; username?: string } = {},
  ) =>
    connectSocialAccount(runtime, {
      workspaceId: ws.workspace.id,
      platform: 'facebook',
      username: 'shared',
      platformUserId: '555',
      ...input,
    });

  it('deauthorize marks the active matches of every workspace inactive, one event each, in one go', async () => {
    const inA = await connectTo(a, { username: 'in_a' });
    const inB = await connectTo(b, { username: 'in_b' });
    const unrelated = await connectTo(a, { platformUserId: '556', username: 'other' });
    const twitterSameId = await connectTo(b, { platform: 'twitter' });
    const answer = await handlePlatformCallback(runtime, {
      platform: 'facebook',
      kind: 'deauthorize',
      signedRequest: sign({ user_id: '555' }),
    });
    expect(answer).toEqual({ success: true });
    const active = Object.fromEntries((await accountRows(runtime)).map((r) => [r.id, r.isActive]));
    expect(active).toEqual({ [inA.id]: false, [inB.id]: false, [unrelated.id]: true, [twitterSameId.id]: true });
    const statuses = Object.fromEntries((await accountRows(runtime)).map((r) => [r.id, r.status]));
    expect(statuses).toEqual({
      [inA.id]: 'disconnected',
      [inB.id]: 'disconnected',
      [unrelated.id]: 'active',
      [twitterSameId.id]: 'active',
    });
    for (const [ws, username, id] of [
      [a, 'in_a', inA.id],
      [b, 'in_b', inB.id],
    ] as const) {
      const rows = await eventsOf(runtime, ws.workspace.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ type: 'social_account.disconnected', createdAt: runtime.clock.now() });
      expect(rows[0].data).toEqual({
        platform: 'facebook',
        account: { id, platform_user_id: '555', platform_username: username },
        reason: 'deauthorized',
      });
    }
    // Already inactive: nothing changes, no second event.
    await handlePlatformCallback(runtime, {
      platform: 'facebook',
      kind: 'deauthorize',
      signedRequest: sign({ user_id: '555' }),
    });
    expect(await eventsOf(runtime)).toHaveLength(2);
  });

  it('data-deletion removes every match (inactive too), one event per workspace, and records the request', async () => {
    const inA = await connectTo(a);
    const inB = await connectTo(b);
    await disconnectSocialAccount(runtime, inA.id);
    const kept = await connectTo(a, { platformUserId: '556' });
    const answer = await handlePlatformCallback(runtime, {
      platform: 'facebook',
      kind: 'data-deletion',
      signedRequest: sign({ user_id: '555' }),
    });
    expect(answer.confirmation_code).toMatch(/^[0-9A-Za-z]{24}$/);
    expect(answer.url).toBe(`https://api.example.test/callbacks/facebook/data-deletion/${answer.confirmation_code}`);
    expect((await accountRows(runtime)).map((r) => r.id)).toEqual([kept.id]);
    const written = await eventsOf(runtime);
    expect(written.map((e) => e.workspaceId).sort()).toEqual([a.workspace.id, b.workspace.id].sort());
    for (const event of written) {
      expect(event.type).toBe('social_account.disconnected');
      expect(event.data).toEqual({
        platform: 'facebook',
        account: {
          id: event.workspaceId === a.workspace.id ? inA.id : inB.id,
          platform_user_id: '555',
          platform_username: 'shared',
        },
        reason: 'data_deletion',
      });
    }
    expect(await getDataDeletionRequest(runtime.db, 'facebook', answer.confirmation_code)).toEqual({
      confirmation_code: answer.confirmation_code,
      platform: 'facebook',
      status: 'completed',
      accounts_removed: 2,
      completed_at: runtime.clock.now().toISOString(),
    });
    expect(
      (await serviceError(async () => getDataDeletionRequest(runtime.db, 'twitter', answer.confirmation_code))).code,
    ).toBe('not_found');
    expect((await serviceError(async () => getDataDeletionRequest(runtime.db, 'facebook', 'nope'))).code).toBe(
      'not_found',
    );
  });

  it('a bad signature changes nothing and writes nothing', async () => {
    await connectTo(a);
    const before = await accountRows(runtime);
    for (const kind of ['deauthorize', 'data-deletion'] as const) {
      const error = await serviceError(async () =>
        handlePlatformCallback(runtime, {
          platform: 'facebook',
          kind,
          signedRequest: sign({ user_id: '555' }, 'wrong'),
        }),
      );
      expect(error.code).toBe('invalid_body');
    }
    expect(await accountRows(runtime)).toEqual(before);
    expect(await eventsOf(runtime)).toEqual([]);
    expect(await runtime.db.select().from(dataDeletionRequests).all()).toEqual([]);
  });

  it('an unconfigured or unknown platform is not_found, even with a valid-looking request', async () => {
    await connectTo(a, { platform: 'instagram' });
    for (const platform of ['instagram', 'myspace']) {
      const error = await serviceError(async () =>
        handlePlatformCallback(runtime, { platform, kind: 'deauthorize', signedRequest: sign({ user_id: '555' }) }),
      );
      expect(error.code).toBe('not_found');
    }
    expect((await accountRows(runtime)).every((r) => r.isActive)).toBe(true);
    expect(
      await runtime.db.select().from(socialAccounts).where(eq(socialAccounts.platform, 'instagram')).all(),
    ).toHaveLength(1);
  });
});
