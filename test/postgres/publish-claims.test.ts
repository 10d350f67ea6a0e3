import { afterEach, describe, expect, it } from 'vitest';
import {
  countOf,
  publishBed,
  queueItems,
  until,
  workspacesWithAccounts,
  type PublishBed,
} from './fixtures/publish-setup.ts';

const PLATFORMS = ['twitter', 'linkedin', 'facebook'] as const;

/**
 * Publish claims across real worker processes on one PostgreSQL database (READ COMMITTED): the
 * candidate select locks what it takes (`for update skip locked`) and every claim checks the row it
 * changed, so no item is claimed, or posted, twice.
 */
describe('publishing with three worker processes on one PostgreSQL database', () => {
  let bed: PublishBed | undefined;
  afterEach(async () => {
    await bed?.close();
    bed = undefined;
  });

  it('20,000 due items on 3 platforms: every item claimed and published exactly once per platform', async () => {
    bed = await publishBed();
    const { client } = bed;
    // PUBLISH_WORKSPACES (1,000 items each) shrinks the run for a quick check by hand.
    const count = Number(process.env.PUBLISH_WORKSPACES ?? 20);
    // Many workspaces: the quota of one is counted by one claim at a time, so one workspace would serialise the workers.
    const workspaces = await workspacesWithAccounts(bed.runtime, count, 'business', PLATFORMS);
    const total = await queueItems(
      client,
      workspaces.map((ws) => ws.workspace.id),
      1000,
      PLATFORMS,
    );
    expect(total).toBe(count * 1000);

    const env = { PUBLISH_CONCURRENCY: '200', DATABASE_POOL_MAX: '8' };
    const workers = [bed.startWorker(env), bed.startWorker(env), bed.startWorker(env)];
    await until(
      'every item is finished',
      async () => {
        const left = await countOf(client, `select count(*) as n from content where status <> 'published'`);
        return left === 0;
      },
      400_000,
    ).catch(async (error: Error) => {
      const left = await countOf(client, `select count(*) as n from content where status <> 'published'`);
      const log = workers.map((w) => `${w.stdout().slice(-1500)}\n${w.stderr().slice(-1500)}`).join('\n---\n');
      throw new Error(`${error.message}: ${left} left\n${log}`);
    });

    expect(await countOf(client, `select count(*) as n from publish_runs`)).toBe(total);
    expect(await countOf(client, `select count(distinct content_id) as n from publish_runs`)).toBe(total);
    expect(await countOf(client, `select count(*) as n from sandbox_posts`)).toBe(total * PLATFORMS.length);
    expect(
      await countOf(
        client,
        `select count(*) as n from (
           select a.content_id, s.platform from sandbox_posts s join publish_attempts a on a.id = s.attempt_id
           group by a.content_id, s.platform having count(*) > 1) twice`,
      ),
    ).toBe(0);
    expect(await countOf(client, `select count(*) as n from publish_attempts where status = 'published'`)).toBe(
      total * PLATFORMS.length,
    );
    expect(await countOf(client, `select count(*) as n from events where type = 'content.published'`)).toBe(total);
    // All three took part.
    expect(await countOf(client, `select count(distinct claimed_by) as n from publish_runs`)).toBe(3);
  }, 450_000);
});
