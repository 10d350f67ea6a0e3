/**
 * What the consent page takes as proof of a workspace, and what a grant is bound to: a credential
 * derived from a grant never mints a wider one, and a token works only on the instance that issued it.
 * Raw HTTP against the real app, as a client or an attacker would send it.
 */
import { count } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { oauthAuthorizationCodes } from '../../db/schema/index.ts';
import { loadConfig } from '../../src/core/config.ts';
import { call, readReply, startTestServer, useRestTestbed, type TestServer } from '../helpers/http.ts';
import { consentFormFields } from '../helpers/oauth-tokens.ts';
import { baseEnv } from '../helpers/rest-expect.ts';
import { TEST_ENCRYPTION_KEY } from '../helpers/runtime.ts';

const REDIRECT = 'http://127.0.0.1:4999/callback';
const VERIFIER = 'v'.repeat(43);
/** base64url SHA-256 of VERIFIER. */
const CHALLENGE = '7w_YNF9DSfIdPf_pRjSq646_kPr-2-o9NAl16JGghdM';

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  redirect: 'manual' as const,
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

describe('the consent page and the grants it makes', () => {
  const bed = useRestTestbed({ env: baseEnv });

  async function registerClient(name: string): Promise<string> {
    const res = await call(bed.server, 'POST', '/oauth/register', {
      body: { client_name: name, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
    });
    expect(res.status).toBe(201);
    return res.body.client_id;
  }

  /** The consent page's form for a request by `clientId`, as the browser would post it back. */
  async function consentForm(clientId: string, extra: Record<string, string> = {}) {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
      state: 'st',
      ...extra,
    });
    const res = await bed.server.request(`/oauth/authorize?${query}`);
    expect(res.status).toBe(200);
    return consentFormFields(await res.text());
  }

  /** Approves with `credential` pasted as the key: the code, or the refusal's status and page. */
  async function approve(fields: Record<string, string>, credential: string) {
    const res = await bed.server.request(
      '/oauth/authorize',
      form({ ...fields, api_key: credential, decision: 'approve' }),
    );
    const location = res.headers.get('location');
    return { status: res.status, page: await res.text(), code: location && new URL(location).searchParams.get('code') };
  }

  const exchange = (clientId: string, code: string, server: TestServer = bed.server) =>
    server
      .request(
        '/oauth/token',
        form({
          grant_type: 'authorization_code',
          code,
          code_verifier: VERIFIER,
          redirect_uri: REDIRECT,
          client_id: clientId,
        }),
      )
      .then(readReply);

  const codesIssued = async () => (await bed.runtime.db.select({ n: count() }).from(oauthAuthorizationCodes).get())!.n;

  const createContent = (server: TestServer, token: string) =>
    call(server, 'POST', '/api/v1/content', {
      headers: { authorization: `Bearer ${token}` },
      body: { caption: 'From a token', target_platforms: ['linkedin'] },
    });

  it('refuses an access token, a refresh token or an authorization code pasted as the key, as it would a wrong key, and issues no code', async () => {
    const reader = await registerClient('Read-only assistant');
    const read = await approve(await consentForm(reader, { scope: 'read' }), bed.ws.apiKey);
    expect(read.status).toBe(302);
    const tokens = await exchange(reader, read.code!);
    expect(tokens.body).toMatchObject({ scope: 'read', access_token: expect.stringMatching(/^np_oat_/) });
    const unspentCode = (await approve(await consentForm(reader, { scope: 'read' }), bed.ws.apiKey)).code!;

    const other = await registerClient('Second client');
    const fields = await consentForm(other);
    const wrongKey = await approve(fields, 'np_live_wrong');
    const before = await codesIssued();
    for (const credential of [tokens.body.access_token, tokens.body.refresh_token, unspentCode]) {
      const refused = await approve(fields, credential);
      expect(refused).toMatchObject({ status: 400, code: null });
      expect(refused.page).toContain('That API key is not valid');
      expect(refused.page).toBe(wrongKey.page);
    }
    expect(await codesIssued()).toBe(before);

    // The read token itself still cannot write, and its refresh cannot widen it.
    expect((await createContent(bed.server, tokens.body.access_token)).status).toBe(403);
    const widened = await bed.server
      .request(
        '/oauth/token',
        form({
          grant_type: 'refresh_token',
          refresh_token: tokens.body.refresh_token,
          client_id: reader,
          scope: 'read write publish',
        }),
      )
      .then(readReply);
    expect(widened.status).toBe(400);
    expect(widened.body.error).toBe('invalid_scope');
    // The code pasted above was refused as a key, not spent: it still exchanges (once) for its read grant.
    expect((await exchange(reader, unspentCode)).body.scope).toBe('read');
  });

  it("binds a grant that names no resource to this instance's /mcp: its token answers 401 under another PUBLIC_BASE_URL on the same database", async () => {
    const client = await registerClient('No resource named');
    const approved = await approve(await consentForm(client), bed.ws.apiKey);
    const tokens = await exchange(client, approved.code!);
    expect(tokens.status).toBe(200);
    expect((await createContent(bed.server, tokens.body.access_token)).status).toBe(201);

    const elsewhere = await startTestServer({
      ...bed.runtime,
      config: loadConfig({
        PUBLIC_BASE_URL: 'https://other.example.test',
        ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        LOG_LEVEL: 'warn',
      }),
    });
    try {
      const refused = await createContent(elsewhere, tokens.body.access_token);
      expect(refused.status).toBe(401);
      expect(refused.body.error.code).toBe('invalid_key');
      const mcp = await elsewhere.request('/mcp', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tokens.body.access_token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(mcp.status).toBe(401);
      // The refreshed pair stays bound to the instance that issued the grant.
      const refreshed = await bed.server
        .request(
          '/oauth/token',
          form({ grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token, client_id: client }),
        )
        .then(readReply);
      expect(refreshed.status).toBe(200);
      expect((await createContent(elsewhere, refreshed.body.access_token)).status).toBe(401);
      expect((await createContent(bed.server, refreshed.body.access_token)).status).toBe(201);
    } finally {
      await elsewhere.close();
    }
  });
});
