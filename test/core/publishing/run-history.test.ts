import { beforeEach, describe, expect, it } from 'vitest';
import { setWorkspacePlan } from '../../../src/core/accounts/workspaces.ts';
import { contentHistoryOf } from '../../../src/core/content/history.ts';
import { connectorsFor } from '../../../src/core/publishing/connectors/index.ts';
import { drain } from '../../../src/jobs/drain.ts';
import { publishingJob } from '../../../src/jobs/publish-run.ts';
import { makeContent, makeWorkspace, type TestWorkspace } from '../../helpers/factories.ts';
import { connectAccounts, connectorsWith, publish } from '../../helpers/publishing.ts';
import { insertPublished } from '../../helpers/rest-expect.ts';
import { testRuntime, type TestRuntime } from '../../helpers/runtime.ts';

/** The publishing run writes its steps into the item's history, beside what people and keys did. */
describe('publishing run history', () => {
  let runtime: TestRuntime;
  let ws: TestWorkspace;
  beforeEach(async () => {
    runtime = await testRuntime();
    ws = await makeWorkspace(runtime);
  });

  const run = (connectors = connectorsFor(runtime)) => drain(runtime, publishingJob(runtime, connectors));
  const history = async (id: string) =>
    (await contentHistoryOf(runtime.db, ws.workspace.id, id)).map(({ action, from, to, by, note }) => ({
      action,
      from,
      to,
      by,
      note,
    }));

  it('a published item shows the run starting, then publishing, after the request that queued it', async () => {
    await connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin']);
    const item = await makeContent(runtime, ws.workspace, {
      content_type: 'text_only',
      target_platforms: ['twitter', 'linkedin'],
    });
    await publish(runtime, ws.workspace, item.id);
    runtime.clock.advance(1000);
    expect(await run()).toEqual(['published']);
    expect((await history(item.id)).slice(-3)).toEqual([
      expect.objectContaining({ action: 'queued for publishing', to: 'approved' }),
      { action: 'started publishing', from: 'approved', to: 'publishing', by: 'the publishing run', note: null },
      { action: 'published', from: 'publishing', to: 'published', by: 'the publishing run', note: null },
    ]);
    const [started, published] = (await contentHistoryOf(runtime.db, ws.workspace.id, item.id)).slice(-2);
    expect(started!.at.toISOString()).toBe(runtime.clock.now().toISOString());
    expect(published!.at.toISOString()).toBe(runtime.clock.now().toISOString());
  });

  it('a partly refused item is published, and the note names the platform that refused and why', async () => {
    await connectAccounts(runtime, ws.workspace, ['twitter', 'facebook']);
    const connectors = connectorsWith(runtime, {
      facebook: { publish: async () => ({ status: 'rejected', error: 'facebook: page token expired' }) },
    });
    const item = await makeContent(runtime, ws.workspace, {
      content_type: 'text_only',
      target_platforms: ['twitter', 'facebook'],
    });
    await publish(runtime, ws.workspace, item.id);
    await run(connectors);
    expect((await history(item.id)).at(-1)).toEqual({
      action: 'published',
      from: 'publishing',
      to: 'published',
      by: 'the publishing run',
      note: 'facebook: facebook: page token expired',
    });
  });

  it('an item no platform took shows it failed, back to approved, with each reason', async () => {
    const item = await makeContent(runtime, ws.workspace, { content_type: 'text_only', target_platforms: ['twitter'] });
    await publish(runtime, ws.workspace, item.id);
    expect(await run()).toEqual(['failed']);
    const last = (await history(item.id)).slice(-2);
    expect(last[0]).toMatchObject({ action: 'started publishing', to: 'publishing' });
    expect(last[1]).toMatchObject({ action: 'failed to publish', from: 'publishing', to: 'approved' });
    expect(last[1]!.note).toMatch(/^twitter: No connected twitter account/);
  });

  it('an item refused before any platform is called (quota reached) shows only that it failed, with the reason', async () => {
    await connectAccounts(runtime, ws.workspace, ['twitter']);
    await setWorkspacePlan(runtime, ws.workspace.id, { plan: 'starter' });
    await insertPublished(runtime, ws.workspace.id, 300, runtime.clock.now());
    const item = await makeContent(runtime, ws.workspace, {
      content_type: 'text_only',
      target_platforms: ['twitter'],
      status: 'scheduled',
      scheduled_for: runtime.clock.now().toISOString(),
    });
    await run();
    const steps = (await history(item.id)).filter((entry) => entry.by === 'the publishing run');
    expect(steps).toEqual([
      {
        action: 'failed to publish',
        from: 'scheduled',
        to: 'approved',
        by: 'the publishing run',
        note: expect.stringMatching(/^twitter: monthly post quota reached/),
      },
    ]);
  });

  it("writes nothing into another workspace's history", async () => {
    const other = await makeWorkspace(runtime);
    await connectAccounts(runtime, ws.workspace, ['twitter']);
    const item = await makeContent(runtime, ws.workspace, { content_type: 'text_only', target_platforms: ['twitter'] });
    await publish(runtime, ws.workspace, item.id);
    await run();
    expect(await contentHistoryOf(runtime.db, other.workspace.id, item.id)).toEqual([]);
  });
});
