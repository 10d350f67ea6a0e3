import { describe, expect, it } from 'vitest';
import type { Role } from '../../db/schema/index.ts';
import { exchangeAuthorizationCode, findClient } from '../../src/core/oauth/grants.ts';
import { registerClient } from '../../src/core/oauth/registration.ts';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { call, useRestTestbed, type RestTestbed } from '../helpers/http.ts';
import { CHALLENGE, consentFormFields, issueTestToken, REDIRECT, VERIFIER } from '../helpers/oauth-tokens.ts';
import { makePerson } from '../helpers/people.ts';

/** A token bound to a person of the bed's workspace with `role`, all three scopes asked for. */
async function tokenFor(bed: RestTestbed, role: Role, workspaceId = bed.ws.workspace.id) {
  const person = await makePerson(bed.runtime, workspaceId, role);
  const { accessToken } = await issueTestToken(
    bed.runtime,
    workspaceId,
    ['read', 'write', 'publish'],
    'Roles',
    person.userId,
  );
  return { person, headers: { authorization: `Bearer ${accessToken}` } };
}

describe("REST: a person-bound credential acts with the person's role", () => {
  const bed = useRestTestbed();

  it('a viewer reads but cannot create, and is told why with 403 forbidden', async () => {
    const { headers } = await tokenFor(bed, 'viewer');
    await makeContent(bed.runtime, bed.ws.workspace, { status: 'pending_review' });
    expect((await call(bed.server, 'GET', '/api/v1/content', { headers })).status).toBe(200);
    const refused = await call(bed.server, 'POST', '/api/v1/content', { headers, body: { caption: 'Hi' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    expect(refused.body.error.message).toMatch(/an editor or above; you are a viewer/);
  });

  it('an editor creates and submits, records created_by, but cannot approve, reject, schedule or publish', async () => {
    const { person, headers } = await tokenFor(bed, 'editor');
    const created = await call(bed.server, 'POST', '/api/v1/content', { headers, body: { caption: 'Draft' } });
    expect(created.status).toBe(201);
    expect(created.body.created_by).toEqual({ type: 'user', id: person.userId });
    const id = created.body.id;
    const submitted = await call(bed.server, 'PATCH', `/api/v1/content/${id}`, {
      headers,
      body: { status: 'pending_review' },
    });
    expect(submitted.body.status).toBe('pending_review');
    for (const body of [
      { status: 'approved' },
      { status: 'rejected', review_note: 'no' },
      { status: 'scheduled', scheduled_for: '2026-04-01T10:00:00Z' },
    ]) {
      const refused = await call(bed.server, 'PATCH', `/api/v1/content/${id}`, { headers, body });
      expect(refused.status).toBe(403);
      expect(['forbidden', 'insufficient_scope']).toContain(refused.body.error.code);
    }
    expect((await call(bed.server, 'POST', `/api/v1/content/${id}/publish`, { headers, body: {} })).status).toBe(403);
    const direct = await call(bed.server, 'POST', '/api/v1/content', {
      headers,
      body: { caption: 'x', status: 'approved' },
    });
    expect(direct.status).toBe(403);
    // Nothing changed.
    const read = await call(bed.server, 'GET', `/api/v1/content/${id}`, { headers: bed.ws.headers });
    expect(read.body.status).toBe('pending_review');
  });

  it('an editor cannot change an item once it is approved', async () => {
    const { headers } = await tokenFor(bed, 'editor');
    const item = await makeContent(bed.runtime, bed.ws.workspace, { status: 'approved' });
    const refused = await call(bed.server, 'PATCH', `/api/v1/content/${item.id}`, {
      headers,
      body: { caption: 'New' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/approved/);
  });

  it('an approver approves, and rejects with a review_note that REST then shows', async () => {
    const { headers } = await tokenFor(bed, 'approver');
    const a = await makeContent(bed.runtime, bed.ws.workspace, { status: 'pending_review' });
    const b = await makeContent(bed.runtime, bed.ws.workspace, { status: 'pending_review' });
    expect(
      (await call(bed.server, 'PATCH', `/api/v1/content/${a.id}`, { headers, body: { status: 'approved' } })).body
        .status,
    ).toBe('approved');
    await call(bed.server, 'PATCH', `/api/v1/content/${b.id}`, {
      headers,
      body: { status: 'rejected', review_note: 'Too long for X' },
    });
    const read = await call(bed.server, 'GET', `/api/v1/content/${b.id}`, { headers: bed.ws.headers });
    expect(read.body).toMatchObject({ status: 'rejected', review_note: 'Too long for X' });
    // Submitting again clears the reason.
    await call(bed.server, 'PATCH', `/api/v1/content/${b.id}`, { headers, body: { status: 'pending_review' } });
    expect(
      (await call(bed.server, 'GET', `/api/v1/content/${b.id}`, { headers: bed.ws.headers })).body.review_note,
    ).toBeNull();
  });

  it('a review_note without status rejected is a 400 naming the field', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, { status: 'pending_review' });
    const res = await call(bed.server, 'PATCH', `/api/v1/content/${item.id}`, {
      headers: bed.ws.headers,
      body: { status: 'approved', review_note: 'fine' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.review_note).toBeDefined();
  });

  it("with approver_must_differ on, an approver cannot approve their own item but can approve another's", async () => {
    expect(
      (await call(bed.server, 'PATCH', '/api/v1/me', { headers: bed.ws.headers, body: { approver_must_differ: true } }))
        .body.approver_must_differ,
    ).toBe(true);
    const { headers } = await tokenFor(bed, 'approver');
    const own = await call(bed.server, 'POST', '/api/v1/content', {
      headers,
      body: { caption: 'Mine', status: 'pending_review' },
    });
    const refused = await call(bed.server, 'PATCH', `/api/v1/content/${own.body.id}`, {
      headers,
      body: { status: 'approved' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/differ from the author/);
    const other = await makeContent(bed.runtime, bed.ws.workspace, { status: 'pending_review' });
    expect(
      (await call(bed.server, 'PATCH', `/api/v1/content/${other.id}`, { headers, body: { status: 'approved' } }))
        .status,
    ).toBe(200);
  });

  it("another workspace's item answers 404 to a person's token", async () => {
    const { headers } = await tokenFor(bed, 'admin');
    const other = await makeWorkspace(bed.runtime);
    const foreign = await makeContent(bed.runtime, other.workspace, { status: 'pending_review' });
    expect((await call(bed.server, 'GET', `/api/v1/content/${foreign.id}`, { headers })).status).toBe(404);
    expect(
      (await call(bed.server, 'PATCH', `/api/v1/content/${foreign.id}`, { headers, body: { status: 'approved' } }))
        .status,
    ).toBe(404);
  });

  it('API keys keep full access: a key approves and publishes', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, { status: 'pending_review' });
    const res = await call(bed.server, 'PATCH', `/api/v1/content/${item.id}`, {
      headers: bed.ws.headers,
      body: { status: 'approved' },
    });
    expect(res.status).toBe(200);
  });
});

describe('REST: workspace timezone on /me', () => {
  const bed = useRestTestbed();

  it('is UTC by default, set by an API key, refused 400 when unknown, and 403 for a non-admin person', async () => {
    expect((await call(bed.server, 'GET', '/api/v1/me', { headers: bed.ws.headers })).body.timezone).toBe('UTC');
    const set = await call(bed.server, 'PATCH', '/api/v1/me', {
      headers: bed.ws.headers,
      body: { timezone: 'America/New_York' },
    });
    expect(set.status).toBe(200);
    expect(set.body.timezone).toBe('America/New_York');
    expect((await call(bed.server, 'GET', '/api/v1/me', { headers: bed.ws.headers })).body.timezone).toBe(
      'America/New_York',
    );
    const unknown = await call(bed.server, 'PATCH', '/api/v1/me', {
      headers: bed.ws.headers,
      body: { timezone: 'Mars/Olympus' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.fieldErrors.timezone[0]).toMatch(/Unknown time zone/);
    const { headers } = await tokenFor(bed, 'approver');
    expect((await call(bed.server, 'PATCH', '/api/v1/me', { headers, body: { timezone: 'UTC' } })).status).toBe(403);
    const admin = await tokenFor(bed, 'admin');
    expect(
      (await call(bed.server, 'PATCH', '/api/v1/me', { headers: admin.headers, body: { timezone: 'Europe/Paris' } }))
        .status,
    ).toBe(200);
    expect((await call(bed.server, 'PATCH', '/api/v1/me', { headers: admin.headers, body: {} })).status).toBe(400);
  });
});

describe('REST: scheduled_from and scheduled_to on the content list', () => {
  const bed = useRestTestbed();

  it('keeps items scheduled in [from, to)', async () => {
    const at = async (iso: string) =>
      (await makeContent(bed.runtime, bed.ws.workspace, { status: 'scheduled', scheduled_for: iso })).id;
    const early = await at('2026-12-01T10:00:00Z');
    const inside = await at('2026-12-15T14:30:00Z');
    const edge = await at('2026-12-31T00:00:00Z');
    await makeContent(bed.runtime, bed.ws.workspace, { caption: 'unscheduled' });
    const res = await call(
      bed.server,
      'GET',
      '/api/v1/content?scheduled_from=2026-12-10T00:00:00Z&scheduled_to=2026-12-31T00:00:00Z',
      {
        headers: bed.ws.headers,
      },
    );
    expect(res.body.data.map((item: { id: string }) => item.id)).toEqual([inside]);
    const from = await call(bed.server, 'GET', '/api/v1/content?scheduled_from=2026-12-10T00:00:00Z', {
      headers: bed.ws.headers,
    });
    expect(from.body.data.map((item: { id: string }) => item.id).sort()).toEqual([inside, edge].sort());
    expect(early).toBeTruthy();
    const bad = await call(bed.server, 'GET', '/api/v1/content?scheduled_from=tomorrow', { headers: bed.ws.headers });
    expect(bad.status).toBe(400);
  });
});

describe('OAuth consent: signing in with a dashboard account binds the grant to the person', () => {
  const bed = useRestTestbed();

  async function consentAs(email: string, password: string) {
    const client = await registerClient(
      bed.runtime,
      { client_name: 'Assistant', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
      '127.0.0.1',
    );
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
      state: 's1',
      scope: 'read write publish',
    });
    const page = await (await bed.server.request(`/oauth/authorize?${query}`)).text();
    expect(page).toContain('Sign in with your dashboard account');
    const answer = await bed.server.request('/oauth/authorize', {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...consentFormFields(page), email, password, decision: 'approve' }).toString(),
    });
    return { client, answer };
  }

  /** Consents as the person and exchanges the code the consent redirected with. */
  async function tokensOf(email: string, password: string) {
    const { client, answer } = await consentAs(email, password);
    expect(answer.status).toBe(302);
    const code = new URL(answer.headers.get('location')!).searchParams.get('code')!;
    return exchangeAuthorizationCode(bed.runtime, (await findClient(bed.runtime, client.client_id))!, {
      code,
      codeVerifier: VERIFIER,
      redirectUri: REDIRECT,
    });
  }

  it("an editor's grant creates content over /api/v1 and is refused 403 when it approves; its scope lacks publish", async () => {
    const editor = await makePerson(bed.runtime, bed.ws.workspace.id, 'editor');
    const tokens = await tokensOf(editor.email, editor.password);
    expect(tokens.scope).toBe('read write');
    const headers = { authorization: `Bearer ${tokens.access_token}` };
    const created = await call(bed.server, 'POST', '/api/v1/content', {
      headers,
      body: { caption: 'By assistant', status: 'pending_review' },
    });
    expect(created.status).toBe(201);
    expect(created.body.created_by).toEqual({ type: 'user', id: editor.userId });
    const approve = await call(bed.server, 'PATCH', `/api/v1/content/${created.body.id}`, {
      headers,
      body: { status: 'approved' },
    });
    expect(approve.status).toBe(403);
    expect(approve.body.error.code).toBe('forbidden');
  });

  it('a person of two workspaces grants in the one they last chose, not in their oldest membership', async () => {
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'editor');
    const later = await makeWorkspace(bed.runtime);
    // Accepting the second invitation with the existing password is the person's latest choice.
    await makePerson(bed.runtime, later.workspace.id, 'editor', person.email);
    const tokens = await tokensOf(person.email, person.password);
    const created = await call(bed.server, 'POST', '/api/v1/content', {
      headers: { authorization: `Bearer ${tokens.access_token}` },
      body: { caption: 'Where does this land?', status: 'draft' },
    });
    expect(created.status).toBe(201);
    const inLater = await call(bed.server, 'GET', `/api/v1/content/${created.body.id}`, { headers: later.headers });
    expect(inLater.status).toBe(200);
    const inOldest = await call(bed.server, 'GET', `/api/v1/content/${created.body.id}`, { headers: bed.ws.headers });
    expect(inOldest.status).toBe(404);
  });

  it('a wrong password shows the page again with the one sign-in message, and gives no code', async () => {
    const editor = await makePerson(bed.runtime, bed.ws.workspace.id, 'editor');
    const { answer } = await consentAs(editor.email, 'not the password');
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('That email and password do not match an account.');
  });

  it('a pasted access token is still refused as the key (only API keys prove control)', async () => {
    const { accessToken } = await issueTestToken(bed.runtime, bed.ws.workspace.id, ['read', 'write', 'publish']);
    const client = await registerClient(
      bed.runtime,
      { client_name: 'Assistant', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
      '127.0.0.1',
    );
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
      state: 's1',
    });
    const page = await (await bed.server.request(`/oauth/authorize?${query}`)).text();
    const answer = await bed.server.request('/oauth/authorize', {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        ...consentFormFields(page),
        api_key: accessToken,
        email: 'x@example.com',
        decision: 'approve',
      }).toString(),
    });
    expect(answer.status).toBe(400);
  });
});
