/**
 * The workspace, key and content item the REST and stdio benchmarks read, created the way an
 * operator would: the admin CLI on the run's DATA_DIR, then one POST to the running service.
 */
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { childEnv, runChild } from './lib.ts';

/** A realistic create body: a few hundred characters of caption, hashtags, platforms and media. */
export const CREATE_BODY = {
  caption:
    'Our autumn collection lands this Friday 🍂 Soft merino knits, recycled denim and the return of the ' +
    'corduroy overshirt you asked for. Early access for newsletter subscribers starts Thursday at 18:00 CET. ' +
    'Tap the link in bio to join the list and get 15% off your first order.',
  hashtags: ['#autumncollection', 'slowfashion', 'merino', 'recycleddenim', 'madeinportugal', 'newarrivals'],
  content_type: 'carousel',
  target_platforms: ['instagram', 'facebook', 'linkedin', 'tiktok'],
  media_urls: [
    'https://cdn.example.com/media/2026/11/autumn-look-01.jpg',
    'https://cdn.example.com/media/2026/11/autumn-look-02.jpg',
    'https://cdn.example.com/media/2026/11/autumn-look-03.jpg',
    'https://cdn.example.com/media/2026/11/autumn-look-04.jpg',
  ],
  topic: 'Autumn collection launch',
  aspect_ratio: '4:5',
  status: 'draft',
};

export interface Fixture {
  dataDir: string;
  workspaceId: string;
  apiKey: string;
}

/**
 * Creates a business-plan workspace and its key with `main.ts admin create-workspace --json`, in the
 * SQLite file of `dataDir`, or, given `databaseUrl`, in that PostgreSQL database (DATA_DIR still holds
 * the signing-secret key the service started on it will read).
 */
export async function createWorkspaceViaCli(dataDir: string, databaseUrl?: string): Promise<Fixture> {
  const out = await runChild(
    'src/cli/main.ts',
    ['admin', 'create-workspace', '--name', 'bench', '--plan', 'business', '--json'],
    childEnv({ DATA_DIR: dataDir, ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }) }),
  );
  const parsed = JSON.parse(out.trim().split('\n').at(-1)!) as { workspace_id: string; api_key: string };
  if (!parsed.api_key || !parsed.workspace_id) throw new Error(`admin create-workspace gave no key: ${out}`);
  return { dataDir, workspaceId: parsed.workspace_id, apiKey: parsed.api_key };
}

/** POSTs one item, reads it back, and writes the exact GET body to a file the baselines serve. */
export async function createItem(
  baseUrl: string,
  fixture: Fixture,
): Promise<{ id: string; body: Record<string, unknown>; file: string }> {
  const headers = { authorization: `Bearer ${fixture.apiKey}`, 'content-type': 'application/json' };
  const created = await fetch(`${baseUrl}/api/v1/content`, {
    method: 'POST',
    headers,
    body: JSON.stringify(CREATE_BODY),
  });
  if (created.status !== 201)
    throw new Error(`POST /api/v1/content answered ${created.status}: ${await created.text()}`);
  const { id } = (await created.json()) as { id: string };
  const read = await fetch(`${baseUrl}/api/v1/content/${id}`, { headers });
  if (read.status !== 200) throw new Error(`GET /api/v1/content/${id} answered ${read.status}: ${await read.text()}`);
  const text = await read.text();
  const file = join(fixture.dataDir, 'bench-item.json');
  writeFileSync(file, text);
  return { id, body: JSON.parse(text) as Record<string, unknown>, file };
}

/**
 * An OAuth access token for the fixture's workspace, got the way a remote assistant gets one: register
 * a public client, open the consent page, approve it with the key, exchange the code (PKCE S256).
 */
export async function oauthAccessToken(baseUrl: string, fixture: Fixture): Promise<string> {
  const redirectUri = 'http://127.0.0.1:9/callback';
  const registered = await fetch(`${baseUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'bench', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }),
  });
  if (registered.status !== 201) throw new Error(`POST /oauth/register answered ${registered.status}`);
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const request = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'bench',
  });
  const page = await (await fetch(`${baseUrl}/oauth/authorize?${request}`)).text();
  const formToken = /name="form_token" value="([^"]+)"/.exec(page)?.[1];
  if (!formToken) throw new Error('the consent page carries no form_token');
  const consent = await fetch(`${baseUrl}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      ...Object.fromEntries(request),
      form_token: formToken,
      api_key: fixture.apiKey,
      decision: 'approve',
    }),
  });
  const code = new URL(consent.headers.get('location') ?? 'http://invalid/').searchParams.get('code');
  if (!code) throw new Error(`the consent answered ${consent.status} without a code`);
  const tokens = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: redirectUri,
      client_id: clientId,
    }),
  });
  if (tokens.status !== 200) throw new Error(`POST /oauth/token answered ${tokens.status}: ${await tokens.text()}`);
  return ((await tokens.json()) as { access_token: string }).access_token;
}
