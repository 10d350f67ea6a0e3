import { describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../src/core/accounts/api-keys.ts';
import { setWorkspacePlan } from '../../src/core/accounts/workspaces.ts';
import { makeKey, makeWorkspace } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { baseEnv, expectError } from '../helpers/rest-expect.ts';
import { testRuntime } from '../helpers/runtime.ts';

/** Authentication: every row of the failure table, checked in order, over real HTTP. */
describe('REST authentication', () => {
  const bed = useRestTestbed({ env: baseEnv });

  const get = (path: string, authorization?: string) =>
    call(bed.server, 'GET', path, { headers: authorization === undefined ? {} : { authorization } });
  const bearer = (key: string) => `Bearer ${key}`;

  it('answers 200 with a valid key of an active workspace', async () => {
    const ws = await makeWorkspace(bed.runtime);
    const res = await get('/api/v1/content', bearer(ws.apiKey));
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('list');
  });

  describe('missing_key (401)', () => {
    it('when there is no Authorization header', async () => {
      expectError(await get('/api/v1/content'), 401, 'missing_key');
    });

    it.each([
      ['a Bearer key of another prefix', 'Bearer sk_live_abcdef0123456789'],
      ['Basic credentials', `Basic ${Buffer.from('user:np_live_abc').toString('base64')}`],
      ['a bare np_live_ key without Bearer', 'np_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
      ['Bearer with nothing after it', 'Bearer '],
      ['an empty header', ''],
    ])('for %s', async (_label, header) => {
      expectError(await get('/api/v1/content', header), 401, 'missing_key');
    });
  });

  describe('invalid_key (401)', () => {
    it('for a well-formed key that this service never issued', async () => {
      await makeWorkspace(bed.runtime);
      // A key with a valid checksum, issued by another database, so only the lookup can refuse it.
      const elsewhere = await makeWorkspace(await testRuntime());
      expectError(await get('/api/v1/content', bearer(elsewhere.apiKey)), 401, 'invalid_key');
    });

    it('for a key whose checksum is broken', async () => {
      const ws = await makeWorkspace(bed.runtime);
      const last = ws.apiKey.at(-1)!;
      const broken = ws.apiKey.slice(0, -1) + (last === 'A' ? 'B' : 'A');
      expectError(await get('/api/v1/content', bearer(broken)), 401, 'invalid_key');
      expectError(await get('/api/v1/content', bearer(`${ws.apiKey}x`)), 401, 'invalid_key');
      expectError(await get('/api/v1/content', bearer('np_live_short')), 401, 'invalid_key');
    });

    it('for a revoked key, with the same body as an unknown key', async () => {
      const ws = await makeWorkspace(bed.runtime);
      const second = await makeKey(bed.runtime, ws.workspace.id);
      expect((await get('/api/v1/content', bearer(second.apiKey))).status).toBe(200);
      await revokeApiKey(bed.runtime, second.keyId);

      const revoked = await get('/api/v1/content', bearer(second.apiKey));
      expectError(revoked, 401, 'invalid_key');
      const unknown = await get('/api/v1/content', bearer((await makeWorkspace(await testRuntime())).apiKey));
      expect(revoked.body).toEqual(unknown.body);
      // Revoking one key leaves the workspace's other keys working.
      expect((await get('/api/v1/content', bearer(ws.apiKey))).status).toBe(200);
    });
  });

  describe('expired_key (401)', () => {
    it('once the clock passes the expiry, and not before', async () => {
      const ws = await makeWorkspace(bed.runtime);
      const key = await makeKey(bed.runtime, ws.workspace.id, new Date(bed.runtime.clock.now().getTime() + 60_000));
      bed.runtime.clock.advance(59_999);
      expect((await get('/api/v1/content', bearer(key.apiKey))).status).toBe(200);
      bed.runtime.clock.advance(2);
      expectError(await get('/api/v1/content', bearer(key.apiKey)), 401, 'expired_key');
      // GET /me has no plan checks but still checks the key.
      expectError(await get('/api/v1/me', bearer(key.apiKey)), 401, 'expired_key');
    });
  });

  describe('subscription and plan', () => {
    it.each(['past_due', 'canceled'] as const)('a %s workspace gets 402 payment_required', async (status) => {
      const ws = await makeWorkspace(bed.runtime, { status });
      expectError(await get('/api/v1/content', bearer(ws.apiKey)), 402, 'payment_required');
      const write = await call(bed.server, 'POST', '/api/v1/content', { headers: ws.headers, body: { caption: 'x' } });
      expectError(write, 402, 'payment_required');
    });

    it('a trialing workspace works', async () => {
      const ws = await makeWorkspace(bed.runtime, { status: 'trialing' });
      expect((await get('/api/v1/content', bearer(ws.apiKey))).status).toBe(200);
      const created = await call(bed.server, 'POST', '/api/v1/content', {
        headers: ws.headers,
        body: { caption: 'x' },
      });
      expect(created.status).toBe(201);
    });

    it('a workspace on the free plan gets 403 plan_forbidden', async () => {
      const ws = await makeWorkspace(bed.runtime, { plan: 'free' });
      expectError(await get('/api/v1/content', bearer(ws.apiKey)), 403, 'plan_forbidden');
    });

    it('a workspace that moves to a paid plan gets access at once', async () => {
      const ws = await makeWorkspace(bed.runtime, { plan: 'free' });
      expectError(await get('/api/v1/content', bearer(ws.apiKey)), 403, 'plan_forbidden');
      await setWorkspacePlan(bed.runtime, ws.workspace.id, { plan: 'starter' });
      expect((await get('/api/v1/content', bearer(ws.apiKey))).status).toBe(200);
    });
  });

  describe('check order: header, lookup, expiry, subscription, plan', () => {
    it('an expired key on a canceled workspace is expired_key', async () => {
      const ws = await makeWorkspace(bed.runtime, { status: 'canceled', plan: 'free' });
      const key = await makeKey(bed.runtime, ws.workspace.id, new Date(bed.runtime.clock.now().getTime() + 1000));
      bed.runtime.clock.advance(1001);
      expectError(await get('/api/v1/content', bearer(key.apiKey)), 401, 'expired_key');
    });

    it('a revoked key on a canceled workspace is invalid_key', async () => {
      const ws = await makeWorkspace(bed.runtime, { status: 'canceled' });
      const key = await makeKey(bed.runtime, ws.workspace.id);
      await revokeApiKey(bed.runtime, key.keyId);
      expectError(await get('/api/v1/content', bearer(key.apiKey)), 401, 'invalid_key');
    });

    it('a revoked key that has also expired is invalid_key', async () => {
      const ws = await makeWorkspace(bed.runtime);
      const key = await makeKey(bed.runtime, ws.workspace.id, new Date(bed.runtime.clock.now().getTime() + 1000));
      await revokeApiKey(bed.runtime, key.keyId);
      bed.runtime.clock.advance(5000);
      expectError(await get('/api/v1/content', bearer(key.apiKey)), 401, 'invalid_key');
    });

    it('a past_due workspace on the free plan is payment_required, not plan_forbidden', async () => {
      const ws = await makeWorkspace(bed.runtime, { status: 'past_due', plan: 'free' });
      expectError(await get('/api/v1/content', bearer(ws.apiKey)), 402, 'payment_required');
    });

    it('authentication comes before the route looks at the id or the body', async () => {
      const missing = await call(bed.server, 'PATCH', '/api/v1/content/not-an-id', { rawBody: '{broken' });
      expectError(missing, 401, 'missing_key');
      const ws = await makeWorkspace(bed.runtime, { status: 'canceled' });
      const canceled = await call(bed.server, 'PATCH', '/api/v1/content/not-an-id', {
        headers: ws.headers,
        rawBody: '{broken',
      });
      expectError(canceled, 402, 'payment_required');
    });
  });

  describe('GET /api/v1/me answers workspaces the content routes refuse', () => {
    type Overrides = { plan?: 'free'; status?: 'past_due' | 'canceled' };
    it.each<[string, Overrides, number, string]>([
      ['past_due', { status: 'past_due' }, 402, 'payment_required'],
      ['canceled', { status: 'canceled' }, 402, 'payment_required'],
      ['free', { plan: 'free' }, 403, 'plan_forbidden'],
    ])('%s: /me is 200, /content is refused', async (_label, overrides, status, code) => {
      const ws = await makeWorkspace(bed.runtime, overrides);
      const me = await get('/api/v1/me', bearer(ws.apiKey));
      expect(me.status).toBe(200);
      expect(me.body.org_id).toBe(ws.workspace.orgId);
      expect(me.body.plan).toBe(ws.workspace.plan);
      expect(me.body.plan_status).toBe(ws.workspace.planStatus);
      expect(me.body.is_active).toBe(overrides.status === undefined);
      expect(me.body.features.api_access).toBe(overrides.plan !== 'free');
      expectError(await get('/api/v1/content', bearer(ws.apiKey)), status, code);
    });

    it('reports trialing as active and trialing', async () => {
      const ws = await makeWorkspace(bed.runtime, { status: 'trialing' });
      const me = await get('/api/v1/me', bearer(ws.apiKey));
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ plan_status: 'trialing', is_active: true, is_trialing: true });
    });

    it('still refuses a missing or unknown key', async () => {
      expectError(await get('/api/v1/me'), 401, 'missing_key');
      expectError(
        await get('/api/v1/me', bearer((await makeWorkspace(await testRuntime())).apiKey)),
        401,
        'invalid_key',
      );
    });
  });
});
