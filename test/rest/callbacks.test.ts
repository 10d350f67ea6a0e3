import { beforeEach, describe, expect, it } from 'vitest';
import { dataDeletionRequests, socialAccounts } from '../../db/schema/index.ts';
import { connectSocialAccount } from '../../src/core/social-accounts/operations.ts';
import { makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call, startTestServer, useRestTestbed } from '../helpers/http.ts';
import { BASE_URL, baseEnv, eventsOf, expectError } from '../helpers/rest-expect.ts';
import { testRuntime } from '../helpers/runtime.ts';
import { signedRequest } from '../helpers/signed-request.ts';

const SECRET = 'fb-secret-for-tests';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

const b64url = (text: string) => Buffer.from(text).toString('base64url');

const sign = (payload: unknown, secret = SECRET): string => signedRequest(payload, secret);

/**
 * The platform operators' deauthorize and data-deletion callbacks: form-encoded
 * signed_request, verified with FACEBOOK_APP_SECRET; one social_account.disconnected per workspace.
 */
describe('REST platform callbacks', () => {
  let a: TestWorkspace;
  let b: TestWorkspace;
  const bed = useRestTestbed({ env: { ...baseEnv, FACEBOOK_APP_SECRET: SECRET } });
  beforeEach(async () => {
    a = await makeWorkspace(bed.runtime);
    b = await makeWorkspace(bed.runtime);
  });

  const post = (path: string, form: Record<string, string> | string, headers: Record<string, string> = FORM) =>
    call(bed.server, 'POST', path, {
      headers,
      rawBody: typeof form === 'string' ? form : new URLSearchParams(form).toString(),
    });
  const deauthorize = (signedRequest: string, platform = 'facebook') =>
    post(`/callbacks/${platform}/deauthorize`, { signed_request: signedRequest });
  const dataDeletion = (signedRequest: string, platform = 'facebook') =>
    post(`/callbacks/${platform}/data-deletion`, { signed_request: signedRequest });

  /** The same facebook user connected to both workspaces (under different usernames), plus bystanders. */
  async function connectShared() {
    const connect = async (ws: TestWorkspace, platform: string, username: string, platformUserId: string) =>
      connectSocialAccount(bed.runtime, { workspaceId: ws.workspace.id, platform, username, platformUserId });
    return {
      inA: await connect(a, 'facebook', 'shared_in_a', '10001'),
      inB: await connect(b, 'facebook', 'shared_in_b', '10001'),
      otherUser: await connect(a, 'facebook', 'someone_else', '10002'),
      otherPlatform: await connect(b, 'instagram', 'shared_in_b', '10001'),
    };
  }
  const rows = async () => bed.runtime.db.select().from(socialAccounts).all();
  const activeById = async () => Object.fromEntries((await rows()).map((r) => [r.id, r.isActive]));
  const expectNothingChanged = async (before: Awaited<ReturnType<typeof rows>>) => {
    expect(await rows()).toEqual(before);
    expect(await eventsOf(bed.runtime)).toEqual([]);
    expect(await bed.runtime.db.select().from(dataDeletionRequests).all()).toEqual([]);
  };

  it('deauthorize marks the user inactive in both workspaces, with exactly one event in each', async () => {
    const { inA, inB, otherUser, otherPlatform } = await connectShared();
    const res = await deauthorize(sign({ algorithm: 'HMAC-SHA256', issued_at: 1773144000, user_id: '10001' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(await activeById()).toEqual({
      [inA.id]: false,
      [inB.id]: false,
      [otherUser.id]: true,
      [otherPlatform.id]: true,
    });

    const inEach = [
      [a, 'shared_in_a', inA.id],
      [b, 'shared_in_b', inB.id],
    ] as const;
    for (const [ws, username, id] of inEach) {
      const written = await eventsOf(bed.runtime, ws.workspace.id);
      expect(written).toHaveLength(1);
      expect(written[0].type).toBe('social_account.disconnected');
      expect(written[0].id).toMatch(/^evt_/);
      expect(written[0].data).toEqual({
        platform: 'facebook',
        account: { id, platform_user_id: '10001', platform_username: username },
        reason: 'deauthorized',
      });
    }
    expect(await eventsOf(bed.runtime)).toHaveLength(2);

    // The list shows them inactive; nothing else about them changed.
    const listed = await call(bed.server, 'GET', '/api/v1/social-accounts', { headers: a.headers });
    expect(listed.body.data.find((x: any) => x.id === inA.id)).toEqual({
      ...inA,
      status: 'disconnected',
      is_active: false,
    });
  });

  it('refuses a stale issued_at and a replayed request with 400; neither changes an account', async () => {
    const { inA, inB } = await connectShared();
    const before = await rows();
    const stale = await deauthorize(sign({ algorithm: 'HMAC-SHA256', issued_at: 1_000_000_000, user_id: '10001' }));
    expectError(stale, 400, 'invalid_body', { details: true });
    expect(stale.body.error.message).toMatch(/issued at 2001/);
    await expectNothingChanged(before);

    const genuine = sign({ algorithm: 'HMAC-SHA256', user_id: '10001' });
    expect((await deauthorize(genuine)).status).toBe(200);
    // The person connects again; the same request, sent again, must not disconnect them again.
    await bed.runtime.db.update(socialAccounts).set({ status: 'active' }).run();
    const reconnected = await rows();
    const eventsBefore = (await eventsOf(bed.runtime)).length;
    for (const replay of [await deauthorize(genuine), await dataDeletion(genuine)]) {
      expectError(replay, 400, 'invalid_body', { details: true });
      expect(replay.body.error.message).toMatch(/already handled/);
    }
    expect(await rows()).toEqual(reconnected);
    expect(await activeById()).toMatchObject({ [inA.id]: true, [inB.id]: true });
    expect(await eventsOf(bed.runtime)).toHaveLength(eventsBefore);
    // Once the window has passed, the request is forgotten, and refused as stale instead.
    bed.runtime.clock.advance(11 * 60 * 1000);
    expect((await deauthorize(genuine)).body.error.message).toMatch(/more than 10 minutes from now/);
    expect(await rows()).toEqual(reconnected);
  });

  it('data-deletion removes the rows in both workspaces, one event each, and answers a working status URL', async () => {
    const { inA, inB, otherUser, otherPlatform } = await connectShared();
    const res = await dataDeletion(sign({ algorithm: 'HMAC-SHA256', user_id: '10001' }));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['confirmation_code', 'url']);
    const code: string = res.body.confirmation_code;
    expect(code).toMatch(/^[0-9A-Za-z]{16,}$/);
    expect(res.body.url).toBe(`${BASE_URL}/callbacks/facebook/data-deletion/${code}`);
    expect((await rows()).map((r) => r.id).sort()).toEqual([otherUser.id, otherPlatform.id].sort());

    for (const [ws, username, id] of [
      [a, 'shared_in_a', inA.id],
      [b, 'shared_in_b', inB.id],
    ] as const) {
      const written = await eventsOf(bed.runtime, ws.workspace.id);
      expect(written.map((e) => [e.type, e.data])).toEqual([
        [
          'social_account.disconnected',
          {
            platform: 'facebook',
            account: { id, platform_user_id: '10001', platform_username: username },
            reason: 'data_deletion',
          },
        ],
      ]);
    }

    bed.runtime.clock.advance(5000);
    const status = await call(bed.server, 'GET', new URL(res.body.url).pathname);
    expect(status.status).toBe(200);
    expect(status.body).toEqual({
      confirmation_code: code,
      platform: 'facebook',
      status: 'completed',
      accounts_removed: 2,
      completed_at: '2026-03-10T12:00:30.000Z',
    });
  });

  it('data-deletion also removes an account already deauthorized, and answers for a user nobody connected', async () => {
    const { inA } = await connectShared();
    await deauthorize(sign({ user_id: '10001' }));
    const res = await dataDeletion(sign({ user_id: '10001' }));
    expect(res.status).toBe(200);
    expect((await rows()).find((r) => r.id === inA.id)).toBeUndefined();
    expect((await eventsOf(bed.runtime, a.workspace.id)).map((e) => (e.data as { reason: string }).reason)).toEqual([
      'deauthorized',
      'data_deletion',
    ]);

    const nobody = await dataDeletion(sign({ user_id: '99999' }));
    expect(nobody.status).toBe(200);
    const status = await call(bed.server, 'GET', `/callbacks/facebook/data-deletion/${nobody.body.confirmation_code}`);
    expect(status.body).toMatchObject({ status: 'completed', accounts_removed: 0 });
    expect(await eventsOf(bed.runtime)).toHaveLength(4);
  });

  it('a bad signature is 400 invalid_body on both callbacks and changes nothing', async () => {
    await connectShared();
    const before = await rows();
    for (const send of [deauthorize, dataDeletion]) {
      const res = await send(sign({ algorithm: 'HMAC-SHA256', user_id: '10001' }, 'not-the-secret'));
      expectError(res, 400, 'invalid_body', { details: true });
      expect(res.body.error.message).toMatch(/signature/);
      expect(Object.keys(res.body.error.details.fieldErrors)).toEqual(['signed_request']);
    }
    await expectNothingChanged(before);
  });

  it('refuses a tampered payload, a wrong algorithm, a malformed or missing signed_request', async () => {
    await connectShared();
    const before = await rows();
    const good = sign({ user_id: '10002' });
    const [signature] = good.split('.');
    const cases: Array<[string, string | Record<string, string>, RegExp]> = [
      ['tampered', { signed_request: `${signature}.${b64url(JSON.stringify({ user_id: '10001' }))}` }, /signature/],
      ['algorithm', { signed_request: sign({ algorithm: 'HMAC-SHA1', user_id: '10001' }) }, /algorithm/],
      ['algorithm none', { signed_request: sign({ algorithm: 'none', user_id: '10001' }) }, /algorithm/],
      ['no dot', { signed_request: signature }, /malformed/],
      ['empty', { signed_request: '' }, /required/],
      ['missing', { other: 'x' }, /required/],
      ['no body', '', /required/],
      ['twice', `signed_request=${good}&signed_request=${good}`, /required/],
      ['no user', { signed_request: sign({ algorithm: 'HMAC-SHA256' }) }, /user_id/],
    ];
    for (const [name, form, message] of cases) {
      for (const kind of ['deauthorize', 'data-deletion']) {
        const res = await post(`/callbacks/facebook/${kind}`, form);
        expect(res.status, `${name} ${kind}`).toBe(400);
        expectError(res, 400, 'invalid_body', { details: true });
        expect(res.body.error.message, name).toMatch(message);
      }
    }
    await expectNothingChanged(before);
  });

  it('an unconfigured platform and an unknown one answer 404, even with a good signature', async () => {
    await connectSocialAccount(bed.runtime, {
      workspaceId: a.workspace.id,
      platform: 'instagram',
      username: 'gram',
      platformUserId: '10001',
    });
    const before = await rows();
    for (const platform of ['instagram', 'twitter', 'myspace']) {
      for (const kind of ['deauthorize', 'data-deletion']) {
        const res = await post(`/callbacks/${platform}/${kind}`, { signed_request: sign({ user_id: '10001' }) });
        expectError(res, 404, 'not_found');
      }
    }
    const instagram = await deauthorize(sign({ user_id: '10001' }), 'instagram');
    expect(instagram.body.error.message).toContain('INSTAGRAM_APP_SECRET');
    await expectNothingChanged(before);
  });

  it('each platform verifies with its own secret', async () => {
    await bed.server.close();
    bed.runtime = await testRuntime({
      env: { ...baseEnv, FACEBOOK_APP_SECRET: SECRET, INSTAGRAM_APP_SECRET: 'ig-secret' },
    });
    bed.server = await startTestServer(bed.runtime);
    const ws = await makeWorkspace(bed.runtime);
    const gram = await connectSocialAccount(bed.runtime, {
      workspaceId: ws.workspace.id,
      platform: 'instagram',
      username: 'gram',
      platformUserId: '7',
    });
    expectError(await deauthorize(sign({ user_id: '7' }), 'instagram'), 400, 'invalid_body', { details: true });
    expect((await deauthorize(sign({ user_id: '7' }, 'ig-secret'), 'instagram')).body).toEqual({ success: true });
    expect(await bed.runtime.db.select().from(socialAccounts).all()).toEqual([
      expect.objectContaining({ id: gram.id, isActive: false }),
    ]);
  });

  it('needs no API key, takes only form bodies, and answers 405 for other methods', async () => {
    await connectShared();
    const json = await post(
      '/callbacks/facebook/deauthorize',
      JSON.stringify({ signed_request: sign({ user_id: '10001' }) }),
      {
        'content-type': 'application/json',
      },
    );
    expectError(json, 415, 'unsupported_media_type');
    expect(await eventsOf(bed.runtime)).toEqual([]);

    const withCharset = await post(
      '/callbacks/facebook/deauthorize',
      { signed_request: sign({ user_id: '10001' }) },
      {
        'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
      },
    );
    expect(withCharset.status).toBe(200);

    for (const path of ['/callbacks/facebook/deauthorize', '/callbacks/facebook/data-deletion']) {
      const res = await call(bed.server, 'GET', path);
      expectError(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow')).toBe('POST');
    }
    const status = await call(bed.server, 'POST', '/callbacks/facebook/data-deletion/abc', {
      headers: FORM,
      rawBody: '',
    });
    expectError(status, 405, 'method_not_allowed');
    expect(status.headers.get('allow')).toBe('GET, HEAD');
    // Not under /api/v1.
    expectError(
      await post('/api/v1/callbacks/facebook/deauthorize', { signed_request: sign({ user_id: '1' }) }),
      404,
      'not_found',
    );
  });

  it('refuses an oversized form with 413 and a form with too many fields with 413', async () => {
    await bed.server.close();
    bed.runtime = await testRuntime({ env: { ...baseEnv, FACEBOOK_APP_SECRET: SECRET, BODY_LIMIT_BYTES: '2048' } });
    bed.server = await startTestServer(bed.runtime);
    expectError(
      await post('/callbacks/facebook/deauthorize', { signed_request: 'x'.repeat(4096) }),
      413,
      'payload_too_large',
    );
    const many = Array.from({ length: 1001 }, (_, i) => `f${i}=1`).join('&');
    await bed.server.close();
    bed.runtime = await testRuntime({ env: { ...baseEnv, FACEBOOK_APP_SECRET: SECRET } });
    bed.server = await startTestServer(bed.runtime);
    expectError(await post('/callbacks/facebook/deauthorize', many), 413, 'payload_too_large');
  });

  it('the status page answers 404 for an unknown code or another platform', async () => {
    const res = await dataDeletion(sign({ user_id: '1' }));
    const code = res.body.confirmation_code;
    expectError(await call(bed.server, 'GET', '/callbacks/facebook/data-deletion/unknowncode'), 404, 'not_found');
    expectError(await call(bed.server, 'GET', `/callbacks/instagram/data-deletion/${code}`), 404, 'not_found');
    expect((await call(bed.server, 'GET', `/callbacks/facebook/data-deletion/${code}`)).status).toBe(200);
  });
});
