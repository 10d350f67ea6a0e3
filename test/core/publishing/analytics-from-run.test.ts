import { describe, expect, it } from 'vitest';
import { getAnalyticsOverview } from '../../../src/core/analytics/overview.ts';
import { contextFor } from '../../../src/core/context.ts';
import { runOperation } from '../../../src/core/operation.ts';
import { connectorsFor } from '../../../src/core/publishing/connectors/index.ts';
import { makeContent, makeWorkspace } from '../../helpers/factories.ts';
import { connectAccounts, publish } from '../../helpers/publishing.ts';
import { testRuntime } from '../../helpers/runtime.ts';
import { drain } from '../../../src/jobs/drain.ts';
import { publishingJob } from '../../../src/jobs/publish-run.ts';

/**
 * The analytics overview reads what the publishing run records: a short history made by the real
 * run (sandbox platforms, manual clock over three days), checked figure by figure.
 */
describe('analytics from the publishing run', () => {
  it('counts items by outcome per day and platform outcomes per platform', async () => {
    const runtime = await testRuntime({ start: '2026-03-08T09:00:00.000Z' });
    const ws = await makeWorkspace(runtime);
    const other = await makeWorkspace(runtime);
    await connectAccounts(runtime, ws.workspace, ['twitter', 'linkedin']);
    await connectAccounts(runtime, other.workspace, ['twitter']);
    const run = () => drain(runtime, publishingJob(runtime, connectorsFor(runtime)));
    const queue = async (workspace = ws.workspace, input: Record<string, unknown> = {}) => {
      const item = await makeContent(runtime, workspace, { content_type: 'text_only', ...input });
      await publish(runtime, workspace, item.id);
    };

    // 8 March: one item out on both platforms.
    await queue(ws.workspace, { target_platforms: ['twitter', 'linkedin'] });
    await run();
    // 9 March: one partial success (too long for X), one total failure (no instagram account).
    runtime.clock.set('2026-03-09T15:00:00.000Z');
    await queue(ws.workspace, { caption: 'z'.repeat(400), target_platforms: ['twitter', 'linkedin'] });
    await queue(ws.workspace, { target_platforms: ['instagram'] });
    // Another workspace's success never shows in ours.
    await queue(other.workspace, { target_platforms: ['twitter'] });
    await run();
    // 10 March: nothing published yet.
    runtime.clock.set('2026-03-10T08:00:00.000Z');

    const overview = await runOperation(getAnalyticsOverview, contextFor(runtime, ws.workspace, 'rest'), { days: 3 });
    expect(overview).toEqual({
      object: 'analytics_overview',
      days: 3,
      period_start: '2026-03-08T00:00:00.000Z',
      period_end: '2026-03-10T08:00:00.000Z',
      totals: { published: 2, failed: 1 },
      platforms: [
        { platform: 'instagram', published: 0, failed: 1 },
        { platform: 'linkedin', published: 2, failed: 0 },
        { platform: 'twitter', published: 1, failed: 1 },
      ],
      daily: [
        { date: '2026-03-08', published: 1, failed: 0 },
        { date: '2026-03-09', published: 1, failed: 1 },
        { date: '2026-03-10', published: 0, failed: 0 },
      ],
    });

    // One day back covers only today.
    const today = await runOperation(getAnalyticsOverview, contextFor(runtime, ws.workspace, 'rest'), { days: 1 });
    expect(today).toMatchObject({ totals: { published: 0, failed: 0 }, platforms: [] });
  });
});
