/**
 * A keyed call whose input carries a secret (a Bluesky app password): the stored fingerprint must not
 * let whoever reads the database test a guess of the secret offline, so no unkeyed hash of the
 * secret, nor of the request as the source code fingerprints it, is anywhere in the file.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { idempotencyKeys } from '../../db/schema/index.ts';
import { startFakeBluesky, type FakeBluesky } from '../../fakes/bluesky.ts';
import { fakePlatformEnvironment } from '../../fakes/environment.ts';
import { makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call, startTestServer, type TestServer } from '../helpers/http.ts';
import { baseEnv } from '../helpers/rest-expect.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';
import { tempDataDir } from '../helpers/subprocess.ts';

describe('the idempotency fingerprint of a credentials connect', () => {
  let bluesky: FakeBluesky;
  let data: ReturnType<typeof tempDataDir>;
  let runtime: TestRuntime;
  let server: TestServer;
  let ws: TestWorkspace;
  let file: string;

  beforeAll(async () => {
    bluesky = await startFakeBluesky();
  });
  afterAll(async () => {
    await bluesky.close();
  });
  beforeEach(async () => {
    data = tempDataDir('idempotency-fingerprint');
    file = join(data.dir, 'service.db');
    runtime = await testRuntime({ file, env: { ...baseEnv, ...fakePlatformEnvironment({ bluesky }) } });
    server = await startTestServer(runtime);
    ws = await makeWorkspace(runtime);
  });
  afterEach(async () => {
    await server.close();
    await runtime.db.$store.close();
    data.remove();
  });

  /** Every byte SQLite keeps for the database: the file and its write-ahead log. */
  const storedBytes = (): Buffer =>
    Buffer.concat([file, `${file}-wal`].filter((path) => existsSync(path)).map((path) => readFileSync(path)));

  const connect = (key: string, appPassword: string) =>
    call(server, 'POST', '/api/v1/social-accounts/connect', {
      headers: { ...ws.headers, 'Idempotency-Key': key },
      body: { platform: 'bluesky', identifier: bluesky.accounts[0]!.handle, app_password: appPassword },
    });

  const sha256 = (text: string) => createHash('sha256').update(text).digest();

  it('stores no unkeyed SHA-256 of the app password or of the request holding it; replays still work', async () => {
    const { handle, appPassword } = bluesky.accounts[0]!;
    const first = await connect('connect-bluesky-1', appPassword);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const replay = await connect('connect-bluesky-1', appPassword);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    const bytes = storedBytes();
    expect(bytes.includes(appPassword)).toBe(false);
    // The request as a reader of the source would rebuild it for a guess: operation name, then the
    // body with its keys sorted. Its digest, like the password's own, is in no encoding in the file.
    const request = JSON.stringify({ app_password: appPassword, identifier: handle, platform: 'bluesky' });
    for (const digest of [sha256(appPassword), sha256(`startAccountConnection\n${request}`)]) {
      for (const encoded of [digest.toString('hex'), digest.toString('base64'), digest.toString('base64url')]) {
        expect(bytes.includes(encoded), encoded).toBe(false);
      }
      expect(bytes.includes(digest)).toBe(false);
    }
  });

  it('still tells a retry with another app password apart: idempotency_key_reused', async () => {
    expect((await connect('connect-bluesky-2', bluesky.accounts[0]!.appPassword)).status).toBe(201);
    const other = await connect('connect-bluesky-2', 'zzzz-zzzz-zzzz-zzzz');
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
  });

  it('replays a key claimed before the fingerprint was keyed (its unkeyed SHA-256), within its 24 hours', async () => {
    const body = { caption: 'Claimed before the upgrade', target_platforms: ['linkedin'] };
    const keyed = () =>
      call(server, 'POST', '/api/v1/content', { headers: { ...ws.headers, 'Idempotency-Key': 'legacy-1' }, body });
    const first = await keyed();
    expect(first.status).toBe(201);
    const unkeyed = sha256(`createContent\n${JSON.stringify(body)}`).toString('hex');
    await runtime.db
      .update(idempotencyKeys)
      .set({ fingerprint: unkeyed })
      .where(eq(idempotencyKeys.key, 'legacy-1'))
      .run();
    const replay = await keyed();
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
  });
});
