/**
 * Live publishing to X and to Bluesky: text posts to each platform's fake (in a process of its own),
 * 64 at a time.
 *
 *   service  items queued at once for one live X account, published by the real publishing run with
 *            the real X client: items/s from queued to finished (claim, pending attempt and
 *            checkpoint, the create call, its record, the finish).
 *   raw      the same create calls (POST /2/tweets with the bearer token) from 64 concurrent loops of
 *            `fetch`, nothing else: what the platform allows at that concurrency.
 *
 *
 * For Bluesky the same, with com.atproto.repo.createRecord (an app.bsky.feed.post at a fresh TID,
 * with the session's access token) as the raw create call; the service signs in never, holding the
 * session as a connected account does.
 *
 * Rounds alternate service and raw on the same fake, so both see the same machine load.
 */
import { newTid } from '../src/core/platforms/bluesky/tid.ts';
import { compareInterleaved, fakeInfo, liveServiceRound } from './live-round.ts';
import { childEnv, fmt, startHttpChild, type Row } from './lib.ts';

export interface LiveSettings {
  items: number;
  concurrency: number;
  rounds: number;
}

interface FakeXInfo {
  url: string;
  clientId: string;
  clientSecret: string;
  user: { id: string; username: string };
  service: { accessToken: string; refreshToken?: string; expiresIn: number };
  raw: { accessToken: string };
}

let sequence = 0;
/** A text X has never seen: the fake refuses a duplicate as X does. */
const uniqueText = (who: string) =>
  `Benchmark ${who} post ${++sequence} at ${Date.now()}: an ordinary caption with a link https://example.com/p/${sequence}`;

function serviceRound(fake: FakeXInfo, settings: LiveSettings): Promise<number> {
  return liveServiceRound({
    label: 'live-x',
    platform: 'twitter',
    env: {
      X_CLIENT_ID: fake.clientId,
      X_CLIENT_SECRET: fake.clientSecret,
      X_AUTH_BASE_URL: fake.url,
      X_API_BASE_URL: fake.url,
    },
    concurrency: settings.concurrency,
    items: settings.items,
    account: {
      platformUserId: fake.user.id,
      username: fake.user.username,
      scopes: ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'],
      accessToken: fake.service.accessToken,
      expiresInSecs: fake.service.expiresIn,
    },
    post: () => ({ caption: uniqueText('service'), contentType: 'text_only', mediaUrls: [] }),
    urlPrefix: 'https://x.com/',
  });
}

/** The limit: the create calls alone, from `concurrency` loops of fetch. */
async function rawRound(fake: FakeXInfo, settings: LiveSettings): Promise<number> {
  let next = 0;
  const loop = async () => {
    while (next < settings.items) {
      next += 1;
      const response = await fetch(`${fake.url}/2/tweets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fake.raw.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: uniqueText('raw') }),
      });
      const body = (await response.json()) as { data?: { id?: string } };
      if (response.status !== 201 || !body.data?.id) throw new Error(`raw create answered ${response.status}`);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: settings.concurrency }, loop));
  return settings.items / ((performance.now() - t0) / 1000);
}

interface FakeBlueskyInfo {
  url: string;
  account: { did: string; handle: string };
  service: { accessToken: string; expiresIn: number };
  raw: { accessToken: string };
}

function blueskyServiceRound(fake: FakeBlueskyInfo, settings: LiveSettings): Promise<number> {
  return liveServiceRound({
    label: 'live-bluesky',
    platform: 'bluesky',
    env: { BLUESKY_SERVICE_URL: fake.url },
    concurrency: settings.concurrency,
    items: settings.items,
    account: {
      platformUserId: fake.account.did,
      username: fake.account.handle,
      scopes: [],
      accessToken: fake.service.accessToken,
      expiresInSecs: fake.service.expiresIn,
    },
    post: () => ({ caption: uniqueText('service'), contentType: 'text_only', mediaUrls: [] }),
    urlPrefix: `https://bsky.app/profile/${fake.account.handle}/post/`,
  });
}

/** The limit for Bluesky: createRecord calls alone, from `concurrency` loops of fetch. */
async function blueskyRawRound(fake: FakeBlueskyInfo, settings: LiveSettings): Promise<number> {
  let next = 0;
  const loop = async () => {
    while (next < settings.items) {
      next += 1;
      const response = await fetch(`${fake.url}/xrpc/com.atproto.repo.createRecord`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fake.raw.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          repo: fake.account.did,
          collection: 'app.bsky.feed.post',
          rkey: newTid(new Date()),
          record: { $type: 'app.bsky.feed.post', text: uniqueText('raw'), createdAt: new Date().toISOString() },
        }),
      });
      const body = (await response.json()) as { uri?: string };
      if (response.status !== 200 || !body.uri) throw new Error(`raw createRecord answered ${response.status}`);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: settings.concurrency }, loop));
  return settings.items / ((performance.now() - t0) / 1000);
}

export async function benchLive(settings: LiveSettings): Promise<Row[]> {
  return [...(await benchLiveX(settings)), ...(await benchLiveBluesky(settings))];
}

const benchLiveBluesky = (settings: LiveSettings) =>
  benchLivePlatform<FakeBlueskyInfo>(settings, 'Bluesky', 'bench/fake-bluesky-child.ts', {
    service: (fake) => blueskyServiceRound(fake, settings),
    raw: (fake) => blueskyRawRound(fake, settings),
  });

const benchLiveX = (settings: LiveSettings) =>
  benchLivePlatform<FakeXInfo>(settings, 'X', 'bench/fake-x-child.ts', {
    service: (fake) => serviceRound(fake, settings),
    raw: (fake) => rawRound(fake, settings),
  });

/** One platform's rounds: the service and the raw calls against the same fake, in a process of its own. */
async function benchLivePlatform<Info>(
  settings: LiveSettings,
  name: string,
  childScript: string,
  rounds: {
    service: (fake: Info) => Promise<number>;
    raw: (fake: Info) => Promise<number>;
  },
): Promise<Row[]> {
  console.log(
    `\n== Live publishing to the fake ${name}: ${fmt(settings.items)} text posts, ${settings.concurrency} at a time, ${settings.rounds} interleaved rounds ==`,
  );
  const child = await startHttpChild(`fake ${name}`, childScript, [], childEnv({}));
  try {
    const fake = fakeInfo<Info>(child);
    return [
      await compareInterleaved({
        name: `live publish to fake ${name}, ${settings.concurrency} at a time`,
        rawUnit: 'creates/s',
        rounds: settings.rounds,
        service: () => rounds.service(fake),
        raw: () => rounds.raw(fake),
      }),
    ];
  } finally {
    await child.stop();
  }
}
