import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeys, socialAccounts } from '../../db/schema/index.ts';
import { startFakeBluesky, type FakeBluesky } from '../../fakes/bluesky.ts';
import { fakePlatformEnvironment } from '../../fakes/environment.ts';
import { connectSocialAccount } from '../../src/core/social-accounts/operations.ts';
import { refreshExpiringTokens, tokenSourceFor } from '../../src/core/social-accounts/token-lifecycle.ts';
import { readTokens } from '../../src/core/social-accounts/tokens.ts';
import { makeWorkspace } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { baseEnv, eventsOf, expectError } from '../helpers/rest-expect.ts';

/**
 * Connecting an account of a platform that connects with credentials (Bluesky, against its fake),
 * over the REST door: the request's own rules, the idempotency store, quota and workspace scoping.
 */
describe('connecting accounts with credentials', () => {
  let bluesky: FakeBluesky;
  const env: Record<string, string> = { ...baseEnv };
  const bed = useRestTestbed({ env });

  // The fake runs on the service's test clock, so moving it moves the sessions' expiry on both sides.
  const now = () => (bed.runtime ? bed.runtime.clock.now().getTime() : Date.now());

  beforeAll(async () => {
    bluesky = await startFakeBluesky({ now });
    Object.assign(env, fakePlatformEnvironment({ bluesky }));
  });
  afterAll(async () => {
    await bluesky.close();
  });

  const account = () => bluesky.accounts[0]!;
  const signIns = () => bluesky.log.calls('createSession').length;
  const connect = (body: Record<string, unknown>, headers = bed.ws.headers) =>
    call(bed.server, 'POST', '/api/v1/social-accounts/connect', { headers, body });
  const credentials = () => ({
    platform: 'bluesky',
    identifier: account().handle,
    app_password: account().appPassword,
  });
  const rows = async () => bed.runtime.db.select().from(socialAccounts).all();

  it('answers 201 with the account, stores the session encrypted, and emits social_account.connected', async () => {
    const res = await connect(credentials());
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ object: 'social_account', platform: 'bluesky', status: 'active', scopes: [] });
    const tokens = (await readTokens(bed.runtime, res.body.id))!;
    expect(tokens.accessToken.split('.')).toHaveLength(3);
    expect(tokens.refreshToken).not.toBeNull();
    // Two hours, as the session's JWT says.
    expect(tokens.expiresAt!.getTime() - now()).toBe(2 * 3_600_000);
    expect((await eventsOf(bed.runtime, bed.ws.workspace.id)).map((event) => event.type)).toContain(
      'social_account.connected',
    );
    expect(JSON.stringify(await rows())).not.toContain(account().appPassword);
  });

  it('an idempotent replay answers the stored account without signing in again; the store holds no password', async () => {
    const headers = { ...bed.ws.headers, 'Idempotency-Key': 'connect-bluesky-1' };
    const first = await connect(credentials(), headers);
    expect(first.status).toBe(201);
    const before = signIns();
    const replay = await connect(credentials(), headers);
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(first.body.id);
    expect(signIns()).toBe(before);
    const stored = await bed.runtime.db.select().from(idempotencyKeys).all();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(account().appPassword);
  });

  it('refuses fields of the other connect kind, and a service other than the configured one, before signing in', async () => {
    const before = signIns();
    expectError(await connect({ platform: 'twitter', app_password: 'x' }), 400, 'invalid_body', { details: true });
    expectError(await connect({ ...credentials(), return_url: 'http://127.0.0.1:3999/back' }), 400, 'invalid_body', {
      details: true,
    });
    const elsewhere = await connect({ ...credentials(), service: 'https://pds.example.org' });
    expectError(elsewhere, 400, 'invalid_body', { details: true });
    expect(elsewhere.body.error.details.fieldErrors.service).toBeDefined();
    expect(signIns()).toBe(before);
    expect(await rows()).toEqual([]);
  });

  it('a server error while signing in answers 502 platform_unavailable and creates nothing', async () => {
    bluesky.script.unavailable('createSession');
    const res = await connect(credentials());
    expectError(res, 502, 'platform_unavailable');
    expect(res.body.error.message).toMatch(/Bluesky answered 500/);
    expect(await rows()).toEqual([]);
    expect((await eventsOf(bed.runtime, bed.ws.workspace.id)).map((event) => event.type)).not.toContain(
      'social_account.connected',
    );
  });

  it('a workspace at its platforms_limit is refused before any sign-in', async () => {
    const ws = await makeWorkspace(bed.runtime, { plan: 'starter' });
    for (const username of ['one', 'two', 'three']) {
      await connectSocialAccount(bed.runtime, { workspaceId: ws.workspace.id, platform: 'facebook', username });
    }
    const before = signIns();
    expectError(await connect(credentials(), ws.headers), 403, 'quota_exceeded');
    expect(signIns()).toBe(before);
  });

  it('the account belongs to the workspace that connected it: another lists none', async () => {
    expect((await connect(credentials())).status).toBe(201);
    const other = await makeWorkspace(bed.runtime);
    const listed = await call(bed.server, 'GET', '/api/v1/social-accounts', { headers: other.headers });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([]);
  });

  it('the maintenance pass renews a session about to expire with refreshSession alone: no app, no sign-in', async () => {
    const connected = await connect(credentials());
    expect(connected.status).toBe(201);
    const before = (await readTokens(bed.runtime, connected.body.id))!;
    const signInsBefore = signIns();
    bed.runtime.clock.advance(90 * 60_000);
    const renew = () => refreshExpiringTokens(bed.runtime, (platform) => tokenSourceFor(bed.runtime, platform));
    expect(await renew()).toEqual({ refreshed: 1, failed: 0 });
    const after = (await readTokens(bed.runtime, connected.body.id))!;
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(after.expiresAt!.getTime() - now()).toBe(2 * 3_600_000);
    expect(bluesky.log.calls('refreshSession').filter((entry) => entry.status === 200)).toHaveLength(1);
    expect(signIns()).toBe(signInsBefore);
    // A refused renewal: needs_reconnect, and exactly one social_account.disconnected event, even when tried twice.
    bed.runtime.clock.advance(90 * 60_000);
    bluesky.script.refuseRefresh();
    expect(await renew()).toEqual({ refreshed: 0, failed: 1 });
    expect(await renew()).toEqual({ refreshed: 0, failed: 0 });
    expect((await rows()).find((row) => row.id === connected.body.id)).toMatchObject({ status: 'needs_reconnect' });
    const disconnected = (await eventsOf(bed.runtime, bed.ws.workspace.id)).filter(
      (event) => event.type === 'social_account.disconnected',
    );
    expect(disconnected).toHaveLength(1);
  });
});
