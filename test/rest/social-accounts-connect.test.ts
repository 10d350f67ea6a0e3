import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { oauthConnectStates, socialAccounts } from '../../db/schema/index.ts';
import { startFakeLinkedIn, type FakeLinkedIn } from '../../fakes/linkedin.ts';
import { fakePlatformEnvironment } from '../../fakes/environment.ts';
import { startFakeX, type FakeX } from '../../fakes/x.ts';
import { runAdmin } from '../../src/cli/admin.ts';
import { connectSocialAccount } from '../../src/core/social-accounts/operations.ts';
import { readTokens } from '../../src/core/social-accounts/tokens.ts';
import { runMaintenance } from '../../src/jobs/maintenance.ts';
import { makeWorkspace } from '../helpers/factories.ts';
import { confirmationPageOf, confirmationRequest, type ConfirmationPage } from '../helpers/connect-confirmation.ts';
import { call, readReply, startTestServer, useRestTestbed } from '../helpers/http.ts';
import { BASE_URL, baseEnv, eventsOf, expectError } from '../helpers/rest-expect.ts';
import { testRuntime } from '../helpers/runtime.ts';
import { signedRequest } from '../helpers/signed-request.ts';

const X_APP_SECRET = 'x-app-secret-for-deauthorize-tests';

/**
 * Connecting live accounts over OAuth, end to end over HTTP: the service's REST app, and the fake X
 * and LinkedIn as the platforms (their consent pages approve at once as the scripted user).
 */
