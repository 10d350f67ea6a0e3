import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteOf, openDatabase } from '../../../db/client.ts';
import { authenticate, revokeApiKey } from '../../../src/core/accounts/api-keys.ts';
import { setWorkspacePlan } from '../../../src/core/accounts/workspaces.ts';
import type { ServiceError } from '../../../src/core/errors.ts';
import { makeKey, makeWorkspace } from '../../helpers/factories.ts';
import { testRuntime, type TestRuntime } from '../../helpers/runtime.ts';

/**
 * Resolved keys are cached per connection; a change made through another connection (another
 * process, in production) must still apply on the very next request.
 */
describe('API key cache across connections', () => {
  const dir = mkdtempSync(join(tmpdir(), 'auth-cache-'));
  const file = join(dir, 'service.db');
  const opened: TestRuntime[] = [];
  const open = async () => {
    const runtime = await testRuntime({ file });
    opened.push(runtime);
    return runtime;
  };
  afterEach(async () => {
    for (const runtime of opened.splice(0)) await runtime.db.$store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const codeOf = async (fn: () => unknown): Promise<string> => {
    try {
      await fn();
      return 'ok';
    } catch (error) {
      return (error as ServiceError).code;
    }
  };

  it('sees a revocation made by another connection at once', async () => {
    const server = await open();
    const admin = await open();
    const ws = await makeWorkspace(admin);
    const second = await makeKey(admin, ws.workspace.id);
    const header = `Bearer ${second.apiKey}`;
    expect(await codeOf(async () => authenticate(server, header))).toBe('ok');
    expect(await codeOf(async () => authenticate(server, header))).toBe('ok');
    await revokeApiKey(admin, second.keyId);
    expect(await codeOf(async () => authenticate(server, header))).toBe('invalid_key');
    expect(await codeOf(async () => authenticate(server, `Bearer ${ws.apiKey}`))).toBe('ok');
  });

  it('sees a plan or status change made by another connection at once', async () => {
    const server = await open();
    const admin = await open();
    const ws = await makeWorkspace(admin);
    const header = `Bearer ${ws.apiKey}`;
    expect((await authenticate(server, header)).plan).toBe('pro');
    await setWorkspacePlan(admin, ws.workspace.id, { plan: 'business' });
    expect((await authenticate(server, header)).plan).toBe('business');
    await setWorkspacePlan(admin, ws.workspace.id, { status: 'canceled' });
    expect(await codeOf(async () => authenticate(server, header))).toBe('payment_required');
  });

  it('checks expiry against the clock on every request, cached or not', async () => {
    const server = await open();
    const ws = await makeWorkspace(server);
    const expiring = await makeKey(server, ws.workspace.id, new Date(server.clock.now().getTime() + 60_000));
    const header = `Bearer ${expiring.apiKey}`;
    expect(await codeOf(async () => authenticate(server, header))).toBe('ok');
    server.clock.advance(60_000);
    expect(await codeOf(async () => authenticate(server, header))).toBe('expired_key');
  });

  it('opens a database file written by another connection without re-running migrations', async () => {
    await open();
    expect(() => sqliteOf(openDatabase(file)).close()).not.toThrow();
  });
});
