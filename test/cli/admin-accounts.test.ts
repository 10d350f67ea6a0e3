import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { socialAccounts } from '../../db/schema/index.ts';
import { loadConfig } from '../../src/core/config.ts';
import { openRuntime } from '../../src/core/runtime.ts';
import { runAdmin } from '../../src/cli/admin.ts';
import { makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call, startTestServer } from '../helpers/http.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';
import { runEntry, tempDataDir, withTestDatabase } from '../helpers/subprocess.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** connect-account and disconnect-account: the dashboard's stand-in for connecting social accounts. */
describe('admin CLI: social accounts (in process)', async () => {
  let runtime: TestRuntime;
  let ws: TestWorkspace;
  let out: string[];
  let err: string[];
  beforeEach(async () => {
    runtime = await testRuntime();
    ws = await makeWorkspace(runtime, { plan: 'free' });
    out = [];
    err = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
    vi.spyOn(console, 'error').mockImplementation((line: string) => void err.push(line));
  });
  afterEach(() => vi.restoreAllMocks());

  const admin = (...args: string[]) => runAdmin(runtime, args);
  const json = async (...args: string[]) => {
    const code = await admin(...args, '--json');
    const body = JSON.parse(out.at(-1)!);
    return { code, body };
  };
  const rows = async () => runtime.db.select().from(socialAccounts).all();

  it('connect-account connects with every option and answers {social_account_id}', async () => {
    const { code, body } = await json(
      'connect-account',
      '--workspace',
      ws.workspace.id,
      '--platform',
      'linkedin',
      '--username',
      '@acme',
      '--platform-user-id',
      '9876',
      '--display-name',
      'Acme Inc',
    );
    expect(code).toBe(0);
    expect(body).toEqual({ social_account_id: expect.stringMatching(UUID) });
    expect(await rows()).toEqual([
      expect.objectContaining({
        id: body.social_account_id,
        workspaceId: ws.workspace.id,
        platform: 'linkedin',
        platformUserId: '9876',
        username: 'acme',
        displayName: 'Acme Inc',
        mode: 'sandbox',
        status: 'active',
        isActive: true,
        scopes: [],
        accessTokenEncrypted: null,
      }),
    ]);
  });

  it('text mode prints a readable line', async () => {
    expect(
      await admin('connect-account', '--workspace', ws.workspace.id, '--platform', 'twitter', '--username', 'acme'),
    ).toBe(0);
    const [row] = await rows();
    expect(out).toEqual([`Connected twitter account @acme (platform user ${row.platformUserId}) as ${row.id}.`]);
    expect(await admin('disconnect-account', '--id', row.id)).toBe(0);
    expect(out[1]).toMatch(/^Disconnected twitter account @acme/);
  });

  it('disconnect-account marks the account inactive and answers {social_account_id, is_active:false}', async () => {
    const { body: connected } = await json(
      'connect-account',
      '--workspace',
      ws.workspace.id,
      '--platform',
      'tiktok',
      '--username',
      'acme',
    );
    const { code, body } = await json('disconnect-account', '--id', connected.social_account_id);
    expect(code).toBe(0);
    expect(body).toEqual({ social_account_id: connected.social_account_id, is_active: false });
    expect((await rows())[0]).toMatchObject({ status: 'disconnected', isActive: false });
  });

  it('refuses an unknown platform (naming the known ones), a missing option, past the plan limit, and unknown ids', async () => {
    const unknown = await json(
      'connect-account',
      '--workspace',
      ws.workspace.id,
      '--platform',
      'myspace',
      '--username',
      'acme',
    );
    expect(unknown.code).toBe(1);
    expect(unknown.body.error.code).toBe('invalid_body');
    expect(unknown.body.error.message).toMatch(/myspace.*twitter, linkedin, instagram, facebook, tiktok/);

    const missing = await json('connect-account', '--workspace', ws.workspace.id, '--platform', 'twitter');
    expect(missing.code).toBe(1);
    expect(missing.body.error.message).toContain('--username');

    // The free plan allows two active accounts.
    expect(
      (await json('connect-account', '--workspace', ws.workspace.id, '--platform', 'twitter', '--username', 'a')).code,
    ).toBe(0);
    expect(
      (await json('connect-account', '--workspace', ws.workspace.id, '--platform', 'facebook', '--username', 'a')).code,
    ).toBe(0);
    const over = await json(
      'connect-account',
      '--workspace',
      ws.workspace.id,
      '--platform',
      'tiktok',
      '--username',
      'a',
    );
    expect(over.code).toBe(1);
    expect(over.body.error.code).toBe('quota_exceeded');

    const noWorkspace = await json(
      'connect-account',
      '--workspace',
      '00000000-0000-4000-8000-000000000000',
      '--platform',
      'twitter',
      '--username',
      'a',
    );
    expect(noWorkspace.body.error.code).toBe('not_found');
    const noAccount = await json('disconnect-account', '--id', '00000000-0000-4000-8000-000000000000');
    expect(noAccount.code).toBe(1);
    expect(noAccount.body.error.code).toBe('not_found');
    expect((await json('disconnect-account')).body.error.message).toContain('--id');
    expect(await rows()).toHaveLength(2);
  });

  it('lists both commands in the usage', async () => {
    expect(await admin('--help')).toBe(0);
    expect(out[0]).toContain('connect-account --workspace W --platform');
    expect(out[0]).toContain('disconnect-account --id A');
  });
});

describe('admin CLI: social accounts (subprocess)', async () => {
  const data = tempDataDir('admin-accounts');
  afterAll(() => data.remove());

  it('an account connected from the shell shows on GET /api/v1/social-accounts of a server on the same file', async () => {
    const run = async (...args: string[]) => {
      const result = await runEntry(['admin', ...args, '--json'], { DATA_DIR: data.dir });
      expect(result.code, result.stderr + result.stdout).toBe(0);
      return JSON.parse(result.stdout);
    };
    const created = await run('create-workspace', '--name', 'Shell Co');
    const connected = await run(
      'connect-account',
      '--workspace',
      created.workspace_id,
      '--platform',
      'instagram',
      '--username',
      'shellco',
    );
    const runtime = await openRuntime({
      config: loadConfig(withTestDatabase({ DATA_DIR: data.dir, PUBLIC_BASE_URL: 'http://127.0.0.1:3000' })),
    });
    const server = await startTestServer(runtime);
    try {
      const res = await call(server, 'GET', '/api/v1/social-accounts', {
        headers: { authorization: `Bearer ${created.api_key}` },
      });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([
        expect.objectContaining({
          id: connected.social_account_id,
          platform: 'instagram',
          username: 'shellco',
          is_active: true,
        }),
      ]);
    } finally {
      await server.close();
      await runtime.db.$store.close();
    }
  }, 60_000);
});
