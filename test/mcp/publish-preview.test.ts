import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { content, events, rateLimitWindows } from '../../db/schema/index.ts';
import { xWeightedLength } from '../../src/core/platforms/rules.ts';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { call } from '../helpers/http.ts';
import { useMcpTestbed } from '../helpers/mcp.ts';
import { connectAccounts, update } from '../helpers/publishing.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';

/** 300 of X's weighted characters: 150 CJK characters, each weighing 2. */
const LONG_FOR_X = '日'.repeat(150);

describe('publish preview (dry_run): REST and service_publish_content', () => {
  // One publish token a minute: a dry run that took one would leave none for the real publish.
  const bed = useMcpTestbed({ env: { RATE_LIMIT_PUBLISH: '1' } });

  const rest = (method: string, path: string, body?: unknown) =>
    call(bed.server, method, path, { headers: bed.ws.headers, body });
  const restPreview = async (id: string) => {
    const answer = await rest('POST', `/api/v1/content/${id}/publish`, { dry_run: true });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };
  const mcpPreview = (id: string) => toolResult(bed.client, 'service_publish_content', { id, dry_run: true });
  const eventCount = async () =>
    (await bed.runtime.db.select().from(events).where(eq(events.workspaceId, bed.ws.workspace.id)).all()).length;
  const row = async (id: string) => (await bed.runtime.db.select().from(content).where(eq(content.id, id)).get())!;
  const publishTokensTaken = async () =>
    (
      await bed.runtime.db
        .select()
        .from(rateLimitWindows)
        .where(and(eq(rateLimitWindows.workspaceId, bed.ws.workspace.id), eq(rateLimitWindows.bucket, 'publish')))
        .all()
    ).reduce((sum, window) => sum + window.count, 0);

  it('names every problem, changes nothing, and answers ready once the item is fixed', async () => {
    expect(xWeightedLength(LONG_FOR_X)).toBe(300);
    const accounts = await connectAccounts(bed.runtime, bed.ws.workspace, ['twitter']);
    const item = await makeContent(bed.runtime, bed.ws.workspace, {
      caption: LONG_FOR_X,
      content_type: 'text_only',
      target_platforms: ['twitter', 'linkedin'],
      status: 'approved',
    });
    const before = { row: await row(item.id), events: await eventCount() };
    bed.runtime.clock.advance(5_000);

    for (const preview of [await restPreview(item.id), await mcpPreview(item.id)]) {
      expect(preview).toMatchObject({ object: 'publish_preview', content_id: item.id, ready: false });
      const [x, linkedin] = preview.platforms;
      expect(x).toMatchObject({
        platform: 'twitter',
        ready: false,
        account: { id: accounts.twitter.id, username: accounts.twitter.username, mode: 'sandbox', status: 'active' },
      });
      expect(x.problems).toEqual([expect.stringContaining('text is 300 weighted characters; the limit is 280')]);
      expect(linkedin).toMatchObject({ platform: 'linkedin', ready: false, account: null });
      expect(linkedin.problems).toEqual([expect.stringContaining('No connected linkedin account')]);
    }
    // Nothing changed: not the status, not updated_at, no event, no publish token.
    expect(await row(item.id)).toEqual(before.row);
    expect(await eventCount()).toBe(before.events);
    expect(await publishTokensTaken()).toBe(0);

    await update(bed.runtime, bed.ws.workspace, item.id, { caption: 'Short enough for X' });
    await connectAccounts(bed.runtime, bed.ws.workspace, ['linkedin']);
    for (const preview of [await restPreview(item.id), await mcpPreview(item.id)]) {
      expect(preview.ready).toBe(true);
      expect(preview.platforms.map((p: { ready: boolean; problems: string[] }) => [p.ready, p.problems])).toEqual([
        [true, []],
        [true, []],
      ]);
    }
    expect(await publishTokensTaken()).toBe(0);
    // The one publish token of the minute is still there for the real call.
    const queued = await rest('POST', `/api/v1/content/${item.id}/publish`, {});
    expect(queued.status).toBe(202);
    expect(queued.body.publish_queued).toBe(true);
    expect(await publishTokensTaken()).toBe(1);
  });

  it('judges the media a content type needs and each platform override, as publishing does', async () => {
    await connectAccounts(bed.runtime, bed.ws.workspace, ['instagram', 'twitter']);
    const item = await makeContent(bed.runtime, bed.ws.workspace, {
      caption: 'A photo post',
      content_type: 'single_image',
      target_platforms: ['instagram', 'twitter'],
      platform_specific: { twitter: { caption: LONG_FOR_X } },
    });
    const preview = await restPreview(item.id);
    expect(preview.ready).toBe(false);
    const [instagram, x] = preview.platforms;
    expect(instagram.problems).toEqual([
      expect.stringContaining('content type single_image needs at least 1 media_urls'),
    ]);
    expect(x.problems).toEqual([expect.stringMatching(/text is 300 weighted characters.*needs at least 1 media_urls/)]);
  });

  it('refuses a dry run the way the real call refuses the item itself', async () => {
    const bare = await makeContent(bed.runtime, bed.ws.workspace, { content_type: 'text_only' });
    const noPlatforms = await rest('POST', `/api/v1/content/${bare.id}/publish`, { dry_run: true });
    expect(noPlatforms.status).toBe(422);
    expect(noPlatforms.body.error.code).toBe('no_target_platforms');
    await toolError(bed.client, 'service_publish_content', { id: bare.id, dry_run: true }, 'no_target_platforms');

    const archived = await makeContent(bed.runtime, bed.ws.workspace, { target_platforms: ['twitter'] });
    await rest('DELETE', `/api/v1/content/${archived.id}`);
    const refused = await rest('POST', `/api/v1/content/${archived.id}/publish`, { dry_run: true });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('invalid_state');

    const missing = await rest('POST', '/api/v1/content/00000000-0000-4000-8000-000000000000/publish', {
      dry_run: true,
    });
    expect(missing.status).toBe(404);
    const wrongType = await rest('POST', `/api/v1/content/${bare.id}/publish`, { dry_run: 'yes' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.details.fieldErrors.dry_run).toBeDefined();
    expect(await publishTokensTaken()).toBe(0);
  });

  it('publishes for real with dry_run false', async () => {
    await connectAccounts(bed.runtime, bed.ws.workspace, ['twitter']);
    const item = await makeContent(bed.runtime, bed.ws.workspace, {
      content_type: 'text_only',
      target_platforms: ['twitter'],
    });
    const queued = await toolResult(bed.client, 'service_publish_content', { id: item.id, dry_run: false });
    expect(queued).toMatchObject({ object: 'content', id: item.id, publish_queued: true });
    expect(await publishTokensTaken()).toBe(1);
  });

  it("answers 404 for another workspace's item", async () => {
    const { workspace } = await makeWorkspace(bed.runtime);
    await connectAccounts(bed.runtime, workspace, ['twitter']);
    const other = await makeContent(bed.runtime, workspace, {
      content_type: 'text_only',
      target_platforms: ['twitter'],
    });
    const answer = await rest('POST', `/api/v1/content/${other.id}/publish`, { dry_run: true });
    expect(answer.status).toBe(404);
    await toolError(bed.client, 'service_publish_content', { id: other.id, dry_run: true }, 'not_found');
  });
});
