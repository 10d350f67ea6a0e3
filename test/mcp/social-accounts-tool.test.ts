import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { socialAccounts } from '../../db/schema/index.ts';
import { connectSocialAccount, disconnectSocialAccount } from '../../src/core/social-accounts/operations.ts';
import { storeTokens } from '../../src/core/social-accounts/tokens.ts';
import { makeWorkspace } from '../helpers/factories.ts';
import { call } from '../helpers/http.ts';
import { connectMcp, useMcpTestbed } from '../helpers/mcp.ts';
import { toolError, toolResult } from '../helpers/tool-calls.ts';

/** service_list_social_accounts: GET /social-accounts through the SDK client. */
describe('MCP service_list_social_accounts', () => {
  const bed = useMcpTestbed();

  it('is listed read-only, takes no arguments, and tells the agent what target_platforms needs', async () => {
    const { tools } = await bed.client.listTools();
    const tool = tools.find((t) => t.name === 'service_list_social_accounts');
    expect(tool).toBeDefined();
    expect(tool!.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(Object.keys(tool!.inputSchema.properties ?? {})).toEqual([]);
    expect(tool!.description).toMatch(/target_platforms/);
    expect(tool!.description).toMatch(/is_active/);
    expect(tool!.description).toMatch(/needs_reconnect/);
    // Placed as in the contract's tool table: after the account and brand profile tools.
    const names = tools.map((t) => t.name);
    expect(names.indexOf('service_list_social_accounts')).toBe(names.indexOf('service_update_brand_profile') + 1);
  });

  it('answers what GET /api/v1/social-accounts answers, inactive accounts included', async () => {
    const twitter = await connectSocialAccount(bed.runtime, {
      workspaceId: bed.ws.workspace.id,
      platform: 'twitter',
      username: 'acme',
    });
    bed.runtime.clock.advance(1000);
    const linkedin = await connectSocialAccount(bed.runtime, {
      workspaceId: bed.ws.workspace.id,
      platform: 'linkedin',
      username: 'acme',
    });
    await disconnectSocialAccount(bed.runtime, linkedin.id);

    const listed = await toolResult(bed.client, 'service_list_social_accounts');
    const rest = await call(bed.server, 'GET', '/api/v1/social-accounts', { headers: bed.ws.headers });
    expect(rest.status).toBe(200);
    expect(listed).toEqual(rest.body);
    expect(listed).toEqual({
      object: 'list',
      data: [{ ...linkedin, status: 'disconnected', is_active: false }, twitter],
      has_more: false,
      next_cursor: null,
    });
    expect(twitter).toMatchObject({
      mode: 'sandbox',
      status: 'active',
      is_active: true,
      scopes: [],
      token_expires_at: null,
      reconnect_by: null,
      profile_url: null,
    });
  });

  it("shows a live account's token expiry and scopes, never its tokens, as the route does", async () => {
    const account = await connectSocialAccount(bed.runtime, {
      workspaceId: bed.ws.workspace.id,
      platform: 'twitter',
      username: 'acme',
    });
    await bed.runtime.db
      .update(socialAccounts)
      .set({ mode: 'live', profileUrl: 'https://x.com/acme' })
      .where(eq(socialAccounts.id, account.id))
      .run();
    await storeTokens(bed.runtime, account.id, {
      accessToken: 'x-access-token-secret',
      refreshToken: 'x-refresh-token-secret',
      expiresAt: new Date('2026-03-10T14:00:30.000Z'),
      scopes: ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'],
    });

    const listed = await toolResult(bed.client, 'service_list_social_accounts');
    const rest = await call(bed.server, 'GET', '/api/v1/social-accounts', { headers: bed.ws.headers });
    expect(listed).toEqual(rest.body);
    expect(listed.data).toEqual([
      {
        ...account,
        mode: 'live',
        scopes: ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'],
        token_expires_at: '2026-03-10T14:00:30.000Z',
        profile_url: 'https://x.com/acme',
      },
    ]);
    for (const text of [JSON.stringify(listed), JSON.stringify(rest.body)]) {
      expect(text).not.toContain('x-access-token-secret');
      expect(text).not.toContain('x-refresh-token-secret');
    }
  });

  it("never shows another workspace's accounts", async () => {
    const other = await makeWorkspace(bed.runtime);
    await connectSocialAccount(bed.runtime, {
      workspaceId: other.workspace.id,
      platform: 'tiktok',
      username: 'theirs',
    });
    expect((await toolResult(bed.client, 'service_list_social_accounts')).data).toEqual([]);
    const theirs = await connectMcp(bed.runtime, other.apiKey);
    try {
      expect((await toolResult(theirs, 'service_list_social_accounts')).data.map((a: any) => a.username)).toEqual([
        'theirs',
      ]);
    } finally {
      await theirs.close();
    }
  });

  it('refuses a caller without a valid key, like the route', async () => {
    const anonymous = await connectMcp(bed.runtime, undefined);
    try {
      await toolError(anonymous, 'service_list_social_accounts', {}, 'missing_key');
    } finally {
      await anonymous.close();
    }
  });
});
