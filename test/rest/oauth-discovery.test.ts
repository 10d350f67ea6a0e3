import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Express } from 'express';
import { createApp } from '../../src/app.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { BASE_URL, baseEnv } from '../helpers/rest-expect.ts';
import { testRuntime } from '../helpers/runtime.ts';

const PROTECTED_RESOURCE = {
  resource: `${BASE_URL}/mcp`,
  authorization_servers: [BASE_URL],
  scopes_supported: ['read', 'write', 'publish'],
  bearer_methods_supported: ['header'],
};

describe('OAuth discovery for /mcp', () => {
  const bed = useRestTestbed({ env: baseEnv });

  it('serves the protected-resource metadata of /mcp at its path-suffixed address, without a key', async () => {
    const res = await call(bed.server, 'GET', '/.well-known/oauth-protected-resource/mcp');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual(PROTECTED_RESOURCE);
  });

  it('names, at each well-known address, the resource that address is derived from (RFC 9728 section 3.3)', async () => {
    // The root address is the origin's own document: it names the service, never /mcp, which a strict
    // client probing the origin would reject.
    const root = await call(bed.server, 'GET', '/.well-known/oauth-protected-resource');
    expect(root.status).toBe(200);
    expect(root.body).toEqual({ ...PROTECTED_RESOURCE, resource: BASE_URL });
    // The read-only door has its own document, which offers only the read scope.
    const readOnly = await call(bed.server, 'GET', '/.well-known/oauth-protected-resource/mcp/readonly');
    expect(readOnly.status).toBe(200);
    expect(readOnly.body).toEqual({
      ...PROTECTED_RESOURCE,
      resource: `${BASE_URL}/mcp/readonly`,
      scopes_supported: ['read'],
    });
  });

  it('serves the authorization-server metadata at the root well-known address, with exactly the listed fields', async () => {
    const res = await call(bed.server, 'GET', '/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      issuer: BASE_URL,
      authorization_endpoint: `${BASE_URL}/oauth/authorize`,
      token_endpoint: `${BASE_URL}/oauth/token`,
      registration_endpoint: `${BASE_URL}/oauth/register`,
      revocation_endpoint: `${BASE_URL}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      scopes_supported: ['read', 'write', 'publish'],
    });
  });

  it('answers any other /.well-known path with the plain 404 envelope', async () => {
    for (const path of [
      '/.well-known/openid-configuration',
      '/.well-known/oauth-authorization-server/mcp',
      '/.well-known/oauth-protected-resource/api',
      '/.well-known/oauth-protected-resource/mcp/other',
      '/.well-known/anything',
    ]) {
      const res = await call(bed.server, 'GET', path);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code, path).toBe('not_found');
    }
  });

  it('lets another origin read the metadata (browser-based clients)', async () => {
    const res = await call(bed.server, 'GET', '/.well-known/oauth-authorization-server', {
      headers: { origin: 'https://inspector.example' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe("the SDK's client discovery against the real server", () => {
  // The SDK follows the absolute URLs the documents give, so PUBLIC_BASE_URL must be this server's
  // own address: the app is bound once the port is known.
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  async function startAtOwnAddress(): Promise<string> {
    const bound: { app?: Express } = {};
    server = createServer((req, res) => bound.app!(req, res)).listen(0, '127.0.0.1');
    await new Promise((resolve) => server!.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    bound.app = createApp(await testRuntime({ env: { PUBLIC_BASE_URL: url } }));
    return url;
  }

  it('reads the 401 challenge, finds both documents through it and parses them', async () => {
    const url = await startAtOwnAddress();
    const refused = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(refused.status).toBe(401);
    const challenge = extractWWWAuthenticateParams(refused);
    expect(challenge.resourceMetadataUrl?.href).toBe(`${url}/.well-known/oauth-protected-resource/mcp`);
    expect(challenge.scope).toBe('read write publish');
    expect(challenge.error).toBeUndefined();

    const resource = await discoverOAuthProtectedResourceMetadata(`${url}/mcp`, {
      resourceMetadataUrl: challenge.resourceMetadataUrl,
    });
    expect(resource.resource).toBe(`${url}/mcp`);
    // Without the challenge's hint, the SDK's well-known probe finds the same document.
    expect(await discoverOAuthProtectedResourceMetadata(`${url}/mcp`)).toEqual(resource);

    const metadata = await discoverAuthorizationServerMetadata(resource.authorization_servers![0]!);
    expect(metadata).toMatchObject({ issuer: url });

    // The read-only door's 401 points at its own document, which names the door itself.
    const readOnlyRefused = await fetch(`${url}/mcp/readonly`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(readOnlyRefused.status).toBe(401);
    const readOnlyChallenge = extractWWWAuthenticateParams(readOnlyRefused);
    expect(readOnlyChallenge.resourceMetadataUrl?.href).toBe(
      `${url}/.well-known/oauth-protected-resource/mcp/readonly`,
    );
    expect(readOnlyChallenge.scope).toBe('read');
    const readOnly = await discoverOAuthProtectedResourceMetadata(`${url}/mcp/readonly`, {
      resourceMetadataUrl: readOnlyChallenge.resourceMetadataUrl,
    });
    expect(readOnly.resource).toBe(`${url}/mcp/readonly`);
    expect(await discoverOAuthProtectedResourceMetadata(`${url}/mcp/readonly`)).toEqual(readOnly);

    expect(metadata).toMatchObject({
      issuer: url,
      registration_endpoint: `${url}/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
    });
  });
});
