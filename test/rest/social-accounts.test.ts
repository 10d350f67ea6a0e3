import { describe, expect, it } from 'vitest';
import { connectSocialAccount, disconnectSocialAccount } from '../../src/core/social-accounts/operations.ts';
import { makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { baseEnv, expectError } from '../helpers/rest-expect.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** GET /api/v1/social-accounts: the workspace's full set, newest first. */
describe('REST social accounts', () => {
  const bed = useRestTestbed({ env: baseEnv });

  const list = (headers: Record<string, string> = bed.ws.headers) =>
    call(bed.server, 'GET', '/api/v1/social-accounts', { headers });
  const connect = async (
    workspace: TestWorkspace,
    platform: string,
    username: string,
    extra: { platformUserId?: string; displayName?: string } = {},
  ) => connectSocialAccount(bed.runtime, { workspaceId: workspace.workspace.id, platform, username, ...extra });

  it('answers an empty list envelope for a workspace without accounts', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
    expect(res.headers.get('x-ratelimit-limit')).toBe('300');
  });

  it('lists the full set, active and inactive, newest first, with every field', async () => {
    const twitter = await connect(bed.ws, 'twitter', '@acme', { platformUserId: '1001', displayName: 'Acme' });
    bed.runtime.clock.advance(1000);
    const linkedin = await connect(bed.ws, 'linkedin', 'acme-co');
    bed.runtime.clock.advance(1000);
    const instagram = await connect(bed.ws, 'instagram', 'acme.gram');
    await disconnectSocialAccount(bed.runtime, linkedin.id);

    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('list');
    expect(res.body.has_more).toBe(false);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.data.map((a: any) => a.id)).toEqual([instagram.id, linkedin.id, twitter.id]);
    expect(res.body.data[2]).toEqual({
      id: expect.stringMatching(UUID),
      object: 'social_account',
      platform: 'twitter',
      platform_user_id: '1001',
      username: 'acme',
      display_name: 'Acme',
      mode: 'sandbox',
      status: 'active',
      is_active: true,
      scopes: [],
      token_expires_at: null,
      reconnect_by: null,
      profile_url: null,
      connected_at: '2026-03-10T12:00:30.000Z',
      created_at: '2026-03-10T12:00:30.000Z',
    });
    expect(res.body.data[1]).toMatchObject({
      platform: 'linkedin',
      status: 'disconnected',
      is_active: false,
      display_name: null,
    });
    expect(res.body.data[0]).toMatchObject({
      platform: 'instagram',
      status: 'active',
      is_active: true,
      created_at: '2026-03-10T12:00:32.000Z',
    });
  });

  it('never shows another workspace its accounts, even for the same platform user', async () => {
    const other = await makeWorkspace(bed.runtime);
    const mine = await connect(bed.ws, 'twitter', 'mine', { platformUserId: '42' });
    await connect(other, 'twitter', 'theirs', { platformUserId: '42' });
    await connect(other, 'tiktok', 'theirs');
    const res = await list();
    expect(res.body.data.map((a: any) => a.id)).toEqual([mine.id]);
    const theirs = await list(other.headers);
    expect(theirs.body.data.map((a: any) => a.username)).toEqual(['theirs', 'theirs']);
    expect(theirs.body.data.map((a: any) => a.id)).not.toContain(mine.id);
  });

  it('needs an API key and answers 405 for other methods', async () => {
    expectError(await call(bed.server, 'GET', '/api/v1/social-accounts'), 401, 'missing_key');
    const post = await call(bed.server, 'POST', '/api/v1/social-accounts', { headers: bed.ws.headers, body: {} });
    expectError(post, 405, 'method_not_allowed');
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expectError(
      await call(bed.server, 'DELETE', '/api/v1/social-accounts', { headers: bed.ws.headers }),
      405,
      'method_not_allowed',
    );
  });
});
