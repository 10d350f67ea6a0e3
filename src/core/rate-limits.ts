import { and, eq, lt, sql } from 'drizzle-orm';
import { preparedStatements, writeTransaction } from '../../db/client.ts';
import { rateLimitWindows } from '../../db/schema/index.ts';
import type { Bucket } from './config.ts';
import type { Runtime } from './context.ts';
import { RateLimitError, type RateLimitState } from './errors.ts';

export type { Bucket };

const WINDOW_SECONDS = 60;

/**
 * Takes one from each bucket, or nothing at all if any is empty: a refused request consumes
 * nothing. Fixed windows aligned to the wall-clock minute; the counters live in the database,
 * in one IMMEDIATE transaction, so every process on the file shares them exactly.
 * Returns the state of the applicable bucket with the least remaining, for the headers.
 */
export function consumeRateLimit(runtime: Runtime, workspaceId: string, buckets: readonly Bucket[]): RateLimitState {
  const { db, clock, config } = runtime;
  const nowSeconds = Math.floor(clock.now().getTime() / 1000);
  const windowStart = nowSeconds - (nowSeconds % WINDOW_SECONDS);
  const reset = windowStart + WINDOW_SECONDS;

  const { select, increment } = statements(db);
  return writeTransaction(db, (): RateLimitState => {
    let tightest: RateLimitState | undefined;
    for (const bucket of buckets) {
      const limit = config.rateLimits[bucket];
      const count = select.get({ workspaceId, bucket, windowStart })?.count ?? 0;
      if (count >= limit) {
        throw new RateLimitError({ limit, remaining: 0, reset }, Math.max(1, reset - nowSeconds), bucket);
      }
      const state = { limit, remaining: limit - count - 1, reset };
      if (!tightest || state.remaining < tightest.remaining) tightest = state;
    }
    for (const bucket of buckets) increment.run({ workspaceId, bucket, windowStart });
    if (!tightest) throw new Error('consumeRateLimit needs at least one bucket');
    return tightest;
  });
}

const statements = preparedStatements((db) => ({
  select: db
    .select({ count: rateLimitWindows.count })
    .from(rateLimitWindows)
    .where(
      and(
        eq(rateLimitWindows.workspaceId, sql.placeholder('workspaceId')),
        eq(rateLimitWindows.bucket, sql.placeholder('bucket')),
        eq(rateLimitWindows.windowStart, sql.placeholder('windowStart')),
      ),
    )
    .prepare(),
  increment: db
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
    })
    .prepare(),
}));

/** Drops windows that have rolled over; called now and then by the schedulers. */
export function pruneRateLimitWindows(runtime: Runtime): number {
  const nowSeconds = Math.floor(runtime.clock.now().getTime() / 1000);
  return runtime.db
    .delete(rateLimitWindows)
    .where(lt(rateLimitWindows.windowStart, nowSeconds - 2 * WINDOW_SECONDS))
    .run().changes;
}
