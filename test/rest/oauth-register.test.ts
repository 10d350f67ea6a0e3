import { registerClient } from '@modelcontextprotocol/sdk/client/auth.js';
import { eq } from 'drizzle-orm';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { oauthClients } from '../../db/schema/index.ts';
import { call, useRestTestbed } from '../helpers/http.ts';

const register = (body: unknown, headers: Record<string, string> = {}) =>
  call(bed.server, 'POST', '/oauth/register', { body, headers });

const bed = useRestTestbed();

const storedClient = async (clientId: string) =>
  bed.runtime.db.select().from(oauthClients).where(eq(oauthClients.id, clientId)).get();

describe('POST /oauth/register (dynamic client registration)', () => {
  it('registers a public client without authentication: 201, a client_id, no secret', async () => {
    const res = await register({
      client_name: 'Claude',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      token_endpoint_auth_method: 'none',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      client_id: expect.stringMatching(/^npc_[0-9A-Za-z]{24}$/),
      client_id_issued_at: Math.floor(bed.runtime.clock.now().getTime() / 1000),
      client_name: 'Claude',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    const row = (await storedClient(res.body.client_id))!;
    expect(row).toMatchObject({ clientName: 'Claude', tokenEndpointAuthMethod: 'none', secretHash: null });
    expect(row.redirectUris).toEqual(['https://claude.ai/api/mcp/auth_callback']);
  });

  it('gives a confidential client a secret once, stores only its hash, and defaults to client_secret_basic', async () => {
    const basic = await register({ redirect_uris: ['http://127.0.0.1:8123/callback'] });
    expect(basic.status).toBe(201);
    expect(basic.body.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(basic.body.client_secret).toMatch(/^np_ocs_[0-9A-Za-z]{40}$/);
    expect(basic.body.client_secret_expires_at).toBe(0);
    expect(basic.body).not.toHaveProperty('client_name');
    const row = (await storedClient(basic.body.client_id))!;
    expect(row.secretHash).toBe(createHash('sha256').update(basic.body.client_secret).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(basic.body.client_secret);

    const post = await register({
      redirect_uris: ['https://app.example.com/cb'],
      token_endpoint_auth_method: 'client_secret_post',
    });
    expect(post.status).toBe(201);
    expect(post.body.client_secret).toMatch(/^np_ocs_/);
    expect(post.body.client_secret).not.toBe(basic.body.client_secret);
    expect(post.body.client_id).not.toBe(basic.body.client_id);
  });

  it('accepts http redirect URIs on loopback hosts only, and ignores metadata it does not use', async () => {
    const res = await register({
      redirect_uris: ['http://localhost:33418/', 'http://[::1]:9000/cb', 'http://127.0.0.1/cb'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: 'read write',
      software_id: 'some-editor',
      logo_uri: 'https://app.example.com/logo.png',
    });
    expect(res.status).toBe(201);
    expect(res.body.redirect_uris).toEqual(['http://localhost:33418/', 'http://[::1]:9000/cb', 'http://127.0.0.1/cb']);
    expect(res.body).not.toHaveProperty('software_id');
  });

  it.each([
    ['plain http to a public host', { redirect_uris: ['http://app.example.com/cb'] }],
    ['a host that only looks like loopback', { redirect_uris: ['http://127.0.0.1.example.com/cb'] }],
    ['a custom scheme', { redirect_uris: ['myapp://callback'] }],
    ['a fragment', { redirect_uris: ['https://app.example.com/cb#frag'] }],
    ['credentials in the URI', { redirect_uris: ['https://user:pw@app.example.com/cb'] }],
    ['a relative URI', { redirect_uris: ['/callback'] }],
    ['no redirect_uris', { client_name: 'x' }],
    ['an empty list', { redirect_uris: [] }],
    ['a list that is not one', { redirect_uris: 'https://app.example.com/cb' }],
    ['more than ten', { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example.com/${i}`) }],
  ])('refuses %s with 400 invalid_redirect_uri and stores nothing', async (_name, body) => {
    const res = await register(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_redirect_uri', error_description: expect.any(String) });
    expect(await bed.runtime.db.select().from(oauthClients).all()).toEqual([]);
  });

  it.each([
    ['an unknown auth method', { token_endpoint_auth_method: 'private_key_jwt' }],
    ['a grant type the service does not have', { grant_types: ['client_credentials'] }],
    ['a response type other than code', { response_types: ['token'] }],
    ['a client_name that is not a string', { client_name: 42 }],
    ['an over-long client_name', { client_name: 'x'.repeat(201) }],
  ])('refuses %s with 400 invalid_client_metadata', async (_name, extra) => {
    const res = await register({ redirect_uris: ['https://app.example.com/cb'], ...extra });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_client_metadata', error_description: expect.any(String) });
  });

  it('answers a body that is not a JSON object with invalid_client_metadata, and a non-JSON type with 415', async () => {
    for (const rawBody of ['{not json', '[]', '"text"']) {
      const res = await call(bed.server, 'POST', '/oauth/register', { rawBody });
      expect(res.status, rawBody).toBe(400);
      expect(res.body.error, rawBody).toBe('invalid_client_metadata');
    }
    const form = await call(bed.server, 'POST', '/oauth/register', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      rawBody: 'redirect_uris=https://app.example.com/cb',
    });
    expect(form.status).toBe(415);
    expect(form.body.error.code).toBe('unsupported_media_type');
  });

  it('allows 20 registrations an hour per address, then answers 429 with Retry-After until the oldest is an hour old', async () => {
    const body = { redirect_uris: ['https://app.example.com/cb'], token_endpoint_auth_method: 'none' };
    for (let i = 0; i < 20; i++) {
      expect((await register(body)).status).toBe(201);
      bed.runtime.clock.advance(60_000);
    }
    const refused = await register(body);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ object: 'error', type: 'rate_limit_exceeded' });
    // The first came 20 minutes ago: it leaves the window in 40.
    expect(refused.headers.get('retry-after')).toBe(String(40 * 60));
    expect(refused.body.retry_after).toBe(40 * 60);
    expect(await bed.runtime.db.select().from(oauthClients).all()).toHaveLength(20);

    bed.runtime.clock.advance(40 * 60_000 - 1000);
    expect((await register(body)).status).toBe(429);
    bed.runtime.clock.advance(1000);
    expect((await register(body)).status).toBe(201);
  });

  it("is what the SDK's registerClient expects, and the SDK reads its refusals", async () => {
    const metadata = (await call(bed.server, 'GET', '/.well-known/oauth-authorization-server')).body;
    // The documents name PUBLIC_BASE_URL; send the SDK's requests to this test server instead.
    const toTestServer = (url: string | URL, init?: RequestInit) =>
      fetch(String(url).replace(bed.runtime.config.publicBaseUrl, bed.server.url), init);
    const client = await registerClient(bed.runtime.config.publicBaseUrl, {
      metadata,
      clientMetadata: {
        client_name: 'SDK test client',
        redirect_uris: ['http://localhost:8976/callback'],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
      fetchFn: toTestServer,
    });
    expect(client.client_id).toMatch(/^npc_/);
    expect(client.client_secret).toBeUndefined();
    expect((await storedClient(client.client_id))?.clientName).toBe('SDK test client');

    await expect(
      registerClient(bed.runtime.config.publicBaseUrl, {
        metadata,
        clientMetadata: { redirect_uris: ['http://app.example.com/cb'] },
        fetchFn: toTestServer,
      }),
    ).rejects.toThrow(/must use https, or http on a loopback host/);
  });
});
