import { eq } from 'drizzle-orm';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { savepoint } from '../../db/client.ts';
import { content } from '../../db/schema/index.ts';
import type { Runtime } from '../../src/core/context.ts';
import { claimDuePublishes } from '../../src/core/publishing/claim.ts';
import { consumeRateLimit } from '../../src/core/rate-limits.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { countOf, runtimeOn, workspacesWithAccounts } from './fixtures/publish-setup.ts';

/**
 * The publishing claim locks the due items it read, then takes a workspace's publish bucket for each
 * scheduled one; a publish request takes that bucket, then writes its item. When the two meet on one
 * item, the claim gives way (waitForLocksAtMost) and is tried again; without that the server finds
 * the deadlock after a second and fails whichever waited first, here the request.
 */
describe('the publishing claim and a request meeting on PostgreSQL', () => {
  let database: TestDatabase | undefined;
  let runtime: Runtime | undefined;
  let client: pg.Client | undefined;
  afterEach(async () => {
    await client?.end();
    await runtime?.db.$store.close();
    await database?.drop();
    client = runtime = database = undefined;
  });

  it('a claim holding an item waits for the bucket a request holds while the request waits for the item: the claim gives way, the request commits, every item is claimed once', async () => {
    database = await createTestDatabase();
    runtime = await runtimeOn(database.url);
    const rt = runtime;
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const [first, second] = await workspacesWithAccounts(rt, 2, 'pro', ['twitter']);
    // Scheduled and due, the first workspace's item first in the claim's order.
    const now = Date.now();
    for (const [id, workspaceId, due] of [
      ['item_a', first!.workspace.id, now - 2_000],
      ['item_x', second!.workspace.id, now - 1_000],
    ] as const) {
      await client.query(
        `insert into content (id, workspace_id, caption, hashtags, content_type, target_platforms, media_urls,
           platform_specific, status, scheduled_for, publish_queued, publish_results, created_at, updated_at)
         values ($1, $2, 'Scheduled', '[]', 'text_only', '["twitter"]', '[]', '{}', 'scheduled', $3, true, '[]', $4, $4)`,
        [id, workspaceId, due, now],
      );
    }
    const waitingForLocks = (n: number) => async () => {
      const deadline = Date.now() + 10_000;
      while (
        (await countOf(
          client!,
          `select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        )) < n
      ) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${n} units waiting for a lock`);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    };

    // A request of the first workspace holds its publish bucket for a moment.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let took = false;
    const holder = rt.db.$store.transaction(async () => {
      await consumeRateLimit(rt, first!.workspace.id, ['publish']);
      took = true;
      await held;
    });
    while (!took) await new Promise((resolve) => setTimeout(resolve, 2));

    // The claim locks both items and waits for that bucket (item_a is first).
    const claimed: string[] = [];
    const claimPass = () =>
      rt.db.$store.inNextCommit(() =>
        savepoint(rt.db, async () => {
          for (const claim of (await claimDuePublishes(rt, 10)).claims) claimed.push(claim.contentId);
        }),
      );
    const firstPass = claimPass().then(
      () => 'claimed',
      (error: unknown) => (error as { code?: string }).code,
    );
    await waitingForLocks(1)();

    // A publish request of the second workspace takes its bucket, then writes item_x: it waits for the claim.
    const request = rt.db.$store.transaction(async () => {
      await consumeRateLimit(rt, second!.workspace.id, ['publish']);
      await rt.db.update(content).set({ updatedAt: new Date() }).where(eq(content.id, 'item_x')).run();
    });
    await waitingForLocks(2)();
    // The claim goes on to item_x and needs the bucket the request holds.
    release();
    await holder;

    await expect(request).resolves.toBeUndefined();
    // The claim gave way (lock_not_available) and claimed nothing; the next pass claims both.
    expect(await firstPass).toBe('55P03');
    await claimPass();
    expect(claimed.sort()).toEqual(['item_a', 'item_x']);
  }, 30_000);
});
