/**
 * A remote assistant connecting by URL, end to end: the real server in its own process, and the MCP
 * SDK's own OAuth client (the transport's authProvider) doing everything an assistant does. It reads
 * the 401, finds the metadata, registers (or presents a Client ID Metadata Document served over https
 * by this test), sends the person to the consent page (which the test fills in over HTTP, as a
 * browser would), exchanges the code, and then lists and calls tools; later it refreshes on its own.
 *
 * The metadata document is served with a self-signed certificate for the loopback addresses
 * (test/fixtures/tls, valid until 2126), which the server trusts through NODE_EXTRA_CA_CERTS.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startEntry, tempDataDir, type RunningProcess } from '../helpers/subprocess.ts';
import { consentFormFields } from '../helpers/oauth-tokens.ts';

const TLS_DIR = join(ROOT, 'test/fixtures/tls');
const CERT = join(TLS_DIR, 'loopback-cert.pem');
const KEY_LINE = /API key \(shown once[^\n]*?(np_live_[0-9A-Za-z]+)/;
const REDIRECT = 'http://127.0.0.1:4999/oauth/callback';

/** An https server for metadata documents: each path answers what the test put there, and counts fetches. */
interface DocumentHost {
  origin: string;
  serve(path: string, body: string, cacheControl?: string): string;
  fetches(path: string): number;
  close(): Promise<void>;
}

