/**
 * Live publishing to Instagram: image posts to the fake Instagram (in a process of its own), 64 at a
 * time. The fake really downloads each image from the media URL it is given: one small PNG of the
 * service's media library, served by a loopback server in this process at PUBLIC_BASE_URL/media/.
 *
 *   service  items queued at once for one live Instagram account, published by the real publishing
 *            run with the real Instagram client and framework: items/s from queued to finished (claim,
 *            attempt and checkpoint, the quota read, the container, its status, media_publish, the
 *            permalink read, the record, the finish).
 *   raw      the same three platform calls per post (container, status, media_publish) from 64
 *            concurrent loops of `fetch`, nothing else: what the platform allows at that concurrency.
 *
 * Rounds alternate service and raw on the same fake, so both see the same machine load.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mediaAssets } from '../db/schema/index.ts';
import { newId } from '../src/core/ids.ts';
import { png } from '../test/fixtures/media/files.ts';
import { compareInterleaved, fakeInfo, liveServiceRound } from './live-round.ts';
import { childEnv, fmt, startHttpChild, type Row } from './lib.ts';

export interface LiveInstagramSettings {
  items: number;
  concurrency: number;
  rounds: number;
}

interface FakeInstagramInfo {
  url: string;
  clientId: string;
  clientSecret: string;
  user: { userId: string; username: string };
  service: { accessToken: string; expiresIn: number };
  raw: { accessToken: string };
}

/** The one image every post carries, as the media library would serve it. */
const IMAGE = png(64, 64);
const STORAGE_KEY = randomBytes(16).toString('hex');

let sequence = 0;
const caption = (who: string) => `Benchmark ${who} post ${++sequence} at ${Date.now()} #bench`;

/** PUBLIC_BASE_URL for the service: serves `/media/<key>.png`, the URL the fake downloads. */
async function startMediaHost(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.url !== `/media/${STORAGE_KEY}.png`) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(IMAGE.length) }).end(IMAGE);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function serviceRound(fake: FakeInstagramInfo, mediaHost: string, settings: LiveInstagramSettings): Promise<number> {
  return liveServiceRound({
    label: 'live-instagram',
    platform: 'instagram',
    env: {
      PUBLIC_BASE_URL: mediaHost,
      INSTAGRAM_APP_ID: fake.clientId,
      INSTAGRAM_APP_SECRET: fake.clientSecret,
      INSTAGRAM_AUTH_BASE_URL: fake.url,
      INSTAGRAM_TOKEN_BASE_URL: fake.url,
      INSTAGRAM_GRAPH_BASE_URL: fake.url,
    },
    concurrency: settings.concurrency,
    items: settings.items,
    account: {
      platformUserId: fake.user.userId,
      username: fake.user.username,
      scopes: ['instagram_business_basic', 'instagram_business_content_publish'],
      accessToken: fake.service.accessToken,
      expiresInSecs: fake.service.expiresIn,
    },
    post: () => ({
      caption: caption('service'),
      contentType: 'single_image',
      mediaUrls: [`${mediaHost}/media/${STORAGE_KEY}.png`],
    }),
    // The image the fake downloads is the service's own: its media asset says what it is.
    prepare: async (db, workspaceId, now) =>
      db
        .insert(mediaAssets)
        .values({
          id: newId(),
          workspaceId,
          storageKey: STORAGE_KEY,
          filename: 'bench.png',
          assetType: 'image',
          mimeType: 'image/png',
          sizeBytes: IMAGE.length,
          width: 64,
          height: 64,
          tags: [],
          createdAt: now,
        })
        .run(),
    urlPrefix: 'https://www.instagram.com/p/',
  });
}

/** The limit: container, status, media_publish per post, from `concurrency` loops of fetch. */
async function rawRound(fake: FakeInstagramInfo, mediaHost: string, settings: LiveInstagramSettings): Promise<number> {
  const headers = { authorization: `Bearer ${fake.raw.accessToken}` };
  const form = { ...headers, 'content-type': 'application/x-www-form-urlencoded' };
  const user = fake.user.userId;
  const imageUrl = `${mediaHost}/media/${STORAGE_KEY}.png`;
  const call = async (what: string, response: Promise<Response>) => {
    const answer = await response;
    const body = (await answer.json()) as Record<string, unknown>;
    if (answer.status !== 200) throw new Error(`raw ${what} answered ${answer.status}: ${JSON.stringify(body)}`);
    return body;
  };
  let next = 0;
  const loop = async () => {
    while (next < settings.items) {
      next += 1;
      const body = new URLSearchParams({ image_url: imageUrl, caption: caption('raw') }).toString();
      const { id } = await call(
        'container',
        fetch(`${fake.url}/${user}/media`, { method: 'POST', headers: form, body }),
      );
      const status = await call('status', fetch(`${fake.url}/${String(id)}?fields=status_code,status`, { headers }));
      if (status.status_code !== 'FINISHED') throw new Error(`raw status was ${String(status.status_code)}`);
      const creation = new URLSearchParams({ creation_id: String(id) }).toString();
      await call(
        'publish',
        fetch(`${fake.url}/${user}/media_publish`, { method: 'POST', headers: form, body: creation }),
      );
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: settings.concurrency }, loop));
  return settings.items / ((performance.now() - t0) / 1000);
}

export async function benchLiveInstagram(settings: LiveInstagramSettings): Promise<Row[]> {
  console.log(
    `\n== Live publishing to the fake Instagram: ${fmt(settings.items)} image posts, ${settings.concurrency} at a time, ${settings.rounds} interleaved rounds ==`,
  );
  const child = await startHttpChild('fake Instagram', 'bench/fake-instagram-child.ts', [], childEnv({}));
  const mediaHost = await startMediaHost();
  try {
    const fake = fakeInfo<FakeInstagramInfo>(child);
    return [
      await compareInterleaved({
        name: `live publish to fake Instagram (image: container, status, publish), ${settings.concurrency} at a time`,
        rawUnit: 'posts/s',
        rounds: settings.rounds,
        service: () => serviceRound(fake, mediaHost.url, settings),
        raw: () => rawRound(fake, mediaHost.url, settings),
      }),
    ];
  } finally {
    await mediaHost.close();
    await child.stop();
  }
}
