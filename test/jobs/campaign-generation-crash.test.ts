import { asc, count, eq } from 'drizzle-orm';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { campaigns, content } from '../../db/schema/index.ts';
import { apportionContentTypes } from '../../src/core/campaigns/calendar.ts';
import { eventually } from '../helpers/eventually.ts';
import { makeCampaign, makeWorkspace } from '../helpers/factories.ts';
import { testRuntime, TEST_ENCRYPTION_KEY } from '../helpers/runtime.ts';
import { startEntry, tempDataDir, type RunningProcess } from '../helpers/subprocess.ts';

/**
 * Campaign generation is resumable after a crash and a slot is never generated
 * twice. A real server generating a 50 posts/day x 365 days campaign is SIGKILLed part-way, then
 * started again on the same database file.
 */
describe('campaign generation across a crash', () => {
  const cleanups: Array<() => Promise<unknown> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('a SIGKILL mid-generation, then a restart: exactly 18,250 items, no slot twice, the mix exact', async () => {
    const data = tempDataDir('generation-crash');
    const file = join(data.dir, 'service.db');
    const runtime = await testRuntime({ file, start: new Date().toISOString() });
    runtime.clock.now = () => new Date();
    cleanups.push(
      () => data.remove(),
      async () => {
        await runtime.db.$store.close();
      },
    );
    const ws = await makeWorkspace(runtime, { plan: 'business' });
    const mix = { ugc: 3, carousel: 2, talkingHead: 1, videoHook: 1 };
    const { id } = await makeCampaign(
      runtime,
      ws.workspace,
      { name: 'Year of posts', posts_per_day: 50, campaign_length_days: 365, content_mix: mix },
      { launch: true },
    );
    const generated = async () =>
      (await runtime.db.select().from(campaigns).where(eq(campaigns.id, id)).get())!.generatedPosts;

    const env = { DATABASE_FILE: file, PORT: '0', ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, GENERATION_LEASE_SECONDS: '2' };
    const start = (): RunningProcess => {
      const server = startEntry(['serve'], env);
      cleanups.push(() => server.stop());
      return server;
    };
    const first = start();
    await first.waitForOutput(/Listening on/);
    await eventually('the first batches are written', async () => (await generated()) >= 1000, 30_000, 10);
    first.child.kill('SIGKILL');
    await first.stop();
    const beforeRestart = await generated();
    expect(beforeRestart).toBeLessThan(18_250);

    const second = start();
    await second.waitForOutput(/Listening on/);
    await eventually('every slot is generated', async () => (await generated()) === 18_250, 90_000, 100);
    console.log(`campaign generation crash test: ${beforeRestart} posts before the SIGKILL, 18,250 after the restart`);

    const slots = await runtime.db
      .select({ slot: content.campaignSlot, type: content.contentType })
      .from(content)
      .where(eq(content.campaignId, id))
      .orderBy(asc(content.campaignSlot))
      .all();
    expect(slots).toHaveLength(18_250);
    expect(slots.map((s) => s.slot)).toEqual(Array.from({ length: 18_250 }, (_, i) => i));
    const counts = new Map<string, number>();
    for (const { type } of slots) counts.set(type, (counts.get(type) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(apportionContentTypes(mix, 18_250)));
    expect(
      (await runtime.db.select({ n: count() }).from(content).where(eq(content.workspaceId, ws.workspace.id)).get())!.n,
    ).toBe(18_250);
    await eventually(
      'the run lets the campaign go',
      async () =>
        (await runtime.db.select().from(campaigns).where(eq(campaigns.id, id)).get())!.generationDueAt === null,
      10_000,
      50,
    );
  }, 150_000);
});
