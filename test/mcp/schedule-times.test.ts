import { describe, expect, it } from 'vitest';
import { makeContent } from '../helpers/factories.ts';
import { useMcpTestbed } from '../helpers/mcp.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';

describe('MCP: times to publish at are bounded, and scheduling refuses a time already past', () => {
  const bed = useMcpTestbed();

  it('update, create and publish answer invalid_body naming scheduled_for, and the item keeps its time', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, {
      status: 'scheduled',
      scheduled_for: '2026-03-10T13:00:00Z',
      target_platforms: ['linkedin'],
    });
    // What a client sends to give an item a new time: its id and the time (the MCP App's Move sends a day to app_move_content).
    for (const args of [
      { id: item.id, scheduled_for: '0000-01-01T00:00:00Z' },
      { id: item.id, scheduled_for: '9999-12-31T23:00:00-05:00' },
      { id: item.id, scheduled_for: '2026-03-09T12:00:00Z' },
    ]) {
      const error = await toolError(bed.client, 'service_update_content', args, 'invalid_body');
      expect(error.details.fieldErrors.scheduled_for).toHaveLength(1);
    }
    for (const args of [
      { caption: 'x', status: 'scheduled', scheduled_for: '0000-01-01T00:00:00Z' },
      { caption: 'x', status: 'scheduled', scheduled_for: '2026-03-09T12:00:00Z' },
    ]) {
      const error = await toolError(bed.client, 'service_create_content', args, 'invalid_body');
      expect(error.details.fieldErrors.scheduled_for).toHaveLength(1);
    }
    await toolError(
      bed.client,
      'service_publish_content',
      { id: item.id, scheduled_for: '0000-01-01T00:00:00Z' },
      'invalid_body',
    );
    const read = await toolResult(bed.client, 'service_get_content', { id: item.id });
    expect(read).toMatchObject({ status: 'scheduled', scheduled_for: '2026-03-10T13:00:00.000Z' });
  });
});
