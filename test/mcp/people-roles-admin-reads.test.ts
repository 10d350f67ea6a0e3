import { describe, expect, it } from 'vitest';
import type { Role } from '../../db/schema/index.ts';
import { connectSocialAccount } from '../../src/core/social-accounts/operations.ts';
import { makeWebhook, makeWorkspace } from '../helpers/factories.ts';
import { connectMcp } from '../helpers/mcp.ts';
import { issueTestToken } from '../helpers/oauth-tokens.ts';
import { makePerson } from '../helpers/people.ts';
import { testRuntime } from '../helpers/runtime.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';

/** The same rule over MCP: webhooks are an admin's to read, the accounts list an editor's and above. */
describe("MCP: reading webhooks and social accounts with a person's token", () => {
  async function world() {
    const runtime = await testRuntime({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    const ws = await makeWorkspace(runtime);
    await makeWebhook(runtime, ws.workspace, { url: 'http://127.0.0.1:9/hook?token=receiver-token-4f7c' });
    await connectSocialAccount(runtime, { workspaceId: ws.workspace.id, platform: 'linkedin', username: 'brand' });
    const clientFor = async (role: Role | null) => {
      const userId = role === null ? null : (await makePerson(runtime, ws.workspace.id, role)).userId;
      const { accessToken } = await issueTestToken(runtime, ws.workspace.id, ['read'], 'Assistant', userId);
      return connectMcp(runtime, accessToken);
    };
    return { ws, runtime, clientFor };
  }

  it("a viewer's token is refused forbidden on service_list_webhooks and service_list_social_accounts", async () => {
    const { clientFor } = await world();
    const client = await clientFor('viewer');
    try {
      for (const tool of ['service_list_webhooks', 'service_list_social_accounts']) {
        const refused = await toolError(client, tool, {}, 'forbidden');
        expect(refused.message).toMatch(/you are a viewer/);
        expect(JSON.stringify(refused)).not.toContain('receiver-token');
      }
    } finally {
      await client.close();
    }
  });

  it("an editor's token lists the accounts but not the webhooks; an admin's and a key's grant list both", async () => {
    const { ws, runtime, clientFor } = await world();
    const editor = await clientFor('editor');
    try {
      const accounts = await toolResult(editor, 'service_list_social_accounts');
      expect(accounts.data.map((a: { username: string }) => a.username)).toEqual(['brand']);
      await toolError(editor, 'service_list_webhooks', {}, 'forbidden');
    } finally {
      await editor.close();
    }
    for (const client of [await clientFor('admin'), await clientFor(null), await connectMcp(runtime, ws.apiKey)]) {
      try {
        expect((await toolResult(client, 'service_list_webhooks')).data).toHaveLength(1);
        expect((await toolResult(client, 'service_list_social_accounts')).data).toHaveLength(1);
      } finally {
        await client.close();
      }
    }
  });
});
