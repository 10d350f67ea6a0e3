/**
 * Signing in to the read-only door, `/mcp/readonly`, with a spec-strict OAuth client (oauth4webapi),
 * as an assistant given that URL does: the 401 names the door's own metadata, whose `resource` is
 * exactly the door (RFC 9728 section 3.3); the token is asked and minted for that resource (RFC
 * 8707), and carries the limit with it: it lists only the read tools and never writes, on /mcp and
 * the REST API too.
 */
import type { Express } from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { TOOLS } from '../../tools/index.ts';
import { makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { consentFormFields } from '../helpers/oauth-tokens.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';

const READ_TOOLS = TOOLS.filter((tool) => tool.annotations.readOnlyHint === true).map((tool) => tool.name);
const REDIRECT = 'http://127.0.0.1:4999/callback';
/** The service runs on plain http on loopback here; oauth4webapi refuses that unless told. */
const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** The service on a loopback port whose PUBLIC_BASE_URL is that very address, as a strict client needs. */
interface OwnAddress {
  url: string;
  runtime: TestRuntime;
  ws: TestWorkspace;
}

/** A JSON-RPC message for the 2025-11-25 transport (stateless: tools/list needs no initialize). */
const rpc = (method: string, params: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('the read-only door, signed in to with oauth4webapi', () => {
  let server: Server | undefined;
  let bed: OwnAddress;

  beforeEach(async () => {
    const bound: { app?: Express } = {};
    server = createServer((req, res) => bound.app!(req, res)).listen(0, '127.0.0.1');
    await new Promise((resolve) => server!.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const runtime = await testRuntime({ env: { PUBLIC_BASE_URL: url } });
    bound.app = createApp(runtime);
    bed = { url, runtime, ws: await makeWorkspace(runtime) };
  });
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** The person's part: open the consent page, check what it lists, paste the key and allow. */
  async function consent(authorizationUrl: URL): Promise<{ location: URL; page: string }> {
    const shown = await fetch(authorizationUrl, { redirect: 'manual' });
    const page = await shown.text();
    expect(shown.status, page).toBe(200);
    const approval = await fetch(`${bed.url}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...consentFormFields(page), api_key: bed.ws.apiKey, decision: 'approve' }),
    });
    expect(approval.status).toBe(302);
    return { location: new URL(approval.headers.get('location')!), page };
  }

  /** How many content items the workspace holds, read with its API key. */
  async function contentCount(): Promise<number> {
    const res = await fetch(`${bed.url}/api/v1/content`, { headers: { authorization: `Bearer ${bed.ws.apiKey}` } });
    return ((await res.json()) as { data: unknown[] }).data.length;
  }

  it('discovers the door from its 401, registers, signs in with PKCE for the door, and gets a token that only reads', async () => {
    const door = new URL(`${bed.url}/mcp/readonly`);

    // 1. The 401: a client without a token learns where the door's metadata is. oauth4webapi parses
    //    the challenge of a refused token the same way.
    const bare = await fetch(door, { method: 'POST', headers: MCP_HEADERS, body: rpc('tools/list') });
    expect(bare.status).toBe(401);
    const challenge = await oauth
      .protectedResourceRequest('np_oat_unknown', 'POST', door, new Headers(MCP_HEADERS), rpc('tools/list'), insecure)
      .then(
        () => expect.fail('an unknown token must be refused'),
        (error: unknown) => {
          expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
          return (error as oauth.WWWAuthenticateChallengeError).cause[0]!;
        },
      );
    expect(challenge.scheme).toBe('bearer');
    const metadataUrl = challenge.parameters.resource_metadata!;
    expect(metadataUrl).toBe(`${bed.url}/.well-known/oauth-protected-resource/mcp/readonly`);
    expect(bare.headers.get('www-authenticate')).toContain(`resource_metadata="${metadataUrl}"`);
    expect(challenge.parameters.scope).toBe('read');

    // 2. The metadata it points to names the door itself, as oauth4webapi insists; the well-known
    //    address derived from the door's URL is the same document.
    const resource = await oauth.processResourceDiscoveryResponse(door, await fetch(metadataUrl));
    expect(resource.resource).toBe(door.href);
    expect(resource.scopes_supported).toEqual(['read']);
    const derived = await oauth.processResourceDiscoveryResponse(
      door,
      await oauth.resourceDiscoveryRequest(door, insecure),
    );
    expect(derived).toEqual(resource);

    // 3. The authorization server's metadata, and dynamic registration as a public client.
    const issuer = new URL(resource.authorization_servers![0]!);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    );
    const client = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { client_name: 'Strict Reader', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
        insecure,
      ),
    );
    expect(client.client_id).toMatch(/^npc_/);

    // 4. Authorization code with PKCE, for the door as the resource; the consent page lists reading only.
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorizationUrl = new URL(as.authorization_endpoint!);
    authorizationUrl.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      scope: challenge.parameters.scope!,
      resource: door.href,
    }).toString();
    const { location, page } = await consent(authorizationUrl);
    expect(page).toContain('Read your content');
    expect(page).not.toContain('Publish content');
    const callback = oauth.validateAuthResponse(as, client, location, state);

    // 5. The token, asked for the door.
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), callback, REDIRECT, verifier, {
        additionalParameters: { resource: door.href },
        ...insecure,
      }),
    );
    expect(tokens.scope).toBe('read');
    const token = tokens.access_token;

    // 6. On the door: only the read tools, and they work.
    const listed = await oauth.protectedResourceRequest(
      token,
      'POST',
      door,
      new Headers(MCP_HEADERS),
      rpc('tools/list'),
      insecure,
    );
    const names = ((await listed.json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map(
      (tool) => tool.name,
    );
    expect(names).toEqual(READ_TOOLS);

    // 7. The limit travels with the token: on /mcp it lists only the read tools too, and a writing
    //    tool is refused (403, insufficient_scope) before it runs, as is a write on the REST API.
    const full = new URL(`${bed.url}/mcp`);
    const fullList = await oauth.protectedResourceRequest(
      token,
      'POST',
      full,
      new Headers(MCP_HEADERS),
      rpc('tools/list'),
      insecure,
    );
    const fullNames = ((await fullList.json()) as { result: { tools: Array<{ name: string }> } }).result.tools;
    expect(fullNames.map((tool) => tool.name)).toEqual(READ_TOOLS);
    const write = rpc('tools/call', {
      name: 'service_create_content',
      arguments: { caption: 'Written with a read-only token', content_type: 'text_only' },
    });
    const refusal = await oauth
      .protectedResourceRequest(token, 'POST', full, new Headers(MCP_HEADERS), write, insecure)
      .then(
        () => expect.fail('a write with a read-only token must be refused'),
        (error: unknown) => error as oauth.WWWAuthenticateChallengeError,
      );
    expect(refusal).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect(refusal.status).toBe(403);
    expect(refusal.cause[0]!.parameters.error).toBe('insufficient_scope');
    const body = (await refusal.response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('insufficient_scope');
    expect(body.error.message).toContain('read-only door');
    const rest = await fetch(`${bed.url}/api/v1/content`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ caption: 'Written over REST with a read-only token', content_type: 'text_only' }),
    });
    expect(rest.status).toBe(403);
    expect(await contentCount()).toBe(0);

    // 8. A refresh keeps the door and its limit.
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, {
        additionalParameters: { resource: door.href },
        ...insecure,
      }),
    );
    expect(refreshed.scope).toBe('read');
    const again = await fetch(full, {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${refreshed.access_token}` },
      body: write,
    });
    expect(again.status).toBe(403);
    expect(await contentCount()).toBe(0);
  });

  it('lets a strict client probing the origin accept the root document, which names the origin', async () => {
    const origin = new URL(bed.url);
    const metadata = await oauth.processResourceDiscoveryResponse(
      origin,
      await oauth.resourceDiscoveryRequest(origin, insecure),
    );
    expect(metadata.resource).toBe(bed.url);
    // And /mcp keeps its own document, naming /mcp, for the clients that use it.
    const mcp = new URL(`${bed.url}/mcp`);
    const own = await oauth.processResourceDiscoveryResponse(mcp, await oauth.resourceDiscoveryRequest(mcp, insecure));
    expect(own.resource).toBe(mcp.href);
    expect(own.scopes_supported).toEqual(['read', 'write', 'publish']);
  });

  it('narrows a grant for /mcp to the door when a refresh asks for it, and never the other way', async () => {
    const issuer = new URL(bed.url);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    );
    const client = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { client_name: 'Narrowing Reader', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
        insecure,
      ),
    );
    const signIn = async (resource: string) => {
      const verifier = oauth.generateRandomCodeVerifier();
      const url = new URL(as.authorization_endpoint!);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state: 'st',
        scope: 'read write publish',
        resource,
      }).toString();
      const { location, page } = await consent(url);
      // What the person is shown is what the grant will hold.
      expect(page.includes('Publish content'), resource).toBe(!resource.endsWith('/readonly'));
      const callback = oauth.validateAuthResponse(as, client, location, 'st');
      return oauth.processAuthorizationCodeResponse(
        as,
        client,
        await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), callback, REDIRECT, verifier, {
          additionalParameters: { resource },
          ...insecure,
        }),
      );
    };
    const refresh = (refreshToken: string, resource: string) =>
      oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, {
        additionalParameters: { resource },
        ...insecure,
      });

    // A grant for /mcp, asked for all three scopes, narrowed to the door at a refresh.
    const full = await signIn(`${bed.url}/mcp`);
    expect(full.scope).toBe('read write publish');
    const narrowed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await refresh(full.refresh_token!, `${bed.url}/mcp/readonly`),
    );
    expect(narrowed.scope).toBe('read');

    // A grant for the door, even asked for all three scopes, holds read alone and cannot widen.
    const door = await signIn(`${bed.url}/mcp/readonly`);
    expect(door.scope).toBe('read');
    const widened = await refresh(door.refresh_token!, `${bed.url}/mcp`);
    expect(widened.status).toBe(400);
    expect(((await widened.json()) as { error: string }).error).toBe('invalid_target');
  });
});
