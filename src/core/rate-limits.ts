import { lt, sql } from 'drizzle-orm';
import { preparedStatements, writeTransaction } from '../../db/client.ts';
import { rateLimitWindows } from '../../db/schema/index.ts';
import type { Bucket } from './config.ts';
import type { Runtime } from './context.ts';
import { RateLimitError, type RateLimitState } from './errors.ts';

export type { Bucket };

const WINDOW_SECONDS = 60;

/**
 * Takes one from each bucket, or nothing at all if any is empty: a refused request consumes
 * nothing. Fixed windows aligned to the wall-clock minute; the counters live in the database, so
 * every process on the file shares them exactly. Each take is one conditional upsert (it only
 * counts while under the limit); several buckets go in one transaction that a refusal rolls back.
 * Returns the state of the applicable bucket with the least remaining, for the headers.
 */
export async function consumeRateLimit(
  runtime: Runtime,
  workspaceId: string,
  buckets: readonly Bucket[],
): Promise<RateLimitState> {
  const { db, clock, config } = runtime;
  const nowSeconds = Math.floor(clock.now().getTime() / 1000);
  const windowStart = nowSeconds - (nowSeconds % WINDOW_SECONDS);
  const reset = windowStart + WINDOW_SECONDS;
  const { take } = statements(db);

  const takeAll = async (): Promise<RateLimitState> => {
    let tightest: RateLimitState | undefined;
    for (const bucket of buckets) {
      const limit = config.rateLimits[bucket];
      const taken = await take.get({ workspaceId, bucket, windowStart, limit });
      if (!taken) throw new RateLimitError({ limit, remaining: 0, reset }, Math.max(1, reset - nowSeconds), bucket);
      const state = { limit, remaining: limit - taken.count, reset };
      if (!tightest || state.remaining < tightest.remaining) tightest = state;
    }
    if (!tightest) throw new Error('consumeRateLimit needs at least one bucket');
    return tightest;
  };
  return buckets.length === 1 ? await takeAll() : await writeTransaction(db, takeAll);
}

const statements = preparedStatements((db) => ({
  take: db
    .insert(rateLimitWindows)
    .values({
      workspaceId: sql.placeholder('workspaceId'),
      bucket: sql.placeholder('bucket'),
      windowStart: sql.placeholder('windowStart'),
      count: 1,
    })
    .onConflictDoUpdate({
      target: [rateLimitWindows.workspaceId, rateLimitWindows.bucket, rateLimitWindows.windowStart],
      set: { count: sql`${rateLimitWindows.count} + 1` },
      setWhere: lt(rateLimitWindows.count, sql.placeholder('limit')),
    })
    .returning({ count: rateLimitWindows.count })
    .prepare(),
}));

/** Drops windows that have rolled over; called by the maintenance job. */
export async function pruneRateLimitWindows(runtime: Runtime): Promise<number> {
  const nowSeconds = Math.floor(runtime.clock.now().getTime() / 1000);
  return (
    await runtime.db
      .delete(rateLimitWindows)
      .where(lt(rateLimitWindows.windowStart, nowSeconds - 2 * WINDOW_SECONDS))
      .run()
  ).changes;
}
