/**
 * Black-box harness for live publishing: the real server (`serve`, a child process) with its
 * connectors pointed at the fake platforms (in this process, on the wall clock), driven over
 * HTTP the way a user and a browser would. Every response body read through it is kept, so a test
 * can prove no token ever left the service.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect } from 'vitest';
import { startFakeBluesky, type FakeBluesky } from '../../fakes/bluesky.ts';
import { fakePlatformEnvironment } from '../../fakes/environment.ts';
import { startFakeFacebook, type FakeFacebook } from '../../fakes/facebook.ts';
import { startFakeInstagram, type FakeInstagram } from '../../fakes/instagram.ts';
import { startFakeLinkedIn, type FakeLinkedIn } from '../../fakes/linkedin.ts';
import { startFakeThreads, type FakeThreads } from '../../fakes/threads.ts';
import { startFakeTikTok, type FakeTikTok } from '../../fakes/tiktok.ts';
import { startFakeX, type FakeX } from '../../fakes/x.ts';
import { confirmationPageOf, confirmationRequest } from '../helpers/connect-confirmation.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { startEntry, tempDataDir, withTestDatabase, type RunningProcess } from '../helpers/subprocess.ts';

const KEY_LINE = /API key \(shown once[^\n]*?(np_live_[0-9A-Za-z]+)/;

export type LivePlatform = 'twitter' | 'linkedin' | 'facebook' | 'instagram' | 'tiktok' | 'threads' | 'bluesky';

/** The fake Facebook's users (its defaults): one administers a single Page, the other several (the chooser). */
export const FACEBOOK_SINGLE_PAGE_USER = '10200000000000001';
export const FACEBOOK_MULTI_PAGE_USER = '10200000000000002';

