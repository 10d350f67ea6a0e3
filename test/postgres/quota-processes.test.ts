import { afterEach, describe, expect, it } from 'vitest';
import { countOf, publishBed, until, workspacesWithAccounts, type PublishBed } from './fixtures/publish-setup.ts';

/**
 * The monthly post quota, reserved at claim time, with three worker processes on one PostgreSQL
 * database: one unit at a time counts a workspace's published and in-flight posts (an advisory lock
 * per workspace), so concurrent claims never overshoot it.
 */
describe('the post quota with three worker processes on one PostgreSQL database', () => {
  let bed: PublishBed | undefined;
  afterEach(async () => {
    await bed?.close();
    bed = undefined;
  });

  it('queued items past the quota on every workspace: none publishes more than its plan allows', async () => {
    bed = await publishBed();
    const { client } = bed;
    // free: 30 posts a month. Twice that queued on each of 24 workspaces.
    const quota = 30;
    const workspaces = await workspacesWithAccounts(bed.runtime, 24, 'free', ['twitter']);

    // Queued once all three run, and each told (a wake-up), so that all three meet the queue at once;
    // few slots and slow posts, so that it lasts long enough for each to take a share.
    const workers = await bed.startWorkers(3, { PUBLISH_CONCURRENCY: '16', SANDBOX_PUBLISH_DELAY_MS: 'twitter:150' });
    const now = Date.now();
    // Ids interleave the workspaces in claim order (due, then id), so every pass of every worker
    // reaches every workspace, and the workers count the same workspace at once.
    await client.query(
      `insert into content (id, workspace_id, caption, hashtags, content_type, target_platforms, media_urls,
         platform_specific, status, publish_queued, publish_results, created_at, updated_at)
       select lpad(n::text, 4, '0') || '_' || w.id, w.id, 'Post ' || n, '[]', 'text_only', '["twitter"]', '[]', '{}',
         'approved', true, '[]', $2, $2
       from unnest($1::text[]) as w(id), generate_series(1, $3) as n`,
      [workspaces.map((ws) => ws.workspace.id), now, quota * 2],
    );
    const total = workspaces.length * quota * 2;
    bed.runtime.wake('publishing');
    await until(
      'every item is finished',
      async () =>
        (await countOf(client, `select count(*) as n from content where publish_queued or status = 'publishing'`)) ===
        0,
      90_000,
    ).catch(async (error: Error) => {
      const log = workers.map((w) => `${w.stdout().slice(-1500)}\n${w.stderr().slice(-1500)}`).join('\n---\n');
      throw new Error(`${error.message}\n${log}`);
    });

    const { rows } = await client.query<{ workspace_id: string; n: string }>(
      `select workspace_id, count(*) as n from content where status = 'published' group by workspace_id`,
    );
    const published = Object.fromEntries(rows.map((row) => [row.workspace_id, Number(row.n)]));
    for (const ws of workspaces) expect(published[ws.workspace.id], ws.workspace.name).toBe(quota);
    expect(await countOf(client, `select count(*) as n from sandbox_posts`)).toBe(workspaces.length * quota);
    // The rest were refused at their claim, on quota: finished, never sent.
    expect(await countOf(client, `select count(*) as n from content where status = 'approved'`)).toBe(
      total - workspaces.length * quota,
    );
    expect(await countOf(client, `select count(distinct claimed_by) as n from publish_runs`)).toBe(3);
  }, 120_000);
});