describe('connecting accounts over OAuth', () => {
  let x: FakeX;
  let linkedIn: FakeLinkedIn;
  const env: Record<string, string> = { ...baseEnv, TWITTER_APP_SECRET: X_APP_SECRET };
  const bed = useRestTestbed({ env });
  // The fakes run on the service's test clock, so moving it moves token expiry on both sides.
  const now = () => (bed.runtime ? bed.runtime.clock.now().getTime() : Date.now());

  beforeAll(async () => {
    x = await startFakeX({ now });
    linkedIn = await startFakeLinkedIn({ now });
    Object.assign(env, fakePlatformEnvironment({ x, linkedin: linkedIn }));
  });
  afterAll(async () => {
    await x.close();
    await linkedIn.close();
  });
  afterEach(() => {
    x.script.denyConsent(false);
    linkedIn.script.denyConsent(false);
    x.script.loginAs(x.users[0]!.id);
    linkedIn.script.loginAs(linkedIn.members[0]!.sub);
  });

  const connect = (body: Record<string, unknown>, headers = bed.ws.headers) =>
    call(bed.server, 'POST', '/api/v1/social-accounts/connect', { headers, body });

  /** The fake's consent step: it approves (or refuses) at once and redirects to the callback. */
  async function consent(authorizeUrl: string): Promise<string> {
    const res = await fetch(authorizeUrl, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(location.origin).toBe(BASE_URL);
    return location.pathname + location.search;
  }

  const callback = async (pathAndQuery: string, init: RequestInit = {}) =>
    readReply(await bed.server.request(pathAndQuery, { redirect: 'manual', ...init }));

  /** The confirmation page's form posted back from the browser that got it (see confirmationRequest). */
  const confirm = (page: ConfirmationPage, options: Parameters<typeof confirmationRequest>[1] = {}) =>
    callback(...confirmationRequest(page, options));

  /** The callback, then, when it asks, the confirmation that browser posts: both answers. */
  async function finish(back: string, options: Parameters<typeof confirmationRequest>[1] = {}) {
    const page = await callback(back);
    const asked = page.status === 200 && page.headers.getSetCookie().length > 0;
    return { page, answer: asked ? await confirm(confirmationPageOf(page), options) : page };
  }

  async function connectThrough(platform: string, body: Record<string, unknown> = {}) {
    const started = await connect({ platform, ...body });
    expect(started.status).toBe(201);
    const back = await consent(started.body.authorize_url);
    return { started, back, ...(await finish(back)) };
  }

  const rows = async () => bed.runtime.db.select().from(socialAccounts).all();
  const connectedEvents = async () =>
    (await eventsOf(bed.runtime)).filter((event) => event.type === 'social_account.connected');
  const expectNothingStored = async () => {
    expect(await rows()).toEqual([]);
    expect(await connectedEvents()).toEqual([]);
  };
  const listAccounts = () => call(bed.server, 'GET', '/api/v1/social-accounts', { headers: bed.ws.headers });

  const platforms = [
    {
      platform: 'twitter',
      fake: () => x,
      user: () => ({ id: x.users[0]!.id, username: 'fake_author', name: 'Fake Author' }),
      handle: '@fake_author',
      scopes: ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'],
      profileUrl: 'https://x.com/fake_author',
      tokenLifetimeMs: 2 * 3600 * 1000,
      hasRefreshToken: true,
      cancelledWith: 'access_denied',
    },
    {
      platform: 'linkedin',
      fake: () => linkedIn,
      user: () => ({ id: linkedIn.members[0]!.sub, username: 'Fake Member', name: 'Fake Member' }),
      handle: 'Fake Member',
      scopes: ['openid', 'profile', 'w_member_social'],
      profileUrl: null,
      tokenLifetimeMs: 60 * 86_400 * 1000,
      hasRefreshToken: false,
      cancelledWith: 'user_cancelled_authorize',
    },
  ] as const;

  describe.each(platforms)('$platform', (p) => {
    it('connect, consent, callback: a live, active account with its scopes, profile and encrypted tokens', async () => {
      const started = await connect({ platform: p.platform });
      expect(started.status).toBe(201);
      expect(started.body).toEqual({
        object: 'social_account_connect',
        platform: p.platform,
        authorize_url: expect.any(String),
        expires_at: new Date(now() + 15 * 60 * 1000).toISOString(),
      });
      const authorize = new URL(started.body.authorize_url);
      const query = Object.fromEntries(authorize.searchParams);
      expect(query).toMatchObject({
        response_type: 'code',
        client_id: p.fake().clientId,
        redirect_uri: `${BASE_URL}/callbacks/${p.platform}/oauth`,
        scope: p.scopes.join(' '),
      });
      expect(query.state).toMatch(/^[A-Za-z0-9_-]{43,}$/);
      if (p.platform === 'twitter') {
        expect(query).toMatchObject({
          code_challenge_method: 'S256',
          code_challenge: expect.stringMatching(/^[\w-]{43}$/),
        });
      } else {
        expect(query.code_challenge).toBeUndefined();
      }
      // The state is stored only as its hash.
      expect(JSON.stringify(await bed.runtime.db.select().from(oauthConnectStates).all())).not.toContain(query.state);

      // The callback asks first, naming the account and the workspace, and stores nothing yet.
      const asked = await callback(await consent(started.body.authorize_url));
      expect(asked.status).toBe(200);
      for (const reply of [asked]) {
        expect(reply.headers.get('content-type')).toMatch(/^text\/html; charset=utf-8/);
        expect(reply.headers.get('cache-control')).toBe('no-store');
        expect(reply.headers.get('referrer-policy')).toBe('no-referrer');
      }
      expect(asked.body).toContain(`Connect ${p.handle} to workspace <strong>${bed.ws.workspace.name}</strong>?`);
      await expectNothingStored();
      const answer = await confirm(confirmationPageOf(asked));
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.body).toContain(`Connected ${p.handle} to ${bed.ws.workspace.name}; you can close this tab.`);

      const tokenCall = p.fake().log.last('token')!;
      expect(tokenCall.status).toBe(200);
      if (p.platform === 'twitter') expect(tokenCall.body).toMatchObject({ code_verifier: expect.any(String) });
      const issued = tokenCall.responseBody as { access_token: string; refresh_token?: string };

      const list = await listAccounts();
      expect(list.body.data).toEqual([
        expect.objectContaining({
          platform: p.platform,
          platform_user_id: p.user().id,
          username: p.user().username,
          display_name: p.user().name,
          mode: 'live',
          status: 'active',
          is_active: true,
          scopes: [...p.scopes],
          profile_url: p.profileUrl,
          token_expires_at: new Date(now() + p.tokenLifetimeMs).toISOString(),
        }),
      ]);

      const [row] = await rows();
      expect(row!.accessTokenEncrypted).not.toContain(issued.access_token);
      expect(await readTokens(bed.runtime, row!.id)).toMatchObject({
        accessToken: issued.access_token,
        refreshToken: p.hasRefreshToken ? issued.refresh_token : null,
      });
      // No answer of the flow carries a token or the client secret.
      for (const text of [
        JSON.stringify(started.body),
        String(asked.body),
        String(answer.body),
        JSON.stringify(list.body),
      ]) {
        expect(text).not.toContain(issued.access_token);
        if (issued.refresh_token) expect(text).not.toContain(issued.refresh_token);
        expect(text).not.toContain(p.fake().clientSecret);
      }

      expect(await connectedEvents()).toEqual([
        expect.objectContaining({
          workspaceId: bed.ws.workspace.id,
          data: {
            platform: p.platform,
            account: { id: row!.id, platform_user_id: p.user().id, platform_username: p.user().username },
            reconnected: false,
          },
        }),
      ]);
    });

    it('a reconnect of the same user keeps the account id and replaces its tokens', async () => {
      await connectThrough(p.platform);
      const [first] = await rows();
      const firstToken = (await readTokens(bed.runtime, first!.id))!.accessToken;
      await bed.runtime.db.update(socialAccounts).set({ status: 'needs_reconnect' }).run();
      bed.runtime.clock.advance(60_000);

      const { answer } = await connectThrough(p.platform);
      expect(answer.status).toBe(200);
      const [again] = await rows();
      expect(await rows()).toHaveLength(1);
      expect(again).toMatchObject({ id: first!.id, status: 'active', createdAt: first!.createdAt });
      expect(again!.connectedAt.getTime()).toBe(first!.connectedAt.getTime() + 60_000);
      expect((await readTokens(bed.runtime, again!.id))!.accessToken).not.toBe(firstToken);
      expect((await connectedEvents()).map((event) => (event.data as { reconnected: boolean }).reconnected)).toEqual([
        false,
        true,
      ]);
    });

    it('with a return_url, the confirmation answers 303 to it with social_account_id and platform added', async () => {
      const { answer } = await connectThrough(p.platform, { return_url: `${BASE_URL}/done?tab=accounts` });
      expect(answer.status).toBe(303);
      const location = new URL(answer.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).toBe(`${BASE_URL}/done`);
      expect(Object.fromEntries(location.searchParams)).toEqual({
        tab: 'accounts',
        social_account_id: (await rows())[0]!.id,
        platform: p.platform,
      });
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    });

    it('a user who declines gets a "cancelled" page (or a 303 with error=access_denied), and nothing is stored', async () => {
      p.fake().script.denyConsent();
      const tokenCallsBefore = p.fake().log.calls('token').length;
      const { back, answer } = await connectThrough(p.platform);
      expect(new URL(back, BASE_URL).searchParams.get('error')).toBe(p.cancelledWith);
      expect(answer.status).toBe(200);
      expect(answer.body).toContain('was cancelled');

      const redirected = await connectThrough(p.platform, { return_url: `${BASE_URL}/done` });
      expect(redirected.answer.status).toBe(303);
      const location = new URL(redirected.answer.headers.get('location')!);
      expect(Object.fromEntries(location.searchParams)).toEqual({ error: 'access_denied', platform: p.platform });
      expect(p.fake().log.calls('token')).toHaveLength(tokenCallsBefore);
      await expectNothingStored();
    });

    it('a failed code exchange answers a 502 page and stores nothing', async () => {
      const fake = p.fake();
      fake.script.unavailable('token', 1);
      const { answer } = await connectThrough(p.platform);
      expect(answer.status).toBe(502);
      expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
      expect(answer.body).toContain('503');
      await expectNothingStored();
    });
  });

  describe('refusals at the callback', () => {
    it('a forged state answers 400 without calling the platform, and stores nothing', async () => {
      const tokenCallsBefore = x.log.calls('token').length;
      const answer = await callback('/callbacks/twitter/oauth?code=anything&state=forged-state-value');
      expect(answer.status).toBe(400);
      expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
      expect(answer.body).toContain('not valid');
      expect(x.log.calls('token')).toHaveLength(tokenCallsBefore);
      await expectNothingStored();
    });

    it('a missing state answers 400', async () => {
      expect((await callback('/callbacks/twitter/oauth?code=anything')).status).toBe(400);
      await expectNothingStored();
    });

    it('a reused state answers 400 and changes nothing', async () => {
      const { back, page, answer } = await connectThrough('twitter');
      expect(answer.status).toBe(200);
      const before = await rows();
      const replay = await callback(back, { headers: { cookie: confirmationPageOf(page).cookie } });
      expect(replay.status).toBe(400);
      expect(await rows()).toEqual(before);
      expect(await connectedEvents()).toHaveLength(1);
    });

    it("a state made for one platform does not pass at another's callback", async () => {
      const started = await connect({ platform: 'twitter' });
      const back = await consent(started.body.authorize_url);
      const answer = await callback(back.replace('/callbacks/twitter/', '/callbacks/linkedin/'));
      expect(answer.status).toBe(400);
      await expectNothingStored();
    });

    it('an expired state (past 15 minutes) answers 400 and stores nothing', async () => {
      const started = await connect({ platform: 'twitter' });
      bed.runtime.clock.advance(15 * 60 * 1000 + 1);
      const answer = await callback(await consent(started.body.authorize_url));
      expect(answer.status).toBe(400);
      expect(answer.body).toContain('expired');
      await expectNothingStored();
    });

    it('a bad code answers 502 and stores nothing', async () => {
      const started = await connect({ platform: 'linkedin' });
      const back = new URL(await consent(started.body.authorize_url), BASE_URL);
      back.searchParams.set('code', 'not-a-code-linkedin-issued');
      const answer = await callback(back.pathname + back.search);
      expect(answer.status).toBe(502);
      expect(answer.body).toContain('invalid_request');
      await expectNothingStored();
    });

    it('a platform without OAuth answers a 404 page', async () => {
      const answer = await callback('/callbacks/myspace/oauth?code=a&state=b');
      expect(answer.status).toBe(404);
      expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    });

    it('names are HTML-escaped on the page', async () => {
      const ws = await makeWorkspace(bed.runtime, { name: '<script>alert(1)</script> & Co' });
      const started = await connect({ platform: 'twitter' }, ws.headers);
      const { page, answer } = await finish(await consent(started.body.authorize_url));
      expect(answer.status).toBe(200);
      for (const reply of [page, answer]) {
        expect(reply.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co');
        expect(reply.body).not.toContain('<script>');
      }
    });
  });

  describe('the confirmation', () => {
    it('Cancel stores nothing, spends the state, and answers the cancelled page', async () => {
      const started = await connect({ platform: 'twitter' });
      const page = confirmationPageOf(await callback(await consent(started.body.authorize_url)));
      const cancelled = await confirm(page, { decision: 'cancel' });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toContain('was cancelled');
      await expectNothingStored();
      expect((await confirm(page)).status).toBe(400);
      await expectNothingStored();
    });

    it('Cancel with a return_url answers 303 with error=access_denied', async () => {
      const { answer } = await connectThrough('linkedin', { return_url: `${BASE_URL}/done` });
      expect(answer.status).toBe(303);
      const started = await connect({ platform: 'linkedin', return_url: `${BASE_URL}/done` });
      const page = confirmationPageOf(await callback(await consent(started.body.authorize_url)));
      const cancelled = await confirm(page, { decision: 'cancel' });
      expect(cancelled.status).toBe(303);
      expect(Object.fromEntries(new URL(cancelled.headers.get('location')!).searchParams)).toEqual({
        error: 'access_denied',
        platform: 'linkedin',
      });
      expect(await rows()).toHaveLength(1);
    });

    it('cannot be replayed: the second post of the same form answers 400 and changes nothing', async () => {
      const started = await connect({ platform: 'twitter' });
      const page = confirmationPageOf(await callback(await consent(started.body.authorize_url)));
      expect((await confirm(page)).status).toBe(200);
      const before = await rows();
      const replay = await confirm(page);
      expect(replay.status).toBe(400);
      expect(await rows()).toEqual(before);
      expect(await connectedEvents()).toHaveLength(1);
    });

    it('a form posted without the browser cookie, with another cookie, or with a forged token is refused; the real one still works', async () => {
      const started = await connect({ platform: 'twitter' });
      const back = await consent(started.body.authorize_url);
      const page = confirmationPageOf(await callback(back));
      const forgedToken = 'A'.repeat(43);
      for (const refused of [
        await confirm(page, { cookie: null }),
        await confirm(page, { cookie: `connect_confirmation=${forgedToken}` }),
        await confirm(page, { fields: { confirmation: forgedToken } }),
        await confirm(page, { fields: { confirmation: forgedToken }, cookie: `connect_confirmation=${forgedToken}` }),
      ]) {
        expect(refused.status).toBe(400);
        expect(refused.body).toContain('browser');
      }
      await expectNothingStored();
      // Whoever made the link knows the state, but a reload without the browser's cookie shows nothing.
      const reloadElsewhere = await callback(back);
      expect(reloadElsewhere.status).toBe(400);
      expect(reloadElsewhere.body).not.toContain('name="confirmation"');
      expect((await confirm(page)).status).toBe(200);
      expect(await rows()).toHaveLength(1);
    });

    it('a reload in the same browser shows the page again with a fresh token; the old form stops working', async () => {
      const started = await connect({ platform: 'twitter' });
      const back = await consent(started.body.authorize_url);
      const first = confirmationPageOf(await callback(back));
      const reloaded = confirmationPageOf(await callback(back, { headers: { cookie: first.cookie } }));
      expect(reloaded.fields.confirmation).not.toBe(first.fields.confirmation);
      expect((await confirm(first)).status).toBe(400);
      await expectNothingStored();
      expect((await confirm(reloaded)).status).toBe(200);
      expect(await rows()).toHaveLength(1);
    });

    it('expires with the state', async () => {
      const started = await connect({ platform: 'twitter' });
      const page = confirmationPageOf(await callback(await consent(started.body.authorize_url)));
      bed.runtime.clock.advance(15 * 60 * 1000);
      const late = await confirm(page);
      expect(late.status).toBe(400);
      expect(late.body).toContain('expired');
      await expectNothingStored();
    });

    it('sets its cookie HttpOnly, SameSite=Lax, on the callback path alone, until the state expires', async () => {
      const started = await connect({ platform: 'twitter' });
      const asked = await callback(await consent(started.body.authorize_url));
      const [cookie] = asked.headers.getSetCookie();
      expect(cookie).toMatch(/^connect_confirmation=[\w-]{43}; /);
      expect(cookie).toContain('Path=/callbacks/twitter/oauth');
      expect(cookie).toContain('HttpOnly');
      expect(cookie).toContain('SameSite=Lax');
      expect(cookie).toContain(`Expires=${new Date(started.body.expires_at).toUTCString()}`);
      expect(asked.headers.get('x-frame-options')).toBe('DENY');
    });
  });

  describe('refusals at connect', () => {
    it('an unknown platform is invalid_body naming the live platforms; a known one without its app is platform_not_configured', async () => {
      const res = await connect({ platform: 'myspace' });
      expectError(res, 400, 'invalid_body', { details: true });
      expect(res.body.error.details.fieldErrors.platform[0]).toContain(
        'twitter, linkedin, instagram, facebook, tiktok',
      );
      const unconfigured = await connect({ platform: 'instagram' });
      expectError(unconfigured, 422, 'platform_not_configured');
      expect(unconfigured.body.error.message).toMatch(/INSTAGRAM_APP_ID and INSTAGRAM_APP_SECRET/);
    });

    it('return_url must be an absolute http(s) URL', async () => {
      for (const returnUrl of ['/relative', 'ftp://files.example.com/x', 'javascript:alert(1)']) {
        expectError(await connect({ platform: 'twitter', return_url: returnUrl }), 400, 'invalid_body', {
          details: true,
        });
      }
      expect(await bed.runtime.db.select().from(oauthConnectStates).all()).toEqual([]);
    });

    it("return_url must be on the service's origin: another site, or credentials before the host, answer 422 invalid_return_url", async () => {
      const base = new URL(BASE_URL);
      for (const returnUrl of [
        'https://evil.example/steal',
        `http://${base.host}@evil.example/`,
        `${base.protocol}//user:pass@${base.host}/done`,
        `https://${base.hostname}:${Number(base.port) + 1}/done`,
        `${BASE_URL}.evil.example/done`,
      ]) {
        const res = await connect({ platform: 'twitter', return_url: returnUrl });
        expectError(res, 422, 'invalid_return_url');
        expect(res.body.error.message).toContain(base.origin);
      }
      expect(await bed.runtime.db.select().from(oauthConnectStates).all()).toEqual([]);
      expect((await connect({ platform: 'twitter', return_url: `${BASE_URL}/settings?tab=accounts` })).status).toBe(
        201,
      );
    });

    it('CONNECT_RETURN_ORIGINS lets return_url lead to the origins it lists, exactly; a value that is no origin stops start-up', async () => {
      const runtime = await testRuntime({
        env: { ...env, CONNECT_RETURN_ORIGINS: 'https://app.example.com, http://127.0.0.1:5173' },
      });
      const server = await startTestServer(runtime);
      try {
        const ws = await makeWorkspace(runtime);
        const connectTo = (returnUrl: string) =>
          call(server, 'POST', '/api/v1/social-accounts/connect', {
            headers: ws.headers,
            body: { platform: 'twitter', return_url: returnUrl },
          });
        for (const allowed of ['https://app.example.com/done?tab=1', 'http://127.0.0.1:5173/', `${BASE_URL}/x`]) {
          expect((await connectTo(allowed)).status, allowed).toBe(201);
        }
        for (const refused of [
          'https://app.example.com:8443/done',
          'http://app.example.com/done',
          'https://evil.example/',
        ]) {
          expectError(await connectTo(refused), 422, 'invalid_return_url');
        }
      } finally {
        await server.close();
      }
      for (const bad of ['https://app.example.com/path', 'app.example.com', 'ftp://files.example.com']) {
        await expect(testRuntime({ env: { CONNECT_RETURN_ORIGINS: bad } })).rejects.toThrow(/CONNECT_RETURN_ORIGINS/);
      }
    });

    it('platform_not_configured (422) names the variables when the credentials are unset', async () => {
      const runtime = await testRuntime({ env: baseEnv });
      const server = await startTestServer(runtime);
      try {
        const ws = await makeWorkspace(runtime);
        for (const [platform, variables] of [
          ['twitter', ['X_CLIENT_ID', 'X_CLIENT_SECRET']],
          ['linkedin', ['LINKEDIN_CLIENT_ID', 'LINKEDIN_CLIENT_SECRET']],
        ] as const) {
          const res = await call(server, 'POST', '/api/v1/social-accounts/connect', {
            headers: ws.headers,
            body: { platform },
          });
          expectError(res, 422, 'platform_not_configured');
          for (const variable of variables) expect(res.body.error.message).toContain(variable);
        }
        expect(await runtime.db.select().from(oauthConnectStates).all()).toEqual([]);
      } finally {
        await server.close();
      }
    });
  });

  describe('platforms_limit', () => {
    /** The starter plan allows 3 active accounts. */
    async function starterWorkspace() {
      const ws = await makeWorkspace(bed.runtime, { plan: 'starter' });
      const sandbox = async (username: string) =>
        connectSocialAccount(bed.runtime, { workspaceId: ws.workspace.id, platform: 'facebook', username });
      return { ws, sandbox };
    }

    it('connecting past the limit answers 403 quota_exceeded at connect', async () => {
      const { ws, sandbox } = await starterWorkspace();
      await sandbox('one');
      await sandbox('two');
      await sandbox('three');
      expectError(await connect({ platform: 'twitter' }, ws.headers), 403, 'quota_exceeded');
    });

    it('and again at the callback, when the limit was reached in between: nothing stored', async () => {
      const { ws, sandbox } = await starterWorkspace();
      await sandbox('one');
      await sandbox('two');
      const started = await connect({ platform: 'twitter' }, ws.headers);
      expect(started.status).toBe(201);
      await sandbox('three');
      const { answer } = await finish(await consent(started.body.authorize_url));
      expect(answer.status).toBe(403);
      expect(answer.body).toContain('platforms_limit');
      expect((await rows()).filter((row) => row.mode === 'live')).toEqual([]);
      expect(await connectedEvents()).toEqual([]);
    });

    it('a reconnect of an active account at the limit is not a new one', async () => {
      const { ws, sandbox } = await starterWorkspace();
      await sandbox('one');
      await sandbox('two');
      const first = await connect({ platform: 'twitter' }, ws.headers);
      expect((await finish(await consent(first.body.authorize_url))).answer.status).toBe(200);
      const again = await connect({ platform: 'twitter' }, ws.headers);
      expect(again.status).toBe(201);
      expect((await finish(await consent(again.body.authorize_url))).answer.status).toBe(200);
      expect((await rows()).filter((row) => row.workspaceId === ws.workspace.id)).toHaveLength(3);
    });
  });

  it('maintenance removes the states nobody came back with, once expired', async () => {
    await connect({ platform: 'twitter' });
    await connect({ platform: 'linkedin' });
    expect((await runMaintenance(bed.runtime)).expiredConnectStates).toBe(0);
    bed.runtime.clock.advance(15 * 60 * 1000);
    expect((await runMaintenance(bed.runtime)).expiredConnectStates).toBe(2);
    expect(await bed.runtime.db.select().from(oauthConnectStates).all()).toEqual([]);
  });

  it("the platform's deauthorize callback disconnects a live account", async () => {
    await connectThrough('twitter');
    const res = await call(bed.server, 'POST', '/callbacks/twitter/deauthorize', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      rawBody: new URLSearchParams({
        signed_request: signedRequest({ algorithm: 'HMAC-SHA256', user_id: x.users[0]!.id }, X_APP_SECRET),
      }).toString(),
    });
    expect(res.status).toBe(200);
    expect(await rows()).toEqual([expect.objectContaining({ mode: 'live', status: 'disconnected', isActive: false })]);
    expect((await eventsOf(bed.runtime)).map((event) => event.type)).toEqual([
      'social_account.connected',
      'social_account.disconnected',
    ]);
  });

  it('admin connect-url prints {authorize_url}, which connects the account', async () => {
    const out: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
    try {
      const code = await runAdmin(bed.runtime, [
        'connect-url',
        '--workspace',
        bed.ws.workspace.id,
        '--platform',
        'linkedin',
        '--return-url',
        `${BASE_URL}/done`,
        '--json',
      ]);
      expect(code).toBe(0);
    } finally {
      vi.restoreAllMocks();
    }
    const printed = JSON.parse(out.at(-1)!);
    expect(Object.keys(printed)).toEqual(['authorize_url']);
    const { answer } = await finish(await consent(printed.authorize_url));
    expect(answer.status).toBe(303);
    expect(await rows()).toEqual([
      expect.objectContaining({ workspaceId: bed.ws.workspace.id, platform: 'linkedin', mode: 'live' }),
    ]);
  });
});
