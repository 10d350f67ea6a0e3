/**
 * One service round of a live-publishing benchmark: a fresh database file with one workspace and one
 * live account holding a token, `items` posts queued at once, and the real publishing run with the
 * platform's real client, timed from start to the last item finished. Every item must end published
 * on the fake, or the round fails.
 */
import { sql } from 'drizzle-orm';
import { join } from 'node:path';
import { startBackgroundCheckpoints } from '../db/checkpointer.ts';
import { writeTransaction, type Db } from '../db/client.ts';
import { socialAccounts, type ContentType, type Platform } from '../db/schema/index.ts';
import { createWorkspace } from '../src/core/accounts/workspaces.ts';
import { loadConfig } from '../src/core/config.ts';
import { insertContentRow } from '../src/core/content/operations.ts';
import { newId } from '../src/core/ids.ts';
import { openRuntime } from '../src/core/runtime.ts';
import { storeTokens } from '../src/core/social-accounts/tokens.ts';
import { startPublishing } from '../src/jobs/publish-run.ts';
import { fmt, RAISED_LIMITS, table, tempDir, until, type HttpChild, type Row } from './lib.ts';

export interface LiveRound {
  /** For the temp directory and the error message. */
  label: string;
  platform: Platform;
  /** The platform's variables (hosts, credentials) and anything else the service needs. */
  env: Record<string, string>;
  concurrency: number;
  items: number;
  account: { platformUserId: string; username: string; scopes: string[]; accessToken: string; expiresInSecs: number };
  /** The n-th post. */
  post: (n: number) => { caption: string; contentType: ContentType; mediaUrls: string[] };
  /** Rows the posts need beside the account (a media asset), written in the same transaction. */
  prepare?: (db: Db, workspaceId: string, now: Date) => Promise<unknown> | void;
  /** What a published attempt's URL looks like on this platform. */
  urlPrefix: string;
}

/** Items per second from queued to finished. */
export async function liveServiceRound(round: LiveRound): Promise<number> {
  const dir = tempDir(round.label);
  const config = loadConfig({
    DATABASE_FILE: join(dir.path, 'service.db'),
    ...RAISED_LIMITS,
    PUBLISH_CONCURRENCY: String(round.concurrency),
    LOG_LEVEL: 'warn',
    ...round.env,
  });
  const runtime = await openRuntime({ config });
  const checkpointer = startBackgroundCheckpoints(runtime.db);
  try {
    const now = new Date();
    await writeTransaction(runtime.db, async () => {
      const { workspace } = await createWorkspace(runtime, { name: `Bench ${round.label}`, plan: 'business' });
      await round.prepare?.(runtime.db, workspace.id, now);
      const account = await runtime.db
        .insert(socialAccounts)
        .values({
          id: newId(),
          workspaceId: workspace.id,
          platform: round.platform,
          platformUserId: round.account.platformUserId,
          username: round.account.username,
          mode: 'live',
          status: 'active',
          scopes: round.account.scopes,
          connectedAt: now,
          createdAt: now,
        })
        .returning()
        .get();
      await storeTokens(runtime, account.id, {
        accessToken: round.account.accessToken,
        expiresAt: new Date(now.getTime() + round.account.expiresInSecs * 1000),
      });
      for (let n = 0; n < round.items; n++) {
        const post = round.post(n);
        await insertContentRow(runtime.db, {
          id: newId(),
          workspaceId: workspace.id,
          caption: post.caption,
          hashtags: [],
          contentType: post.contentType,
          targetPlatforms: [round.platform],
          mediaUrls: post.mediaUrls,
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
    const unfinished = async () =>
      (
        await runtime.db.get<{ n: number }>(
          sql`select count(*) as n from content where status in ('approved', 'publishing')`,
        )
      ).n;
    const t0 = performance.now();
    const scheduler = startPublishing(runtime);
    await until(`${round.label}: every item finished`, async () => (await unfinished()) === 0, 300, 20);
    const seconds = (performance.now() - t0) / 1000;
    await scheduler.stop();
    const published = (
      await runtime.db.get<{ n: number }>(
        sql`select count(*) as n from publish_attempts where status = 'published' and url like ${`${round.urlPrefix}%`}`,
      )
    ).n;
    if (published !== round.items) {
      const sample = await runtime.db.get<{ error: string | null }>(
        sql`select error from publish_attempts where status != 'published' limit 1`,
      );
      throw new Error(`${round.label}: expected ${round.items} posts published, ${published} were (${sample?.error})`);
    }
    return round.items / seconds;
  } finally {
    await checkpointer.stop();
    await runtime.db.$store.close();
    dir.cleanup();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * `rounds` pairs of the service's round and the raw loop's, alternating which goes first so neither
 * always runs on a warmer (or busier) machine; prints each round and answers the summary row (the
 * medians, and the median of the per-round ratios).
 */
export async function compareInterleaved(comparison: {
  name: string;
  rawUnit: string;
  rounds: number;
  service: () => Promise<number>;
  raw: () => Promise<number>;
}): Promise<Row> {
  const service: number[] = [];
  const raw: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < comparison.rounds; round++) {
    let s: number;
    let r: number;
    if (round % 2 === 0) {
      s = await comparison.service();
      r = await comparison.raw();
    } else {
      r = await comparison.raw();
      s = await comparison.service();
    }
    service.push(s);
    raw.push(r);
    ratios.push(s / r);
  }
  console.log(
    table(
      ['round', 'service items/s', `raw ${comparison.rawUnit}`, 'ratio'],
      service.map((s, i) => [String(i + 1), fmt(s), fmt(raw[i]!), fmt(ratios[i]!, 2)]),
    ),
  );
  return {
    name: `${comparison.name} (median of ${comparison.rounds})`,
    unit: 'items/s',
    project: median(service),
    limit: median(raw),
    ratio: median(ratios),
    target: { op: '>=', value: 0.3 },
  };
}

/** The JSON line a fake's child process prints before 'Listening on'. */
export const fakeInfo = <T>(child: HttpChild): T =>
  JSON.parse(
    child
      .log()
      .split('\n')
      .find((line) => line.startsWith('{'))!,
  ) as T;
