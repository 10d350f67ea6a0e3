import { describe, expect, it } from 'vitest';
import { idempotencyKeys, rateLimitWindows } from '../../db/schema/index.ts';
import { claimIdempotencyKey, storeIdempotentResponse } from '../../src/core/idempotency.ts';
import { consumeRateLimit } from '../../src/core/rate-limits.ts';
import { claimJobTick, runMaintenanceTick, tickOf } from '../../src/jobs/maintenance.ts';
import { runMaintenance } from '../../src/jobs/maintenance.ts';
import { makeWorkspace } from '../helpers/factories.ts';
import { testRuntime } from '../helpers/runtime.ts';
import { tempDataDir } from '../helpers/subprocess.ts';
import { join } from 'node:path';

describe('maintenance', () => {
  it('drops rolled-over rate-limit windows and keeps the current one', async () => {
    const runtime = await testRuntime();
    const ws = await makeWorkspace(runtime);
    await consumeRateLimit(runtime, ws.workspace.id, ['read']);
    runtime.clock.advance(3 * 60_000);
    await consumeRateLimit(runtime, ws.workspace.id, ['read']);
    expect((await runMaintenance(runtime)).rateLimitWindows).toBe(1);
    const left = await runtime.db.select().from(rateLimitWindows).all();
    expect(left).toHaveLength(1);
    expect(left[0].count).toBe(1);
    // The current window still counts on.
    expect((await consumeRateLimit(runtime, ws.workspace.id, ['read'])).remaining).toBe(298);
  });

  it('drops idempotency answers older than 24 hours and keeps younger ones', async () => {
    const runtime = await testRuntime();
    const ws = await makeWorkspace(runtime);
    const request = (key: string) => ({
      workspaceId: ws.workspace.id,
      key,
      keyField: 'Idempotency-Key' as const,
      operation: 'createContent',
      input: { caption: key },
    });
    await claimIdempotencyKey(runtime, request('old'));
    await storeIdempotentResponse(runtime, request('old'), { status: 201, body: {} });
    runtime.clock.advance(23 * 60 * 60_000);
    await claimIdempotencyKey(runtime, request('young'));
    runtime.clock.advance(60 * 60_000 + 1);
    expect((await runMaintenance(runtime)).idempotencyKeys).toBe(1);
    expect(await runtime.db.select({ key: idempotencyKeys.key }).from(idempotencyKeys).all()).toEqual([
      { key: 'young' },
    ]);
  });

  it('runs once per minute across processes on one database: the first to claim the tick runs it', async () => {
    const data = tempDataDir('maintenance-tick');
    const file = join(data.dir, 'service.db');
    try {
      // Two runtimes on one database, as two processes would be.
      const one = await testRuntime({ file });
      const two = await testRuntime({ file });
      const minute = tickOf(one.clock.now(), 60_000);
      const claims = await Promise.all([
        claimJobTick(one, 'maintenance', minute),
        claimJobTick(two, 'maintenance', minute),
      ]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      // Run already, by whichever won: the other process skips this minute.
      expect(await runMaintenanceTick(one)).toBeNull();
      expect(await runMaintenanceTick(two)).toBeNull();
      // An older tick (a clock behind) never runs again; the next minute runs once.
      expect(await claimJobTick(two, 'maintenance', minute - 60_000)).toBe(false);
      one.clock.advance(60_000);
      two.clock.advance(60_000);
      expect(await runMaintenanceTick(two)).toMatchObject({ rateLimitWindows: 0 });
      expect(await runMaintenanceTick(one)).toBeNull();
      // Another job's ticks are its own.
      expect(await claimJobTick(one, 'other', minute)).toBe(true);
      await one.db.$store.close();
      await two.db.$store.close();
    } finally {
      data.remove();
    }
  });
});
