/**
 * Answers that carry a secret are never stored by a cache (Cache-Control: no-store), and the
 * standalone pages that ask a person to grant access (the OAuth consent page, the account connection's
 * confirmation) run no script. Over HTTP, with the fake X as the platform.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakePlatformEnvironment } from '../../fakes/environment.ts';
import { startFakeX, type FakeX } from '../../fakes/x.ts';
import { issueSetupLink } from '../../src/core/people/users.ts';
import { confirmationPageOf, confirmationRequest } from '../helpers/connect-confirmation.ts';
import { Browser } from '../helpers/form-browser.ts';
import { call, readReply, useRestTestbed } from '../helpers/http.ts';
import { CHALLENGE, consentFormFields, REDIRECT, VERIFIER } from '../helpers/oauth-tokens.ts';
import { makePerson } from '../helpers/people.ts';
import { BASE_URL, baseEnv } from '../helpers/rest-expect.ts';

/** The policy's directives by name. */
function directives(policy: string | null): Map<string, string> {
  return new Map(
    (policy ?? '')
      .split(';')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const [name, ...values] = part.split(/\s+/);
        return [name!, values.join(' ')];
      }),
  );
}

/** A page that may run no script, load nothing and be framed by nobody. */
function expectLockedDownPage(headers: Headers) {
  const policy = directives(headers.get('content-security-policy'));
  expect(policy.get('script-src')).toBe("'none'");
  expect(policy.get('default-src')).toBe("'none'");
  expect(policy.get('frame-ancestors')).toBe("'none'");
  expect(policy.get('base-uri')).toBe("'none'");
  // Its form must still lead on to the client's redirect URI or the connection's return URL.
  expect(policy.has('form-action')).toBe(false);
}

