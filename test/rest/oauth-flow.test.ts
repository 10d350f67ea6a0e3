import {
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AuthorizationServerMetadata, OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import { describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_LIFETIME_MS, issueAuthorizationCode } from '../../src/core/oauth/grants.ts';
import { call, readReply, useRestTestbed, type RestTestbed } from '../helpers/http.ts';
import { BASE_URL, baseEnv } from '../helpers/rest-expect.ts';
import { consentFormFields } from '../helpers/oauth-tokens.ts';

const REDIRECT = 'http://127.0.0.1:4999/callback';

/** The SDK fetches the service's public addresses; here they go to the test server (checked against OpenAPI). */
const fetchVia =
  (bed: RestTestbed) =>
  (url: string | URL, init?: RequestInit): Promise<Response> =>
    bed.server.request(String(url).replace(BASE_URL, ''), init);

async function openConsent(bed: RestTestbed, authorizationUrl: URL) {
  const res = await bed.server.request(authorizationUrl.pathname + authorizationUrl.search, { redirect: 'manual' });
  return { res, page: await res.text() };
}

/** Posts the consent form as a browser would, without following the redirect. */
const postConsent = (bed: RestTestbed, fields: Record<string, string>) =>
  bed.server.request('/oauth/authorize', {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

const postForm = (
  bed: RestTestbed,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) =>
  bed.server
    .request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    })
    .then(readReply);

interface Setup {
  metadata: AuthorizationServerMetadata;
  client: OAuthClientInformationFull;
}

async function registered(bed: RestTestbed, method = 'none'): Promise<Setup> {
  const fetchFn = fetchVia(bed);
  const metadata = (await discoverAuthorizationServerMetadata(BASE_URL, { fetchFn }))!;
  const client = await registerClient(BASE_URL, {
    metadata,
    clientMetadata: { client_name: 'Test Assistant', redirect_uris: [REDIRECT], token_endpoint_auth_method: method },
    fetchFn,
  });
  return { metadata, client };
}

/** The authorization URL the SDK builds for the registered client, with `state` and no scope or resource. */
async function authorizationUrlFor({ metadata, client }: Setup, state: string): Promise<URL> {
  const { authorizationUrl } = await startAuthorization(BASE_URL, {
    metadata,
    clientInformation: client,
    redirectUrl: REDIRECT,
    state,
  });
  return authorizationUrl;
}

/** Authorize through the consent page with the workspace's key; answers the code and the verifier. */
async function authorize(bed: RestTestbed, { metadata, client }: Setup, resource = `${BASE_URL}/mcp`) {
  const { authorizationUrl, codeVerifier } = await startAuthorization(BASE_URL, {
    metadata,
    clientInformation: client,
    redirectUrl: REDIRECT,
    scope: 'read write publish',
    state: 'state-123',
    resource: new URL(resource),
  });
  const { res, page } = await openConsent(bed, authorizationUrl);
  expect(res.status).toBe(200);
  const answer = await postConsent(bed, { ...consentFormFields(page), api_key: bed.ws.apiKey, decision: 'approve' });
  expect(answer.status).toBe(302);
  const location = new URL(answer.headers.get('location')!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  expect(location.searchParams.get('state')).toBe('state-123');
  expect(location.searchParams.get('iss')).toBe(BASE_URL);
  return { code: location.searchParams.get('code')!, codeVerifier };
}

async function tokensFor(bed: RestTestbed, setup: Setup) {
  const { code, codeVerifier } = await authorize(bed, setup);
  return exchangeAuthorization(BASE_URL, {
    metadata: setup.metadata,
    clientInformation: setup.client,
    authorizationCode: code,
    codeVerifier,
    redirectUri: REDIRECT,
    resource: new URL(`${BASE_URL}/mcp`),
    fetchFn: fetchVia(bed),
  });
}

async function mcpClient(bed: RestTestbed, accessToken: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${bed.server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
  });
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const mcpPing = (bed: RestTestbed, accessToken: string) =>
  bed.server.request('/mcp', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });

describe('OAuth authorization code flow for /mcp', () => {
  const bed = useRestTestbed({ env: baseEnv });

  it('lets the SDK register, authorize through the consent form, exchange the code and call a tool over /mcp', async () => {
    const setup = await registered(bed);
    const tokens = await tokensFor(bed, setup);
    expect(tokens.access_token).toMatch(/^np_oat_/);
    expect(tokens.refresh_token).toMatch(/^np_ort_/);
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe('read write publish');
    const client = await mcpClient(bed, tokens.access_token);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    const result = await client.callTool({ name: 'service_list_content', arguments: {} });
    expect(result.isError).toBeFalsy();
    await client.close();
    // REST takes the same token as the workspace's key.
    const me = await call(bed.server, 'GET', '/api/v1/me', {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(me.status).toBe(200);
    expect(me.body).toEqual((await call(bed.server, 'GET', '/api/v1/me', { headers: bed.ws.headers })).body);
  });

  it('works for a confidential client authenticating with client_secret_basic', async () => {
    const setup = await registered(bed, 'client_secret_basic');
    expect(setup.client.client_secret).toMatch(/^np_ocs_/);
    const tokens = await tokensFor(bed, setup);
    expect(tokens.access_token).toMatch(/^np_oat_/);
  });

  it('sends the consent page unframeable, naming the client, the return host and the scopes', async () => {
    const setup = await registered(bed);
    const authorizationUrl = await authorizationUrlFor(setup, 's');
    const { res, page } = await openConsent(bed, authorizationUrl);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page).toContain('Test Assistant');
    expect(page).toContain('127.0.0.1:4999');
    expect(page).toContain('Publish content and launch campaigns');
    expect(page).toContain('name="api_key"');
  });

  it('answers a wrong or missing redirect_uri, or an unknown client, with an error page and no redirect', async () => {
    const setup = await registered(bed);
    const authorizationUrl = await authorizationUrlFor(setup, 's');
    const variants: Array<[string, string | null]> = [
      ['redirect_uri', 'https://evil.example/callback'],
      ['redirect_uri', null],
      ['client_id', 'npc_unknown'],
      // A metadata document on a private address: the SSRF guard refuses it before anything is dialled.
      ['client_id', 'https://127.0.0.1:9/metadata.json'],
      ['client_id', 'http://127.0.0.1:9/metadata.json'],
    ];
    for (const [name, value] of variants) {
      const url = new URL(authorizationUrl);
      if (value === null) url.searchParams.delete(name);
      else url.searchParams.set(name, value);
      const { res, page } = await openConsent(bed, url);
      expect(res.status, `${name}=${value}`).toBe(400);
      expect(res.headers.get('location'), `${name}=${value}`).toBeNull();
      expect(page).toContain('<h1>');
    }
  });

  it("gives every authorization response, success or error, an iss equal to the metadata's issuer (RFC 9207)", async () => {
    const metadata = await call(bed.server, 'GET', '/.well-known/oauth-authorization-server');
    expect(metadata.body.authorization_response_iss_parameter_supported).toBe(true);
    const { issuer } = metadata.body;
    const setup = await registered(bed);
    const fields = consentFormFields((await openConsent(bed, await authorizationUrlFor(setup, 'ok'))).page);
    const approved = await postConsent(bed, { ...fields, api_key: bed.ws.apiKey, decision: 'approve' });
    expect(new URL(approved.headers.get('location')!).searchParams.get('code')).toBeTruthy();
    const refused = new URL(await authorizationUrlFor(setup, 'bad'));
    refused.searchParams.set('resource', 'https://other.example/mcp');
    const error = (await openConsent(bed, refused)).res;
    expect(new URL(error.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
    for (const answer of [approved, error]) {
      expect(new URL(answer.headers.get('location')!).searchParams.get('iss')).toBe(issuer);
    }
  });

  it('redirects other request errors back with error, state and iss', async () => {
    const setup = await registered(bed);
    const authorizationUrl = await authorizationUrlFor(setup, 'st');
    const url = new URL(authorizationUrl);
    url.searchParams.set('resource', 'https://other.example/mcp');
    const { res } = await openConsent(bed, url);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('invalid_target');
    expect(location.searchParams.get('state')).toBe('st');
    expect(location.searchParams.get('iss')).toBe(BASE_URL);
  });

  it('redirects a denial with access_denied, shows the page again for a wrong key, and refuses a forged form', async () => {
    const setup = await registered(bed);
    const authorizationUrl = await authorizationUrlFor(setup, 'st');
    const fields = consentFormFields((await openConsent(bed, authorizationUrl)).page);
    const denied = await postConsent(bed, { ...fields, decision: 'deny' });
    expect(denied.status).toBe(302);
    const location = new URL(denied.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('st');
    expect(location.searchParams.get('iss')).toBe(BASE_URL);

    const wrongKey = await postConsent(bed, { ...fields, api_key: 'np_live_wrong', decision: 'approve' });
    expect(wrongKey.status).toBe(400);
    expect(wrongKey.headers.get('location')).toBeNull();
    expect(await wrongKey.text()).toContain('not valid');

    const forged = await postConsent(bed, { ...fields, scope: 'read', api_key: bed.ws.apiKey, decision: 'approve' });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('location')).toBeNull();
  });

  it('answers 429 after ten wrong keys in a minute from one address, and takes keys again a minute later', async () => {
    const setup = await registered(bed);
    const authorizationUrl = await authorizationUrlFor(setup, 'st');
    const fields = consentFormFields((await openConsent(bed, authorizationUrl)).page);
    for (let attempt = 1; attempt <= 10; attempt++) {
      const wrong = await postConsent(bed, { ...fields, api_key: `np_live_wrong${attempt}`, decision: 'approve' });
      expect(wrong.status, `attempt ${attempt}`).toBe(400);
    }
    const limited = await postConsent(bed, { ...fields, api_key: bed.ws.apiKey, decision: 'approve' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('location')).toBeNull();
    bed.runtime.clock.advance(60_000);
    const later = await postConsent(bed, { ...fields, api_key: bed.ws.apiKey, decision: 'approve' });
    expect(later.status).toBe(302);
    expect(new URL(later.headers.get('location')!).searchParams.get('code')).toMatch(/^np_oac_/);
  });

  it('refuses a replayed code with invalid_grant and revokes the tokens it gave', async () => {
    const setup = await registered(bed);
    const { code, codeVerifier } = await authorize(bed, setup);
    const fields = {
      grant_type: 'authorization_code',
      code,
      code_verifier: codeVerifier,
      redirect_uri: REDIRECT,
      client_id: setup.client.client_id,
    };
    const first = await postForm(bed, '/oauth/token', fields);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const replay = await postForm(bed, '/oauth/token', fields);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect((await mcpPing(bed, first.body.access_token)).status).toBe(401);
  });

  it('refuses a wrong verifier and a different redirect_uri with invalid_grant', async () => {
    const setup = await registered(bed);
    for (const change of [{ code_verifier: 'x'.repeat(43) }, { redirect_uri: 'http://127.0.0.1:4999/other' }]) {
      const { code, codeVerifier } = await authorize(bed, setup);
      const res = await postForm(bed, '/oauth/token', {
        grant_type: 'authorization_code',
        code,
        code_verifier: codeVerifier,
        redirect_uri: REDIRECT,
        client_id: setup.client.client_id,
        ...change,
      });
      expect(res.status, JSON.stringify(change)).toBe(400);
      expect(res.body.error).toBe('invalid_grant');
    }
  });

  it('answers invalid_target, not invalid_grant, for a resource the service does not serve or the grant is not for', async () => {
    const setup = await registered(bed);
    // RFC 8707 section 2.2: the target is wrong, not the grant. The code is spent all the same.
    for (const resource of ['https://other.example/mcp', BASE_URL]) {
      const { code, codeVerifier } = await authorize(bed, setup);
      const res = await postForm(bed, '/oauth/token', {
        grant_type: 'authorization_code',
        code,
        code_verifier: codeVerifier,
        redirect_uri: REDIRECT,
        client_id: setup.client.client_id,
        resource,
      });
      expect(res.status, resource).toBe(400);
      expect(res.body.error, resource).toBe('invalid_target');
    }
    const tokens = await tokensFor(bed, setup);
    const refresh = (resource: string, refreshToken = tokens.refresh_token!) =>
      postForm(bed, '/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: setup.client.client_id,
        resource,
      });
    const elsewhere = await refresh('https://other.example/mcp');
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error).toBe('invalid_target');
    const own = await refresh(`${BASE_URL}/mcp`);
    expect(own.status).toBe(200);
    expect(own.body.scope).toBe('read write publish');
  });

  it('answers the RFC 6749 errors for a bad client, grant type or scope', async () => {
    const setup = await registered(bed);
    const unknownClient = await postForm(bed, '/oauth/token', { grant_type: 'refresh_token', client_id: 'npc_nobody' });
    expect(unknownClient.status).toBe(401);
    expect(unknownClient.body.error).toBe('invalid_client');
    const grantType = await postForm(bed, '/oauth/token', {
      grant_type: 'password',
      client_id: setup.client.client_id,
    });
    expect(grantType.body.error).toBe('unsupported_grant_type');
    const tokens = await tokensFor(bed, setup);
    const wider = await postForm(bed, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      scope: 'read admin',
      client_id: setup.client.client_id,
    });
    expect(wider.body.error).toBe('invalid_scope');
  });

  it('rotates refresh tokens, allows a narrower scope, and revokes the family when a spent one is reused', async () => {
    const setup = await registered(bed);
    const tokens = await tokensFor(bed, setup);
    const refreshed = await postForm(bed, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      scope: 'read',
      client_id: setup.client.client_id,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('read');
    expect(refreshed.body.refresh_token).not.toBe(tokens.refresh_token);
    const reuse = await postForm(bed, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: setup.client.client_id,
    });
    expect(reuse.body.error).toBe('invalid_grant');
    const fresh = await postForm(bed, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: refreshed.body.refresh_token,
      client_id: setup.client.client_id,
    });
    expect(fresh.body.error).toBe('invalid_grant');
    expect((await mcpPing(bed, refreshed.body.access_token)).status).toBe(401);
  });

  it('answers 401 invalid_token with the challenge for an expired token, and the refresh then works', async () => {
    const setup = await registered(bed);
    const tokens = await tokensFor(bed, setup);
    expect((await mcpPing(bed, tokens.access_token)).status).toBe(200);
    bed.runtime.clock.advance(ACCESS_TOKEN_LIFETIME_MS);
    const expired = await mcpPing(bed, tokens.access_token);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(expired.headers.get('www-authenticate')).toContain('resource_metadata=');
    const refreshed = await refreshAuthorization(BASE_URL, {
      metadata: setup.metadata,
      clientInformation: setup.client,
      refreshToken: tokens.refresh_token!,
      fetchFn: fetchVia(bed),
    });
    expect((await mcpPing(bed, refreshed.access_token)).status).toBe(200);
  });

  it('refuses a token issued for another resource', async () => {
    const setup = await registered(bed);
    const code = await issueAuthorizationCode(bed.runtime, {
      clientId: setup.client.client_id,
      workspaceId: bed.ws.workspace.id,
      redirectUri: REDIRECT,
      // base64url SHA-256 of 43 'a's
      codeChallenge: 'ZtNPunH49FD35FWYhT5Tv8I7vRKQJ8uxMaL0_9eHjNA',
      scopes: ['read'],
      resource: 'https://other.example/mcp',
    });
    const tokens = await postForm(bed, '/oauth/token', {
      grant_type: 'authorization_code',
      code,
      code_verifier: 'a'.repeat(43),
      redirect_uri: REDIRECT,
      client_id: setup.client.client_id,
    });
    expect(tokens.status).toBe(200);
    const res = await mcpPing(bed, tokens.body.access_token);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('revokes a token and answers 200 whatever the token', async () => {
    const setup = await registered(bed);
    const tokens = await tokensFor(bed, setup);
    for (const token of [tokens.access_token, 'np_oat_nothing', '']) {
      const res = await postForm(bed, '/oauth/revoke', { token, client_id: setup.client.client_id });
      expect(res.status, token).toBe(200);
    }
    expect((await mcpPing(bed, tokens.access_token)).status).toBe(401);
  });
});
