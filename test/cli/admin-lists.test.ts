import { describe, expect, it } from 'vitest';
import { acceptInvitation } from '../../src/core/people/invitations.ts';
import { makeWorkspace } from '../helpers/factories.ts';
import { call, startTestServer } from '../helpers/http.ts';
import { runAdminCaptured } from '../helpers/admin-cli.ts';
import { testRuntime } from '../helpers/runtime.ts';

/** list-keys and list-users: what an admin sees of a workspace's keys and people from the shell. */
describe('admin CLI: list-keys and list-users', () => {
  const run = runAdminCaptured;

  it('list-keys shows name, np_live_… with the last 4, created, last used and expiry, never a whole key', async () => {
    const runtime = await testRuntime();
    const ws = await makeWorkspace(runtime);
    const created = await run(
      runtime,
      'create-key',
      '--workspace',
      ws.workspace.id,
      '--name',
      'Zapier',
      '--expires-at',
      '2027-01-01T00:00:00Z',
      '--json',
    );
    expect(created.code).toBe(0);
    const { key_id: keyId, api_key: apiKey } = JSON.parse(created.out);
    // Using the key is what "last used" shows.
    const server = await startTestServer(runtime);
    try {
      expect((await call(server, 'GET', '/api/v1/me', { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(
        200,
      );
    } finally {
      await server.close();
    }
    await run(runtime, 'revoke-key', '--key-id', ws.keyId);

    const listed = await run(runtime, 'list-keys', '--workspace', ws.workspace.id, '--json');
    expect(listed.code).toBe(0);
    expect(listed.out).not.toContain(apiKey);
    expect(listed.out).not.toContain(ws.apiKey);
    const { keys } = JSON.parse(listed.out);
    expect(keys).toEqual([
      {
        key_id: keyId,
        name: 'Zapier',
        key: `np_live_…${apiKey.slice(-4)}`,
        created_at: runtime.clock.now().toISOString(),
        last_used_at: runtime.clock.now().toISOString(),
        expires_at: '2027-01-01T00:00:00.000Z',
        revoked_at: null,
      },
      expect.objectContaining({
        key_id: ws.keyId,
        name: 'Unnamed key',
        key: `np_live_…${ws.apiKey.slice(-4)}`,
        last_used_at: null,
        revoked_at: runtime.clock.now().toISOString(),
      }),
    ]);
    const text = await run(runtime, 'list-keys', '--workspace', ws.workspace.id);
    expect(text.out).toContain(`np_live_…${apiKey.slice(-4)}`);
    expect(text.out).toContain('Zapier');
    expect(text.out).not.toContain(apiKey);
    expect((await run(runtime, 'create-key', '--workspace', ws.workspace.id, '--name', ' ')).code).toBe(1);
    expect((await run(runtime, 'list-keys', '--workspace', 'ws_nope')).code).toBe(1);
  });

  it('list-users shows each member with role, then the invitations not accepted yet; the last admin cannot be demoted', async () => {
    const runtime = await testRuntime();
    const { workspace } = await makeWorkspace(runtime);
    const other = await makeWorkspace(runtime);
    const invite = async (email: string, role: string, ws = workspace.id) =>
      (await run(runtime, 'create-user', '--workspace', ws, '--email', email, '--role', role, '--json')).out;
    const admin = JSON.parse(await invite('boss@example.com', 'admin'));
    await invite('ed@example.com', 'editor');
    await invite('elsewhere@example.com', 'viewer', other.workspace.id);
    const token = new URL(admin.invite_url).searchParams.get('token')!;
    await acceptInvitation(runtime, { token, password: 'the boss password', address: 'x' });

    // Only the boss accepted: ed is invited, not a member yet.
    const listed = JSON.parse((await run(runtime, 'list-users', '--workspace', workspace.id, '--json')).out);
    expect(listed.users.map((u: any) => [u.email, u.role, u.has_password])).toEqual([
      ['boss@example.com', 'admin', true],
    ]);
    expect(listed.invitations.map((i: any) => [i.email, i.role])).toEqual([['ed@example.com', 'editor']]);
    const text = (await run(runtime, 'list-users', '--workspace', workspace.id)).out;
    expect(text).toMatch(/admin\s+boss@example.com\n/);
    expect(text).toMatch(/editor\s+ed@example.com {2}\(invited, not accepted yet; until /);
    expect(text).not.toContain('elsewhere');

    const demoted = await run(
      runtime,
      'create-user',
      '--workspace',
      workspace.id,
      '--email',
      'boss@example.com',
      '--role',
      'viewer',
    );
    expect(demoted.code).toBe(1);
    expect(demoted.out).toMatch(/last admin/);
  });
});
