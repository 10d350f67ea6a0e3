import { describe, expect, it } from 'vitest';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { connectMcp } from '../helpers/mcp.ts';
import { issueTestToken } from '../helpers/oauth-tokens.ts';
import { makePerson } from '../helpers/people.ts';
import { testRuntime } from '../helpers/runtime.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';

describe('MCP: a token bound to a person acts with their role', () => {
  it("an editor's token creates content (created_by the person) and is refused forbidden when approving", async () => {
    const runtime = await testRuntime();
    const { workspace } = await makeWorkspace(runtime);
    const editor = await makePerson(runtime, workspace.id, 'editor');
    const { accessToken } = await issueTestToken(runtime, workspace.id, ['read', 'write'], 'Assistant', editor.userId);
    const client = await connectMcp(runtime, accessToken);
    try {
      const created = await toolResult(client, 'service_create_content', { caption: 'From the assistant' });
      expect(created.created_by).toEqual({ type: 'user', id: editor.userId });
      const refused = await toolError(
        client,
        'service_update_content',
        { id: created.id, status: 'approved' },
        'forbidden',
      );
      expect(refused.message).toMatch(/approver/);
      const pending = await makeContent(runtime, workspace, {
        status: 'scheduled',
        scheduled_for: '2026-12-15T14:30:00Z',
      });
      const listed = await toolResult(client, 'service_list_content', {
        scheduled_from: '2026-12-15T00:00:00Z',
        scheduled_to: '2026-12-16T00:00:00Z',
      });
      expect(listed.data.map((item: { id: string }) => item.id)).toEqual([pending.id]);
    } finally {
      await client.close();
    }
  });
});