export interface LiveWorld {
  x: FakeX;
  linkedin: FakeLinkedIn;
  facebook: FakeFacebook;
  instagram: FakeInstagram;
  tiktok: FakeTikTok;
  threads: FakeThreads;
  bluesky: FakeBluesky;
  url: string;
  /** The server's DATA_DIR (its database file and WAL sit here on SQLite). */
  dataDir: string;
  /**
   * What the database holds, as stored, for the no-secrets check: on SQLite the database file and
   * its WAL read as bytes; on PostgreSQL every row of every table as pg_dump writes them.
   */
  storedDatabase(): Array<{ name: string; bytes: Buffer }>;
  apiKey: string;
  server: RunningProcess;
  /** Every response body the harness read, for the no-secrets check. */
  bodies: string[];
  /** A JSON call to the service's API with the workspace's key. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }>;
  /** Everything the server wrote, across restarts (at trace level). */
  logs(): string;
  /** Stops the server (SIGKILL when `kill`) and starts it again on the same database and port. */
  restart(options?: { kill?: boolean; env?: Record<string, string> }): Promise<void>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export async function startLiveWorld(env: Record<string, string> = {}): Promise<LiveWorld> {
  const x = await startFakeX({
    mediaProcessing: { states: ['in_progress', 'succeeded'], checkAfterSecs: 1, advance: 'poll' },
  });
  const linkedin = await startFakeLinkedIn({ videoProcessing: { advance: 'poll', steps: 1, outcome: 'AVAILABLE' } });
  // Processing ends within a poll or two, and TikTok's public id comes with PUBLISH_COMPLETE: tests
  // that want it slower or later say so through the fakes' scripts.
  const facebook = await startFakeFacebook({ videoProcessing: { advance: 'poll', steps: 1, outcome: 'ready' } });
  const instagram = await startFakeInstagram({
    containerProcessing: { advance: 'poll', imageSteps: 0, videoSteps: 1, outcome: 'FINISHED' },
  });
  const tiktok = await startFakeTikTok({
    publishProcessing: { advance: 'poll', steps: 1, outcome: 'PUBLISH_COMPLETE', publicIdAfter: 0 },
  });
  const threads = await startFakeThreads();
  const bluesky = await startFakeBluesky();
  const data = tempDataDir('live');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const serverEnv = {
    DATA_DIR: data.dir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: url,
    LOG_LEVEL: 'trace',
    PUBLISH_LEASE_SECONDS: '2',
    SCHEDULER_POLL_SECONDS: '1',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    ...fakePlatformEnvironment({ x, linkedin, facebook, instagram, tiktok, threads, bluesky }),
    ...env,
  };
  const logs: string[] = [];
  const start = async (extra: Record<string, string> = {}) => {
    const proc = startEntry(['serve'], { ...serverEnv, ...extra });
    await proc.waitForOutput(/Listening on http/, 45_000);
    return proc;
  };
  let server = await start();
  const apiKey = server.stdout().match(KEY_LINE)?.[1];
  if (!apiKey) throw new Error(`no API key printed: ${server.stdout()}`);
  const bodies: string[] = [];

  const world: LiveWorld = {
    x,
    linkedin,
    facebook,
    instagram,
    tiktok,
    threads,
    bluesky,
    url,
    dataDir: data.dir,
    storedDatabase() {
      const { DATABASE_URL: url } = withTestDatabase({ DATA_DIR: data.dir });
      if (url !== undefined) {
        return [{ name: 'pg_dump --data-only', bytes: execFileSync('pg_dump', ['--data-only', url]) }];
      }
      return readdirSync(data.dir)
        .filter((name) => name.startsWith('service.db'))
        .map((name) => ({ name, bytes: readFileSync(join(data.dir, name)) }));
    },
    apiKey,
    get server() {
      return server;
    },
    bodies,
    logs: () => [...logs, server.stdout(), server.stderr()].join('\n'),
    async api(method, path, body) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      bodies.push(text);
      return { status: response.status, json: text ? JSON.parse(text) : null };
    },
    async restart(options = {}) {
      logs.push(server.stdout(), server.stderr());
      if (options.kill) server.child.kill('SIGKILL');
      await server.stop();
      server = await start(options.env);
    },
    async close() {
      await server.stop();
      logs.push(server.stdout(), server.stderr());
      await Promise.all([x, linkedin, facebook, instagram, tiktok, threads, bluesky].map((fake) => fake.close()));
      data.remove();
    },
  };
  return world;
}

/** The workspace's live accounts on `platform`. */
/**
 * A live world whose workspace has a webhook on a loopback receiver for the account events
 * (`social_account.connected` and `.disconnected`): what the connect and token-lifecycle tests read.
 */
export async function startLiveWorldWatchingAccounts(
  env: Record<string, string> = {},
): Promise<{ world: LiveWorld; receiver: Receiver }> {
  const world = await startLiveWorld(env);
  const receiver = await startReceiver();
  const hook = await world.api('POST', '/api/v1/webhooks', {
    url: `${receiver.url}/hook`,
    events: ['social_account.connected', 'social_account.disconnected'],
  });
  expect(hook.status).toBe(201);
  return { world, receiver };
}

/** The events of `type` the receiver got, parsed, in arrival order. */
export const receivedEvents = (receiver: Receiver, type: string): any[] =>
  receiver.requests.map((request) => JSON.parse(request.body)).filter((event) => event.type === type);

export async function liveAccounts(world: LiveWorld, platform: LivePlatform): Promise<any[]> {
  const listed = await world.api('GET', '/api/v1/social-accounts');
  expect(listed.status).toBe(200);
  return listed.json.data.filter((account: any) => account.platform === platform && account.mode === 'live');
}

/**
 * Goes through consent the way a browser does: the service's connect URL, the platform's consent page
 * (the fake approves at once and redirects), then the service's callback, whose answer is returned
 * (its body read and kept).
 */
