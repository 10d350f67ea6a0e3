import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { socialAccounts } from '../../../db/schema/index.ts';
import { getContentInWorkspace, updateContent } from '../../../src/core/content/operations.ts';
import { previewsOf } from '../../../src/core/content/review.ts';
import { contextFor } from '../../../src/core/context.ts';
import { runOperation } from '../../../src/core/operation.ts';
import { connectSocialAccount } from '../../../src/core/social-accounts/operations.ts';
import { makeContent, makeWorkspace } from '../../helpers/factories.ts';
import { testRuntime } from '../../helpers/runtime.ts';

/**
 * An item's previews are kept between requests (review.ts): an unchanged item gives the same frozen
 * previews, and a change to anything they depend on gives new ones at once, never a stale card.
 */
describe('kept previews', () => {
  const setup = async () => {
    const runtime = await testRuntime();
    const ws = await makeWorkspace(runtime);
    const ctx = contextFor(runtime, ws.workspace, 'rest');
    await connectSocialAccount(runtime, { workspaceId: ws.workspace.id, platform: 'linkedin', username: 'acme' });
    const item = await makeContent(runtime, ws.workspace, {
      caption: 'A caption worth posting',
      target_platforms: ['linkedin', 'twitter'],
      content_type: 'text_only',
    });
    const previews = async () =>
      (await previewsOf(ctx, [await getContentInWorkspace(runtime.db, ws.workspace.id, item.id)])).get(item.id)!;
    return { runtime, ws, ctx, item, previews };
  };

  it('an unchanged item gives the same previews, frozen against changes by a reader', async () => {
    const { previews } = await setup();
    const first = await previews();
    expect(await previews()).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first[0]) && Object.isFrozen(first[0]!.problems)).toBe(true);
    expect(() => (first[0]!.problems as unknown[]).push('changed')).toThrow(TypeError);
  });

  it('a new caption, hashtags, media or per-platform text gives new previews at once', async () => {
    const { ctx, item, previews } = await setup();
    const before = await previews();
    await runOperation(updateContent, ctx, { id: item.id, caption: 'x'.repeat(300) });
    const longer = await previews();
    expect(longer).not.toBe(before);
    expect(
      longer
        .find((p) => p.platform === 'twitter')!
        .problems.map((problem) => problem.message)
        .join(' '),
    ).toMatch(/the limit is 280/);
    await runOperation(updateContent, ctx, { id: item.id, hashtags: ['spring'] });
    expect((await previews()).find((p) => p.platform === 'linkedin')!.hashtags).toEqual(['spring']);
    await runOperation(updateContent, ctx, {
      id: item.id,
      platform_specific: { linkedin: { caption: 'Only on LinkedIn' } },
    });
    expect((await previews()).find((p) => p.platform === 'linkedin')!.text).toBe('Only on LinkedIn\n\n#spring');
  });

  it("an account's new status, or a newly connected account, changes the cards' verdicts at once", async () => {
    const { runtime, ws, previews } = await setup();
    expect((await previews()).find((p) => p.platform === 'linkedin')!.problems).toEqual([]);
    await runtime.db
      .update(socialAccounts)
      .set({ status: 'needs_reconnect' })
      .where(eq(socialAccounts.platform, 'linkedin'))
      .run();
    expect(
      (await previews())
        .find((p) => p.platform === 'linkedin')!
        .problems.map((problem) => problem.message)
        .join(' '),
    ).toMatch(/must be reconnected/);
    const x = async () =>
      (await previews())
        .find((p) => p.platform === 'twitter')!
        .problems.map((problem) => problem.message)
        .join(' ');
    expect(await x()).toMatch(/No connected twitter account/);
    await connectSocialAccount(runtime, { workspaceId: ws.workspace.id, platform: 'twitter', username: 'acme_x' });
    expect(await x()).not.toMatch(/No connected twitter account/);
  });
});
