import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { campaigns, content } from '../../db/schema/index.ts';
import { claimDueGenerations, renewGenerationLeases } from '../../src/core/campaigns/generation.ts';
import { ManualClock } from '../../src/core/clock.ts';
import type { Runtime } from '../../src/core/context.ts';
import { claimDuePublishes, renewLeases } from '../../src/core/publishing/claim.ts';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { connectAccounts, publish } from '../helpers/publishing.ts';
import { runtimeOn } from './fixtures/publish-setup.ts';

/**
 * Leases on PostgreSQL, two runtimes (two pools, as two processes) on one database: a holder whose
 * lease was taken over renews nothing, and an expired lease is taken over by one process only.
 */
describe('leases on one PostgreSQL database from two processes', () => {
  let database: TestDatabase | undefined;
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    for (const runtime of runtimes.splice(0)) await runtime.db.$store.close();
    await database?.drop();
    database = undefined;
  });

  async function twoProcesses(): Promise<[Runtime, Runtime, ManualClock]> {
    database = await createTestDatabase();
    const clock = new ManualClock(new Date());
    const a = await runtimeOn(database.url, clock);
    const b = await runtimeOn(database.url, clock);
    runtimes.push(a, b);
    return [a, b, clock];
  }

  it('a publish lease renewed with a stale token extends nothing; the new holder’s renewal does', async () => {
    const [a, b, clock] = await twoProcesses();
    const ws = await makeWorkspace(a);
    await connectAccounts(a, ws.workspace, ['twitter']);
    const item = await makeContent(a, ws.workspace, { content_type: 'text_only', target_platforms: ['twitter'] });
    await publish(a, ws.workspace, item.id);

    const [first] = (await a.db.$store.inNextCommit(() => claimDuePublishes(a, 1))).claims;
    expect(first).toBeDefined();
    // The holder stalls past its lease; the other process takes the item over.
    clock.advance(a.config.publishing.leaseSeconds * 1000 + 1);
    const [second] = (await b.db.$store.inNextCommit(() => claimDuePublishes(b, 1))).claims;
    expect(second?.contentId).toBe(item.id);
    expect(second!.leaseToken).not.toBe(first!.leaseToken);
    const leaseOf = async () =>
      (await a.db.select({ at: content.leaseExpiresAt }).from(content).where(eq(content.id, item.id)).get())!.at;
    const taken = await leaseOf();

    clock.advance(5_000);
    expect(await renewLeases(a, [first!])).toBe(0);
    expect(await leaseOf()).toEqual(taken);
    expect(await renewLeases(b, [second!])).toBe(1);
    expect((await leaseOf())!.getTime()).toBe(clock.now().getTime() + b.config.publishing.leaseSeconds * 1000);
  });

  it('an expired publish lease claimed by two processes at once is taken over by one', async () => {
    const [a, b, clock] = await twoProcesses();
    const ws = await makeWorkspace(a);
    await connectAccounts(a, ws.workspace, ['twitter']);
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const item = await makeContent(a, ws.workspace, { content_type: 'text_only', target_platforms: ['twitter'] });
      await publish(a, ws.workspace, item.id);
      ids.push(item.id);
    }
    expect((await a.db.$store.inNextCommit(() => claimDuePublishes(a, 20))).claims).toHaveLength(20);
    clock.advance(a.config.publishing.leaseSeconds * 1000 + 1);
    const [fromA, fromB] = await Promise.all(
      [a, b].map(
        async (runtime) => (await runtime.db.$store.inNextCommit(() => claimDuePublishes(runtime, 20))).claims,
      ),
    );
    const taken = [...fromA!, ...fromB!].map((claim) => claim.contentId).sort();
    expect(taken).toEqual([...ids].sort());
  });

  it('a generation lease renewed with a stale token extends nothing', async () => {
    const [a, b, clock] = await twoProcesses();
    const ws = await makeWorkspace(a);
    const now = clock.now();
    await a.db
      .insert(campaigns)
      .values({
        id: 'cmp_stale',
        workspaceId: ws.workspace.id,
        name: 'Stale',
        description: null,
        status: 'active',
        startDate: now,
        campaignLengthDays: 1,
        postsPerDay: 1,
        contentMix: {},
        totalPosts: 1,
        generatedPosts: 0,
        generationDueAt: now,
        createdAt: now,
        updatedAt: now,
      })
      .run();
    const [first] = await claimDueGenerations(a, 1);
    expect(first).toBeDefined();
    clock.advance(a.config.campaigns.leaseSeconds * 1000 + 1);
    const [second] = await claimDueGenerations(b, 1);
    expect(second?.leaseToken).toBeDefined();
    const dueOf = async () =>
      (await a.db.select({ at: campaigns.generationDueAt }).from(campaigns).where(eq(campaigns.id, 'cmp_stale')).get())!
        .at;
    const taken = await dueOf();
    clock.advance(5_000);
    expect(await renewGenerationLeases(a, [first!])).toBe(0);
    expect(await dueOf()).toEqual(taken);
    expect(await renewGenerationLeases(b, [second!])).toBe(1);
  });
});