async function startDocumentHost(): Promise<DocumentHost> {
  const documents = new Map<string, { body: string; cacheControl?: string }>();
  const counts = new Map<string, number>();
  const server: Server = createServer(
    { cert: readFileSync(CERT), key: readFileSync(join(TLS_DIR, 'loopback-key.pem')) },
    (req, res) => {
      const path = req.url ?? '/';
      counts.set(path, (counts.get(path) ?? 0) + 1);
      const document = documents.get(path);
      if (!document) return res.writeHead(404).end();
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(document.cacheControl ? { 'cache-control': document.cacheControl } : {}),
      });
      res.end(document.body);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    serve(path, body, cacheControl) {
      documents.set(path, { body, cacheControl });
      return `${origin}${path}`;
    },
    fetches: (path) => counts.get(path) ?? 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The assistant's side: what the SDK asks a client application to keep and to do. */
class AssistantProvider implements OAuthClientProvider {
  information: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;

  constructor(readonly clientMetadataUrl?: string) {}

  /** The service requires state (the SDK sends one only when the application gives it). */
  state() {
    return randomBytes(16).toString('base64url');
  }
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Remote Assistant', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe('a remote assistant connecting by URL with the SDK OAuth client (real server)', () => {
  let server: RunningProcess;
  let documents: DocumentHost;
  let base = '';
  let apiKey = '';
  const data = tempDataDir('oauth-remote');

  beforeAll(async () => {
    documents = await startDocumentHost();
    server = startEntry(['serve'], {
      DATA_DIR: data.dir,
      PORT: '0',
      HOST: '127.0.0.1',
      // The metadata document lives on a loopback address: the SSRF guard's escape, as for webhooks.
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      NODE_EXTRA_CA_CERTS: CERT,
    });
    base = (await server.waitForOutput(/Listening on (http:\/\/\S+)/, 45_000))[1].replace(/\/$/, '');
    apiKey = server.stdout().match(KEY_LINE)![1];
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await documents?.close();
    data.remove();
  });

  /** The person's part: open the consent page the assistant sent them to, paste the key, approve. */
  async function consent(authorizationUrl: URL): Promise<string> {
    const pageAnswer = await fetch(authorizationUrl, { redirect: 'manual' });
    const page = await pageAnswer.text();
    expect(pageAnswer.status, page).toBe(200);
    expect(page).toContain('Remote Assistant');
    const approval = await fetch(`${base}/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...consentFormFields(page), api_key: apiKey, decision: 'approve' }),
    });
    expect(approval.status).toBe(302);
    const back = new URL(approval.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('iss')).toBe(base);
    return back.searchParams.get('code')!;
  }

  const connect = async (provider: AssistantProvider) => {
    const client = new Client({ name: 'remote-assistant', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }));
    return client;
  };

  /** Connects as an assistant would: a first attempt that ends at the consent page, then the real one. */
  async function signIn(provider: AssistantProvider): Promise<Client> {
    const first = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider });
    await expect(new Client({ name: 'remote-assistant', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect(provider.authorizationUrl, 'the SDK sent the person to the consent page').toBeDefined();
    await first.finishAuth(await consent(provider.authorizationUrl!));
    return connect(provider);
  }

  async function useTools(client: Client) {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('service_create_content');
    const created = await client.callTool({
      name: 'service_create_content',
      arguments: { caption: 'Hello from a remote assistant', content_type: 'text_only' },
    });
    expect(created.isError, JSON.stringify(created)).toBeFalsy();
    return (created.structuredContent as { id: string }).id;
  }

  it('registers dynamically, signs in, lists and calls tools, and refreshes when its token stops working', async () => {
    const provider = new AssistantProvider();
    const client = await signIn(provider);
    expect(provider.information?.client_id).toMatch(/^npc_/);
    expect(provider.saved?.access_token).toMatch(/^np_oat_/);
    const id = await useTools(client);
    await client.close();

    // The token ends (here by revocation, as an expired one would): the next connection gets 401
    // invalid_token, and the SDK refreshes on its own, with no person involved.
    const spent = provider.saved!;
    const revoked = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: spent.access_token, client_id: provider.information!.client_id }),
    });
    expect(revoked.status).toBe(200);
    provider.authorizationUrl = undefined;
    const again = await connect(provider);
    expect(provider.authorizationUrl, 'no second consent').toBeUndefined();
    expect(provider.saved!.access_token).not.toBe(spent.access_token);
    expect(provider.saved!.refresh_token).not.toBe(spent.refresh_token);
    const read = await again.callTool({ name: 'service_get_content', arguments: { id } });
    expect(read.isError, JSON.stringify(read)).toBeFalsy();
    await again.close();
  });

  it('signs in with a Client ID Metadata Document instead of registering', async () => {
    const url = documents.serve(
      '/assistant/client-metadata.json',
      JSON.stringify({
        client_id: `${documents.origin}/assistant/client-metadata.json`,
        client_name: 'Remote Assistant',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
      'max-age=600',
    );
    const provider = new AssistantProvider(url);
    const client = await signIn(provider);
    expect(provider.information?.client_id, 'the document URL is the client id').toBe(url);
    await useTools(client);
    await client.close();
    expect(documents.fetches('/assistant/client-metadata.json')).toBe(1);

    // A second sign-in within the document's max-age uses the stored copy.
    const second = new AssistantProvider(url);
    await (await signIn(second)).close();
    expect(documents.fetches('/assistant/client-metadata.json')).toBe(1);
  });

  /** The page GET /oauth/authorize answers for this client_id and redirect_uri. */
  async function authorizePage(clientId: string, redirectUri = REDIRECT) {
    const url = new URL(`${base}/oauth/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 'st',
    }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    return { status: res.status, location: res.headers.get('location'), page: await res.text() };
  }

  it('binds the request to the redirect URIs the document lists', async () => {
    const url = documents.serve(
      '/bound.json',
      JSON.stringify({ client_id: `${documents.origin}/bound.json`, redirect_uris: [REDIRECT] }),
    );
    expect((await authorizePage(url)).status).toBe(200);
    const elsewhere = await authorizePage(url, 'https://elsewhere.example/callback');
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.location).toBeNull();
    expect(elsewhere.page).toContain('redirect_uri');
  });

  it("takes a native client's loopback redirect on any port, as Claude Code's document lists it without one", async () => {
    const url = documents.serve(
      '/native.json',
      JSON.stringify({
        client_id: `${documents.origin}/native.json`,
        client_name: 'Native Assistant',
        redirect_uris: ['http://localhost/callback', 'http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    );
    expect((await authorizePage(url, 'http://127.0.0.1:52163/callback')).status).toBe(200);
    expect((await authorizePage(url, 'http://localhost:8080/callback')).status).toBe(200);
    expect((await authorizePage(url, 'http://127.0.0.1:52163/elsewhere')).status).toBe(400);
  });

  it('refuses, on a page and without redirecting, a document that is not the client it claims or is too large', async () => {
    const cases: Array<[string, string, RegExp]> = [
      [
        '/other-id.json',
        JSON.stringify({ client_id: `${documents.origin}/someone-else.json`, redirect_uris: [REDIRECT] }),
        /client_id is not the URL/,
      ],
      [
        '/big.json',
        JSON.stringify({
          client_id: `${documents.origin}/big.json`,
          redirect_uris: [REDIRECT],
          client_name: 'x'.repeat(6000),
        }),
        /larger than 5120 bytes/,
      ],
      ['/not-json.json', '<html>hello</html>', /not JSON/],
      [
        '/secret.json',
        JSON.stringify({
          client_id: `${documents.origin}/secret.json`,
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: 'client_secret_post',
        }),
        /token_endpoint_auth_method must be none/,
      ],
    ];
    for (const [path, body, reason] of cases) {
      const url = documents.serve(path, body);
      const answer = await authorizePage(url);
      expect(answer.status, path).toBe(400);
      expect(answer.location, path).toBeNull();
      expect(answer.page, path).toMatch(reason);
    }
    const missing = await authorizePage(`${documents.origin}/nowhere.json`);
    expect(missing.status).toBe(400);
    expect(missing.page).toMatch(/answered HTTP 404/);
  });

  it('keeps a no-store document for a minute: 40 authorization requests fetch it once', async () => {
    const path = '/no-store.json';
    const url = documents.serve(
      path,
      JSON.stringify({
        client_id: `${documents.origin}${path}`,
        client_name: 'Remote Assistant',
        redirect_uris: [REDIRECT],
      }),
      'no-store',
    );
    for (let i = 0; i < 40; i++) expect((await authorizePage(url)).status).toBe(200);
    expect(documents.fetches(path)).toBe(1);
  });
});
