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
import { sql } from 'drizzle-orm';
import { join } from 'node:path';
import { startBackgroundCheckpoints } from '../db/checkpointer.ts';
import { writeTransaction } from '../db/client.ts';
import { createWorkspace } from '../src/core/accounts/workspaces.ts';
import { loadConfig } from '../src/core/config.ts';
import { insertContentRow } from '../src/core/content/operations.ts';
import { newId } from '../src/core/ids.ts';
import { openRuntime } from '../src/core/runtime.ts';
import { socialAccounts } from '../db/schema/index.ts';
import { storeTokens } from '../src/core/social-accounts/tokens.ts';
import { startPublishing } from '../src/jobs/publish-run.ts';
import { childEnv, fmt, RAISED_LIMITS, startHttpChild, table, tempDir, until, type Row } from './lib.ts';

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

async function serviceRound(fake: FakeXInfo, settings: LiveSettings): Promise<number> {
  const dir = tempDir('live');
  const config = loadConfig({
    DATABASE_FILE: join(dir.path, 'service.db'),
    ...RAISED_LIMITS,
    PUBLISH_CONCURRENCY: String(settings.concurrency),
    X_CLIENT_ID: fake.clientId,
    X_CLIENT_SECRET: fake.clientSecret,
    X_AUTH_BASE_URL: fake.url,
    X_API_BASE_URL: fake.url,
    LOG_LEVEL: 'warn',
  });
  const runtime = openRuntime({ config });
  const checkpointer = startBackgroundCheckpoints(runtime.db);
  try {
    const now = new Date();
    writeTransaction(runtime.db, () => {
      const { workspace } = createWorkspace(runtime, { name: 'Live bench', plan: 'business' });
      const account = runtime.db
        .insert(socialAccounts)
        .values({
          id: newId(),
          workspaceId: workspace.id,
          platform: 'twitter',
          platformUserId: fake.user.id,
          username: fake.user.username,
          mode: 'live',
          status: 'active',
          scopes: ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'],
          connectedAt: now,
          createdAt: now,
        })
        .returning()
        .get();
      storeTokens(runtime, account.id, {
        accessToken: fake.service.accessToken,
        refreshToken: fake.service.refreshToken ?? null,
        expiresAt: new Date(now.getTime() + fake.service.expiresIn * 1000),
      });
      for (let i = 0; i < settings.items; i++) {
        insertContentRow(runtime.db, {
          id: newId(),
          workspaceId: workspace.id,
          caption: uniqueText('service'),
          hashtags: [],
          contentType: 'text_only',
          targetPlatforms: ['twitter'],
          mediaUrls: [],
          topic: null,
          platformSpecific: {},
          aspectRatio: null,
          scheduledFor: null,
          status: 'approved',
          publishQueued: true,
          publishResults: [],
          createdAt: now,
          updatedAt: now,
        });
      }
    });
    const unfinished = () =>
      runtime.db.get<{ n: number }>(sql`select count(*) as n from content where status in ('approved', 'publishing')`)
        .n;
    const t0 = performance.now();
    const scheduler = startPublishing(runtime);
    await until('live publishing: every item finished', () => unfinished() === 0, 300, 20);
    const seconds = (performance.now() - t0) / 1000;
    await scheduler.stop();
    const published = runtime.db.get<{ n: number }>(
      sql`select count(*) as n from publish_attempts where status = 'published' and platform_post_id is not null`,
    ).n;
    if (published !== settings.items) {
      const sample = runtime.db.get<{ error: string | null }>(
        sql`select error from publish_attempts where status != 'published' limit 1`,
      );
      throw new Error(`expected ${settings.items} posts published on the fake X, ${published} were (${sample?.error})`);
    }
    return settings.items / seconds;
  } finally {
    await checkpointer.stop();
    runtime.db.$client.close();
    dir.cleanup();
  }
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

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function benchLive(settings: LiveSettings): Promise<Row[]> {
  console.log(
    `\n== Live publishing to the fake X: ${fmt(settings.items)} text posts, ${settings.concurrency} at a time, ${settings.rounds} interleaved rounds ==`,
  );
  const child = await startHttpChild('fake X', 'bench/fake-x-child.ts', [], childEnv({}));
  try {
    const fake = JSON.parse(
      child
        .log()
        .split('\n')
        .find((line) => line.startsWith('{'))!,
    ) as FakeXInfo;
    const service: number[] = [];
    const raw: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < settings.rounds; round++) {
      // Alternate which goes first, so neither always runs on a warmer (or busier) machine.
      const [s, r] =
        round % 2 === 0
          ? [await serviceRound(fake, settings), await rawRound(fake, settings)]
          : await rawRound(fake, settings).then(async (rr) => [await serviceRound(fake, settings), rr]);
      service.push(s);
      raw.push(r);
      ratios.push(s / r);
    }
    console.log(
      table(
        ['round', 'service items/s', 'raw creates/s', 'ratio'],
        service.map((s, i) => [String(i + 1), fmt(s), fmt(raw[i]!), fmt(ratios[i]!, 2)]),
      ),
    );
    return [
      {
        name: `live publish to fake X, ${settings.concurrency} at a time (median of ${settings.rounds})`,
        unit: 'items/s',
        project: median(service),
        limit: median(raw),
        ratio: median(ratios),
        target: { op: '>=', value: 0.3 },
      },
    ];
  } finally {
    await child.stop();
  }
}