export async function consentCallback(
  world: LiveWorld,
  platform: LivePlatform,
): Promise<{ status: number; headers: Headers; page: string }> {
  const started = await world.api('POST', '/api/v1/social-accounts/connect', { platform });
  expect(started.status, JSON.stringify(started.json)).toBe(201);
  const consent = await fetch(started.json.authorize_url, { redirect: 'manual' });
  expect(consent.status, await consent.clone().text()).toBe(302);
  const callback = await fetch(consent.headers.get('location')!, { redirect: 'manual' });
  const page = await callback.text();
  world.bodies.push(page);
  return { status: callback.status, headers: callback.headers, page };
}

/**
 * Posts the confirmation page the callback answered, from the browser that got it (its cookie), with
 * the accounts ticked (a one-account page carries its own); answers the outcome, its body read and kept.
 */
export async function confirmInBrowser(
  world: LiveWorld,
  callback: { status: number; headers: Headers; page: string },
  accounts: string[] = [],
): Promise<{ status: number; headers: Headers; page: string }> {
  const [path, init] = confirmationRequest(confirmationPageOf({ ...callback, body: callback.page }), { accounts });
  const answer = await fetch(world.url + path, init);
  const page = await answer.text();
  world.bodies.push(page);
  return { status: answer.status, headers: answer.headers, page };
}

/**
 * Connects one account the way a person does (see `consentCallback`), confirming it on the page the
 * callback answers. Answers the account resource it added.
 */
export async function connectThroughConsent(world: LiveWorld, platform: LivePlatform): Promise<any> {
  const before = new Set((await liveAccounts(world, platform)).map((account) => account.id));
  const asked = await consentCallback(world, platform);
  expect(asked.status, asked.page).toBe(200);
  expect(await liveAccounts(world, platform)).toHaveLength(before.size);
  const callback = await confirmInBrowser(world, asked);
  expect(callback.status, callback.page).toBe(200);
  expect(callback.page).toMatch(/Connected \S.* to /);
  const added = (await liveAccounts(world, platform)).filter((account) => !before.has(account.id));
  expect(added).toHaveLength(1);
  return added[0];
}

/** Uploads a file to the service's media library; answers its public URL. */
export async function uploadMedia(world: LiveWorld, bytes: Buffer, filename: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), filename);
  const response = await fetch(`${world.url}/api/v1/media_assets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${world.apiKey}` },
    body: form,
  });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return JSON.parse(text).url;
}

/** The server's error log lines so far (the last few), for a failure message to say why a request failed. */
export function serverErrors(world: LiveWorld): string {
  const errors = world
    .logs()
    .split('\n')
    .filter((line) => line.startsWith('{') && /"level":"(error|fatal)"/.test(line));
  return errors.slice(-3).join('\n');
}

/** Creates an item for one platform and publishes it now; answers its id. */
export async function publishNow(
  world: LiveWorld,
  platform: LivePlatform,
  fields: {
    caption: string;
    content_type?: string;
    media_urls?: string[];
    platform_specific?: Record<string, unknown>;
  },
): Promise<string> {
  const created = await world.api('POST', '/api/v1/content', {
    content_type: 'text_only',
    ...fields,
    target_platforms: [platform],
  });
  expect(created.status, `${JSON.stringify(created.json)}\n${serverErrors(world)}`).toBe(201);
  const published = await world.api('POST', `/api/v1/content/${created.json.id}/publish`, {});
  expect(published.status, `${JSON.stringify(published.json)}\n${serverErrors(world)}`).toBe(202);
  return created.json.id;
}

/** Waits until the item's run has finished (published, or back to approved and no longer queued); answers the item. */
export async function finished(world: LiveWorld, id: string, timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { json } = await world.api('GET', `/api/v1/content/${id}`);
    if (json.status === 'published' || (json.status === 'approved' && !json.publish_queued)) return json;
    if (Date.now() > deadline)
      throw new Error(`item ${id} did not finish: ${JSON.stringify(json)}\n${world.logs().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
