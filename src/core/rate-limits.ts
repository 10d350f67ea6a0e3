import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import { writeTransaction } from '../../db/client.ts';
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

  return writeTransaction(db, (tx): RateLimitState => {
      const used = new Map(
        tx
          .select({ bucket: rateLimitWindows.bucket, count: rateLimitWindows.count })
          .from(rateLimitWindows)
          .where(
            and(
              eq(rateLimitWindows.workspaceId, workspaceId),
              eq(rateLimitWindows.windowStart, windowStart),
              inArray(rateLimitWindows.bucket, [...buckets]),
            ),
          )
          .all()
          .map((r) => [r.bucket, r.count]),
      );
      let tightest: RateLimitState | undefined;
      for (const bucket of buckets) {
        const limit = config.rateLimits[bucket];
        const count = used.get(bucket) ?? 0;
        if (count >= limit) {
          throw new RateLimitError({ limit, remaining: 0, reset }, Math.max(1, reset - nowSeconds), bucket);
        }
        const state = { limit, remaining: limit - count - 1, reset };
        if (!tightest || state.remaining < tightest.remaining) tightest = state;
      }
      for (const bucket of buckets) {
        tx.insert(rateLimitWindows)
          .values({ workspaceId, bucket, windowStart, count: 1 })
          .onConflictDoUpdate({
            target: [rateLimitWindows.workspaceId, rateLimitWindows.bucket, rateLimitWindows.windowStart],
            set: { count: sql`${rateLimitWindows.count} + 1` },
          })
          .run();
      }
      if (!tightest) throw new Error('consumeRateLimit needs at least one bucket');
      return tightest;
  });
}

/** Drops windows that have rolled over; called now and then by the schedulers. */
export function pruneRateLimitWindows(runtime: Runtime): number {
  const nowSeconds = Math.floor(runtime.clock.now().getTime() / 1000);
  return runtime.db
    .delete(rateLimitWindows)
    .where(lt(rateLimitWindows.windowStart, nowSeconds - 2 * WINDOW_SECONDS))
    .run().changes;
}
