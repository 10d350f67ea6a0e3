import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runAdmin } from '../../src/cli/admin.ts';
import { authenticateCredential } from '../../src/core/accounts/api-keys.ts';
import { ServiceError } from '../../src/core/errors.ts';
import { makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { issueTestToken } from '../helpers/oauth-tokens.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';

/** list-grants and revoke-grant: what an operator sees of, and does about, OAuth clients. */
describe('admin CLI: OAuth grants (in process)', () => {
  let runtime: TestRuntime;
  let ws: TestWorkspace;
  let out: string[];
  beforeEach(async () => {
    runtime = await testRuntime({ env: { PUBLIC_BASE_URL: 'https://api.example.test' } });
    ws = await makeWorkspace(runtime);
    out = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => vi.restoreAllMocks());

  const json = async (...args: string[]) => {
    const code = await runAdmin(runtime, [...args, '--json']);
    return { code, body: JSON.parse(out.at(-1)!) };
  };
  const tokenWorks = async (token: string) => {
    try {
      await authenticateCredential(runtime, `Bearer ${token}`);
      return true;
    } catch (error) {
      if (error instanceof ServiceError) return false;
      throw error;
    }
  };

  it('lists the clients holding tokens, with their scopes and last use, and never a token', async () => {
    const reader = await issueTestToken(runtime, ws.workspace.id, ['read'], 'Reader');
    runtime.clock.advance(1_000);
    const writer = await issueTestToken(runtime, ws.workspace.id, ['read', 'write'], 'Writer');
    const other = await makeWorkspace(runtime);
    await issueTestToken(runtime, other.workspace.id, ['read', 'write', 'publish'], 'Elsewhere');
    runtime.clock.advance(5_000);
    await authenticateCredential(runtime, `Bearer ${reader.accessToken}`);
    const usedAt = runtime.clock.now().toISOString();

    const { code, body } = await json('list-grants', '--workspace', ws.workspace.id);
    expect(code).toBe(0);
    expect(body.grants).toEqual([
      { client_id: reader.clientId, client_name: 'Reader', scopes: ['read'], last_used_at: usedAt },
      { client_id: writer.clientId, client_name: 'Writer', scopes: ['read', 'write'], last_used_at: null },
    ]);
    expect(out.join('\n')).not.toContain('np_oat_');
  });

  it('revokes a client at once: its tokens stop working, other clients keep theirs, and it leaves the list', async () => {
    const revoked = await issueTestToken(runtime, ws.workspace.id, ['read'], 'Revoked');
    const kept = await issueTestToken(runtime, ws.workspace.id, ['read'], 'Kept');
    expect(await tokenWorks(revoked.accessToken)).toBe(true);

    const { code, body } = await json('revoke-grant', '--workspace', ws.workspace.id, '--client', revoked.clientId);
    expect(code).toBe(0);
    // The access token and its refresh token.
    expect(body).toEqual({ client_id: revoked.clientId, revoked_tokens: 2 });
    expect(await tokenWorks(revoked.accessToken)).toBe(false);
    expect(await tokenWorks(kept.accessToken)).toBe(true);
    const listed = await json('list-grants', '--workspace', ws.workspace.id);
    expect(listed.body.grants.map((g: { client_id: string }) => g.client_id)).toEqual([kept.clientId]);
  });

  it('answers not_found for a client with nothing to revoke, and requires --client and --workspace', async () => {
    const again = await json('revoke-grant', '--workspace', ws.workspace.id, '--client', 'nobody');
    expect(again.code).toBe(1);
    expect(again.body.error.code).toBe('not_found');
    expect((await json('revoke-grant', '--workspace', ws.workspace.id)).body.error.code).toBe('invalid_body');
    expect((await json('list-grants', '--workspace', 'ws_missing')).body.error.code).toBe('not_found');
  });
});
