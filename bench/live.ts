/**
 * Live publishing to X: text posts to the fake X (in a process of its own), 64 at a time.
 *
 *   service  items queued at once for one live X account, published by the real publishing run with
 *            the real X client: items/s from queued to finished (claim, pending attempt and
 *            checkpoint, the create call, its record, the finish).
 *   raw      the same create calls (POST /2/tweets with the bearer token) from 64 concurrent loops of
 *            `fetch`, nothing else: what the platform allows at that concurrency.
 *
 * Rounds alternate service and raw on the same fake, so both see the same machine load.
 */
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

export async function benchLive(settings: LiveSettings): Promise<Row[]> {
  console.log(
    `\n== Live publishing to the fake X: ${fmt(settings.items)} text posts, ${settings.concurrency} at a time, ${settings.rounds} interleaved rounds ==`,
  );
  const child = await startHttpChild('fake X', 'bench/fake-x-child.ts', [], childEnv({}));
  try {
    const fake = fakeInfo<FakeXInfo>(child);
    return [
      await compareInterleaved({
        name: `live publish to fake X, ${settings.concurrency} at a time`,
        rawUnit: 'creates/s',
        rounds: settings.rounds,
        service: () => serviceRound(fake, settings),
        raw: () => rawRound(fake, settings),
      }),
    ];
  } finally {
    await child.stop();
  }
}