describe('answers that carry secrets', () => {
  let x: FakeX;
  const env: Record<string, string> = { ...baseEnv, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
  const bed = useRestTestbed({ env });

  beforeAll(async () => {
    x = await startFakeX({ now: () => (bed.runtime ? bed.runtime.clock.now().getTime() : Date.now()) });
    Object.assign(env, fakePlatformEnvironment({ x }));
  });
  afterAll(async () => {
    await x.close();
  });

  const rest = (method: string, path: string, body?: unknown) =>
    call(bed.server, method, path, { headers: bed.ws.headers, body });

  it("sends a webhook's create and rotate answers, which carry signing_secret, with no-store (as every REST answer)", async () => {
    const created = await rest('POST', '/api/v1/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      events: ['content.created'],
    });
    expect(created.status).toBe(201);
    expect(created.body.signing_secret).toMatch(/^whsec_/);
    expect(created.headers.get('cache-control')).toBe('no-store');

    const rotated = await rest('POST', `/api/v1/webhooks/${created.body.id}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.signing_secret).toMatch(/^whsec_/);
    expect(rotated.headers.get('cache-control')).toBe('no-store');

    // Reads and refusals too: an answer is one credential's view of its workspace.
    expect((await rest('GET', '/api/v1/webhooks')).headers.get('cache-control')).toBe('no-store');
    const refused = await call(bed.server, 'GET', '/api/v1/me', { headers: { authorization: 'Bearer np_live_nope' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('cache-control')).toBe('no-store');
  });

  it("sends the OAuth client's secret and its tokens with no-store, after a consent page that runs no script", async () => {
    const registered = await call(bed.server, 'POST', '/oauth/register', {
      body: { client_name: 'Cache test', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_post' },
    });
    expect(registered.status).toBe(201);
    expect(registered.body.client_secret).toMatch(/^np_ocs_/);
    expect(registered.headers.get('cache-control')).toBe('no-store');

    const query = new URLSearchParams({
      response_type: 'code',
      client_id: registered.body.client_id,
      redirect_uri: REDIRECT,
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
      state: 'cache-state',
    });
    const consent = await bed.server.request(`/oauth/authorize?${query}`, { redirect: 'manual' });
    expect(consent.status).toBe(200);
    expectLockedDownPage(consent.headers);
    expect(consent.headers.get('cache-control')).toBe('no-store');

    // The page shown again over a wrong key is the same page, with the same policy.
    const fields = consentFormFields(await consent.text());
    const post = (extra: Record<string, string>) =>
      bed.server.request('/oauth/authorize', {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...fields, decision: 'approve', ...extra }).toString(),
      });
    const wrongKey = await post({ api_key: 'np_live_wrong' });
    expect(wrongKey.status).toBe(400);
    expectLockedDownPage(wrongKey.headers);

    const approved = await post({ api_key: bed.ws.apiKey });
    expect(approved.status).toBe(302);
    const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
    const tokens = await bed.server
      .request('/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          code_verifier: VERIFIER,
          redirect_uri: REDIRECT,
          client_id: registered.body.client_id,
          client_secret: registered.body.client_secret,
        }).toString(),
      })
      .then(readReply);
    expect(tokens.status).toBe(200);
    expect(tokens.body.access_token).toMatch(/^np_oat_/);
    expect(tokens.headers.get('cache-control')).toBe('no-store');
  });

  it('sends the connection confirmation page and its outcome with no-store and a policy that runs no script', async () => {
    const started = await rest('POST', '/api/v1/social-accounts/connect', { platform: 'twitter' });
    expect(started.status).toBe(201);
    const consent = await fetch(started.body.authorize_url, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    expect(back.origin).toBe(BASE_URL);
    const asked = await readReply(await bed.server.request(back.pathname + back.search, { redirect: 'manual' }));
    const page = confirmationPageOf(asked);
    expect(asked.headers.get('cache-control')).toBe('no-store');
    expectLockedDownPage(asked.headers);

    const done = await readReply(await bed.server.request(...confirmationRequest(page)));
    expect(done.status).toBe(200);
    expect(done.body).toContain('Account connected');
    expect(done.headers.get('cache-control')).toBe('no-store');
    expectLockedDownPage(done.headers);
  });

  it('sends the dashboard pages that show a new key, a signing secret, an invite link or a set-password form with no-store', async () => {
    const setupLink = await issueSetupLink(bed.runtime, bed.ws.workspace.id);
    const setup = await new Browser(bed).get(Browser.pathOf(setupLink));
    expect(setup.status).toBe(200);
    expect(setup.headers.get('cache-control')).toBe('no-store');

    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'admin');
    const admin = new Browser(bed);
    await admin.signIn(person.email, person.password);

    const key = await admin.post('/app/keys', { name: 'Cache test' });
    expect(key.status).toBe(303);
    const keyPage = await admin.get(Browser.pathOf(key.location));
    expect(keyPage.text).toMatch(/value="np_live_[0-9A-Za-z]+"/);
    expect(keyPage.headers.get('cache-control')).toBe('no-store');

    await admin.open('/app/webhooks');
    const hook = await admin.post('/app/webhooks', { url: 'http://127.0.0.1:9/hook', events: 'content.created' });
    expect(hook.status, hook.text).toBe(303);
    const hookPage = await admin.get(Browser.pathOf(hook.location));
    expect(hookPage.text).toMatch(/value="whsec_[^"]+"/);
    expect(hookPage.headers.get('cache-control')).toBe('no-store');

    await admin.open('/app/members');
    const invited = await admin.post('/app/members/invite', { email: 'cache.test@example.com', role: 'editor' });
    expect(invited.status, invited.text).toBe(303);
    const members = await admin.get(Browser.pathOf(invited.location));
    const link = /value="(https?:\/\/[^"]+\/app\/invite\?token=[^"]+)"/.exec(members.text)?.[1];
    expect(link, members.text).toBeDefined();
    expect(members.headers.get('cache-control')).toBe('no-store');

    const inviteForm = await new Browser(bed).get(Browser.pathOf(link!.replace(/&amp;/g, '&')));
    expect(inviteForm.status).toBe(200);
    expect(inviteForm.headers.get('cache-control')).toBe('no-store');
  });
});
