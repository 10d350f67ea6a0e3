import type { Client } from '@modelcontextprotocol/client';
import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { events } from '../../db/schema/index.ts';
import type { ContentResource } from '../../src/core/content/serialize.ts';
import { makeContent, makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { connectMcp } from '../helpers/mcp.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';

describe('MCP tools: cross-workspace isolation', () => {
  let runtime: TestRuntime;
  let a: TestWorkspace;
  let b: TestWorkspace;
  let clientA: Client;
  let clientB: Client;
  let itemA: ContentResource;
  const eventCountOfA = async () =>
    (await runtime.db.select().from(events).where(eq(events.workspaceId, a.workspace.id)).all()).length;

  beforeEach(async () => {
    runtime = await testRuntime();
    a = await makeWorkspace(runtime);
    b = await makeWorkspace(runtime, { name: 'Workspace B', plan: 'business' });
    clientA = await connectMcp(runtime, a.apiKey);
    clientB = await connectMcp(runtime, b.apiKey);
    itemA = await makeContent(runtime, a.workspace, {
      caption: 'Secret plan of A',
      target_platforms: ['twitter'],
      status: 'approved',
    });
    await makeContent(runtime, b.workspace, { caption: 'B own item' });
    runtime.clock.advance(1000);
  });

  it("answers not_found to B on get, update, delete and publish of A's item, with the message of a missing id", async () => {
    const missing = await toolError(
      clientB,
      'service_get_content',
      { id: '00000000-0000-4000-8000-000000000000' },
      'not_found',
    );
    const calls: Array<[string, Record<string, unknown>]> = [
      ['service_get_content', { id: itemA.id }],
      ['service_update_content', { id: itemA.id, caption: 'Hijacked', status: 'rejected' }],
      ['service_delete_content', { id: itemA.id }],
      ['service_publish_content', { id: itemA.id }],
      ['service_publish_content', { id: itemA.id, scheduled_for: '2026-03-12T09:00:00Z' }],
    ];
    const before = await eventCountOfA();
    for (const [name, args] of calls) {
      const error = await toolError(clientB, name, args, 'not_found');
      expect(error.message, name).toBe(missing.message);
    }
    expect(await toolResult(clientA, 'service_get_content', { id: itemA.id })).toEqual(itemA);
    expect(await eventCountOfA()).toBe(before);
  });

  it("never lists A's items to B, whatever the filter: each page holds exactly B's matching items", async () => {
    // Each filter matches items of both workspaces, so no page passes by being empty.
    const archivedA = await makeContent(runtime, a.workspace, { caption: 'A archived' });
    await toolResult(clientA, 'service_delete_content', { id: archivedA.id });
    await makeContent(runtime, a.workspace, { caption: 'A carousel', content_type: 'carousel' });
    await makeContent(runtime, b.workspace, { caption: 'B approved', status: 'approved' });
    await makeContent(runtime, b.workspace, { caption: 'B carousel', content_type: 'carousel' });
    const archivedB = await makeContent(runtime, b.workspace, { caption: 'B archived' });
    await toolResult(clientB, 'service_delete_content', { id: archivedB.id });
    const filters: Array<[Record<string, unknown>, string[]]> = [
      [{}, ['B approved', 'B carousel', 'B own item']],
      [{ status: 'approved' }, ['B approved']],
      [{ status: 'archived' }, ['B archived']],
      [{ content_type: 'carousel' }, ['B carousel']],
      [{ limit: 100 }, ['B approved', 'B carousel', 'B own item']],
    ];
    for (const [filter, expected] of filters) {
      const page = await toolResult(clientB, 'service_list_content', filter);
      const captions = page.data.map((c: { caption: string }) => c.caption).sort();
      expect(captions, JSON.stringify(filter)).toEqual(expected);
      // A has items matching the same filter: B's page leaves them out, not merely finds none.
      const pageA = await toolResult(clientA, 'service_list_content', filter);
      expect(pageA.data.length, JSON.stringify(filter)).toBeGreaterThan(0);
    }
  });

  it("does not let a cursor made from A's item leak A's items to B", async () => {
    for (let i = 0; i < 3; i += 1) {
      await makeContent(runtime, a.workspace, { caption: `A page item ${i}` });
      runtime.clock.advance(1000);
    }
    const pageA = await toolResult(clientA, 'service_list_content', { limit: 1 });
    expect(pageA.has_more).toBe(true);
    const pageB = await toolResult(clientB, 'service_list_content', { cursor: pageA.next_cursor, limit: 100 });
    for (const item of pageB.data) expect(item.caption).toBe('B own item');
  });

  it("reports B's own account, never A's", async () => {
    const account = await toolResult(clientB, 'service_get_account');
    expect(account).toMatchObject({
      workspace_id: b.workspace.id,
      org_id: b.workspace.orgId,
      name: 'Workspace B',
      plan: 'business',
    });
    expect(account.org_id).not.toBe(a.workspace.orgId);
    expect(account.workspace_id).not.toBe(a.workspace.id);
  });
});
