import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '../helpers/factories.ts';
import { call } from '../helpers/http.ts';
import { connectMcp, useMcpTestbed } from '../helpers/mcp.ts';
import { eventsOf } from '../helpers/rest-expect.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';

/** The six campaign tools end to end through the SDK client. */
describe('MCP campaign tools', () => {
  const bed = useMcpTestbed();

  it('create, get, list, update, launch and delete answer what the REST routes answer', async () => {
    const created = await toolResult(bed.client, 'service_create_campaign', {
      name: 'Autumn',
      posts_per_day: 2,
      content_mix: { carousel: 1 },
    });
    expect(created).toMatchObject({
      object: 'campaign',
      name: 'Autumn',
      status: 'draft',
      posts_per_day: 2,
      campaign_length_days: 7,
      total_posts: 14,
    });
    const rest = (method: string, path: string) => call(bed.server, method, path, { headers: bed.ws.headers });
    expect(await toolResult(bed.client, 'service_get_campaign', { id: created.id })).toEqual(
      (await rest('GET', `/api/v1/campaigns/${created.id}`)).body,
    );
    const listed = await toolResult(bed.client, 'service_list_campaigns', { limit: 10 });
    expect(listed).toEqual({ object: 'list', data: [created], has_more: false, next_cursor: null });

    const updated = await toolResult(bed.client, 'service_update_campaign', {
      id: created.id,
      campaign_length_days: 30,
    });
    expect(updated).toMatchObject({ campaign_length_days: 30, total_posts: 14 });

    const launched = await toolResult(bed.client, 'service_launch_campaign', { id: created.id });
    expect(launched).toMatchObject({
      id: created.id,
      status: 'active',
      start_date: bed.runtime.clock.now().toISOString(),
    });
    expect(
      (await eventsOf(bed.runtime, bed.ws.workspace.id)).filter((e) => e.type === 'campaign.launched'),
    ).toHaveLength(1);
    const again = await toolError(bed.client, 'service_launch_campaign', { id: created.id }, 'invalid_state');
    expect(again.message).toMatch(/draft or paused/);

    expect(await toolResult(bed.client, 'service_delete_campaign', { id: created.id })).toEqual({
      id: created.id,
      object: 'campaign',
      deleted: true,
    });
    await toolError(bed.client, 'service_get_campaign', { id: created.id }, 'not_found');
  });

  it("refuses bad arguments with the API's codes, and another workspace's campaign is not found", async () => {
    const bad = await toolError(
      bed.client,
      'service_create_campaign',
      { name: 'x', content_mix: { reel: 1 } },
      'invalid_body',
    );
    expect(bad.details.fieldErrors.content_mix).toBeDefined();
    const created = await toolResult(bed.client, 'service_create_campaign', { name: 'Mine' });
    await toolError(bed.client, 'service_update_campaign', { id: created.id }, 'no_updates');

    const stranger = await makeWorkspace(bed.runtime);
    const theirs = await connectMcp(bed.runtime, stranger.apiKey);
    try {
      for (const name of ['service_get_campaign', 'service_launch_campaign', 'service_delete_campaign']) {
        await toolError(theirs, name, { id: created.id }, 'not_found');
      }
      await toolError(theirs, 'service_update_campaign', { id: created.id, name: 'Taken' }, 'not_found');
      expect((await toolResult(theirs, 'service_list_campaigns', {})).data).toEqual([]);
    } finally {
      await theirs.close();
    }
    expect(await toolResult(bed.client, 'service_get_campaign', { id: created.id })).toEqual(created);
  });
});
