import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listWorkspaces } from '../../src/core/accounts/workspaces.ts';
import { ManualClock } from '../../src/core/clock.ts';
import { loadConfig } from '../../src/core/config.ts';
import type { Runtime } from '../../src/core/context.ts';
import { openRuntime } from '../../src/core/runtime.ts';
import { call, startTestServer, type TestServer } from '../helpers/http.ts';
import { runEntry, tempDataDir, type Finished, withTestDatabase } from '../helpers/subprocess.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const API_KEY = /^np_live_[0-9A-Za-z]{32,}$/;
const SLOW = 60_000;

/** The admin CLI as an operator runs it, against a database file that an in-process server also opens. */
describe('admin CLI (subprocess)', () => {
  const data = tempDataDir('admin-cli');
  let runtime: Runtime;
  let server: TestServer;

  const admin = (...args: string[]): Promise<Finished> => runEntry(['admin', ...args], { DATA_DIR: data.dir });
  const adminJson = async (...args: string[]): Promise<any> => {
    const result = await admin(...args, '--json');
    expect(result.code, result.stderr + result.stdout).toBe(0);
    return JSON.parse(result.stdout);
  };
  /** A failing command: non-zero exit and, with --json, one JSON error object. */
  const adminJsonError = async (...args: string[]): Promise<{ code: string; message: string; details?: any }> => {
    const result = await admin(...args, '--json');
    expect(result.code, result.stdout).not.toBe(0);
    const body = JSON.parse((result.stdout.trim() || result.stderr.trim()) as string);
    expect(Object.keys(body)).toEqual(['error']);
    expect(typeof body.error.code).toBe('string');
    expect(body.error.message.length).toBeGreaterThan(0);
    return body.error;
  };
  const me = (apiKey: string) => call(server, 'GET', '/api/v1/me', { headers: { authorization: `Bearer ${apiKey}` } });
  const listContent = (apiKey: string) =>
    call(server, 'GET', '/api/v1/content', { headers: { authorization: `Bearer ${apiKey}` } });

  let workspaceId: string;
  let firstKey: string;

  beforeAll(async () => {
    // The CLI creates and migrates the file first; the in-process server then opens the same file.
    const created = await adminJson('create-workspace', '--name', 'Acme Studio');
    workspaceId = created.workspace_id;
    firstKey = created.api_key;
    expect(created).toEqual({
      workspace_id: expect.stringMatching(UUID),
      org_id: expect.stringMatching(/^org_\w+$/),
      api_key: expect.stringMatching(API_KEY),
    });
    runtime = await openRuntime({
      config: loadConfig(withTestDatabase({ DATA_DIR: data.dir, PUBLIC_BASE_URL: 'http://127.0.0.1:3000' })),
    });
    server = await startTestServer(runtime);
  }, SLOW);

  afterAll(async () => {
    await server?.close();
    await runtime?.db.$store.close();
    data.remove();
  });

  it('create-workspace gives a key that works against the server on the same database, pro and active by default', async () => {
    const res = await me(firstKey);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ workspace_id: workspaceId, plan: 'pro', plan_status: 'active', is_active: true });
    expect(res.body.org_id).toMatch(/^org_/);
    expect((await listContent(firstKey)).status).toBe(200);
  });

  it(
    'create-workspace takes --plan and --status',
    async () => {
      const created = await adminJson(
        'create-workspace',
        '--name',
        'Trial Co',
        '--plan',
        'starter',
        '--status',
        'trialing',
      );
      expect(created.workspace_id).toMatch(UUID);
      expect(created.workspace_id).not.toBe(workspaceId);
      const res = await me(created.api_key);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        org_id: created.org_id,
        plan: 'starter',
        plan_status: 'trialing',
        is_active: true,
        is_trialing: true,
      });
    },
    SLOW,
  );

  it(
    'create-key issues a working key; --expires-at with an offset sets when it stops working',
    async () => {
      const plain = await adminJson('create-key', '--workspace', workspaceId);
      expect(plain).toEqual({ key_id: expect.stringMatching(UUID), api_key: expect.stringMatching(API_KEY) });
      expect(plain.api_key).not.toBe(firstKey);
      expect((await me(plain.api_key)).body.workspace_id).toBe(workspaceId);

      const expiring = await adminJson(
        'create-key',
        '--workspace',
        workspaceId,
        '--expires-at',
        '2030-01-01T00:00:00+02:00',
      );
      expect((await me(expiring.api_key)).status).toBe(200);
      // The expiry is 2029-12-31T22:00:00Z: look at the same file from just before and at that instant.
      const clock = new ManualClock('2029-12-31T21:59:59Z');
      const later = await openRuntime({ config: runtime.config, clock });
      const laterServer = await startTestServer(later);
      try {
        const headers = { authorization: `Bearer ${expiring.api_key}` };
        expect((await call(laterServer, 'GET', '/api/v1/me', { headers })).status).toBe(200);
        clock.set('2029-12-31T22:00:00Z');
        const expired = await call(laterServer, 'GET', '/api/v1/me', { headers });
        expect(expired.status).toBe(401);
        expect(expired.body.error.code).toBe('expired_key');
        expect(
          (await call(laterServer, 'GET', '/api/v1/me', { headers: { authorization: `Bearer ${plain.api_key}` } }))
            .status,
        ).toBe(200);
      } finally {
        await laterServer.close();
        await later.db.$store.close();
      }
    },
    SLOW,
  );

  it(
    'revoke-key makes that key invalid_key at once and leaves the other keys working',
    async () => {
      const extra = await adminJson('create-key', '--workspace', workspaceId);
      expect((await me(extra.api_key)).status).toBe(200);
      const revoked = await adminJson('revoke-key', '--key-id', extra.key_id);
      expect(revoked).toMatchObject({ key_id: extra.key_id, revoked: true });
      const res = await me(extra.api_key);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('invalid_key');
      expect((await me(firstKey)).status).toBe(200);

      const unknown = await adminJsonError('revoke-key', '--key-id', '00000000-0000-4000-8000-000000000000');
      expect(unknown.code).toBe('not_found');
    },
    SLOW,
  );

  it(
    'set-plan changes plan and status: past_due gives 402 on content, free gives 403, /me still answers',
    async () => {
      const created = await adminJson('create-workspace', '--name', 'Billing Test');
      const key = created.api_key;

      const pastDue = await adminJson('set-plan', '--workspace', created.workspace_id, '--status', 'past_due');
      expect(pastDue).toMatchObject({ workspace_id: created.workspace_id, plan: 'pro', plan_status: 'past_due' });
      const refused = await listContent(key);
      expect(refused.status).toBe(402);
      expect(refused.body.error.code).toBe('payment_required');
      expect((await me(key)).body).toMatchObject({ plan_status: 'past_due', is_active: false });

      const free = await adminJson(
        'set-plan',
        '--workspace',
        created.workspace_id,
        '--plan',
        'free',
        '--status',
        'active',
      );
      expect(free).toMatchObject({ plan: 'free', plan_status: 'active' });
      const forbidden = await listContent(key);
      expect(forbidden.status).toBe(403);
      expect(forbidden.body.error.code).toBe('plan_forbidden');

      await adminJson('set-plan', '--workspace', created.workspace_id, '--plan', 'business');
      expect((await listContent(key)).status).toBe(200);
      expect((await me(key)).body).toMatchObject({ plan: 'business', plan_status: 'active' });
    },
    SLOW,
  );

  it(
    'list-workspaces lists every workspace with its plan, status and active key count',
    async () => {
      const listed = await adminJson('list-workspaces');
      const rows: any[] = listed.workspaces;
      expect(rows.map((w) => w.name)).toEqual(expect.arrayContaining(['Acme Studio', 'Trial Co', 'Billing Test']));
      const acme = rows.find((w) => w.workspace_id === workspaceId);
      expect(acme).toMatchObject({ name: 'Acme Studio', plan: 'pro', plan_status: 'active' });
      expect(acme.org_id).toMatch(/^org_/);
      // The first key, the plain and the expiring key of create-key; the revoked one is not counted.
      expect(acme.active_keys).toBe(3);
    },
    SLOW,
  );

  it(
    'refuses bad input with a non-zero exit and a JSON error, creating nothing',
    async () => {
      const before = await listWorkspaces(runtime.db);
      const [badPlan, noName, naive, past, unknownCommand, unknownOption] = await Promise.all([
        adminJsonError('create-workspace', '--name', 'Nope', '--plan', 'platinum'),
        adminJsonError('create-workspace'),
        adminJsonError('create-key', '--workspace', workspaceId, '--expires-at', '2030-01-01T00:00:00'),
        adminJsonError('create-key', '--workspace', workspaceId, '--expires-at', '2001-01-01T00:00:00Z'),
        adminJsonError('frobnicate'),
        adminJsonError('create-workspace', '--name', 'Nope', '--bogus'),
      ]);
      expect(past.details.fieldErrors['expires-at']).toEqual(['The expiry must be in the future.']);
      expect(unknownOption.message).toContain('--bogus');
      expect(badPlan.code).toBe('invalid_body');
      expect(Object.keys(badPlan.details.fieldErrors)).toEqual(['plan']);
      expect(noName.message).toContain('--name');
      expect(naive.message).toMatch(/expires-at/);
      expect(naive.message).toMatch(/offset/);
      expect(unknownCommand.message).toContain('frobnicate');
      expect(await listWorkspaces(runtime.db)).toEqual(before);
    },
    SLOW,
  );

  it(
    'without --json, explains a bad command on stderr with the usage',
    async () => {
      const unknown = await admin('frobnicate');
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toContain('frobnicate');
      expect(unknown.stderr).toMatch(/create-workspace/);
      expect(unknown.stdout).toBe('');
    },
    SLOW,
  );
});
