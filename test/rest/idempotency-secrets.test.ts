/**
 * A keyed create whose answer carries a secret shown once (a webhook's signing secret, a connect
 * URL's state): the replay still answers it, and the database file never holds it in clear.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { idempotencyKeys } from '../../db/schema/index.ts';
import { makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call, startTestServer, type TestServer } from '../helpers/http.ts';
import { baseEnv } from '../helpers/rest-expect.ts';
import { TEST_ENGINE, testRuntime, type TestRuntime } from '../helpers/runtime.ts';
import { tempDataDir } from '../helpers/subprocess.ts';

describe('idempotent answers that carry a secret', () => {
  let data: ReturnType<typeof tempDataDir>;
  let runtime: TestRuntime;
  let server: TestServer;
  let ws: TestWorkspace;
  let file: string;

  beforeEach(async () => {
    data = tempDataDir('idempotency-secrets');
    file = join(data.dir, 'service.db');
    runtime = await testRuntime({
      file,
      env: { ...baseEnv, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', X_CLIENT_ID: 'x-client', X_CLIENT_SECRET: 'x-secret' },
    });
    server = await startTestServer(runtime);
    ws = await makeWorkspace(runtime);
  });
  afterEach(async () => {
    await server.close();
    await runtime.db.$store.close();
    data.remove();
  });

  /**
   * What the database keeps: on SQLite every byte of the file and its write-ahead log; on PostgreSQL
   * (no file of the test's own) the text of every row of every table.
   */
  const storedBytes = async (): Promise<Buffer> => {
    if (TEST_ENGINE === 'sqlite') {
      return Buffer.concat([file, `${file}-wal`].filter((path) => existsSync(path)).map((path) => readFileSync(path)));
    }
    const tables = await runtime.db.all<{ name: string }>(
      sql`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`,
    );
    const rows: string[] = [];
    for (const { name } of tables) {
      const texts = await runtime.db.all<{ row: string }>(
        sql`select cast(row_to_json(t) as text) as row from ${sql.identifier(name)} t`,
      );
      rows.push(...texts.map((text) => text.row));
    }
    return Buffer.from(rows.join('\n'));
  };

  const keyed = (path: string, key: string, body: unknown) =>
    call(server, 'POST', path, { headers: { ...ws.headers, 'Idempotency-Key': key }, body });

  it("keeps a webhook's signing secret out of the file, and the replay still answers it", async () => {
    const body = { url: 'http://127.0.0.1:9/hook', events: ['content.created'] };
    const created = await keyed('/api/v1/webhooks', 'create-hook-1', body);
    expect(created.status).toBe(201);
    const secret: string = created.body.signing_secret;
    expect(secret).toMatch(/^whsec_/);

    const replay = await keyed('/api/v1/webhooks', 'create-hook-1', body);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.signing_secret).toBe(secret);

    const bytes = await storedBytes();
    expect(bytes.length).toBeGreaterThan(0);
    expect(bytes.includes(secret)).toBe(false);
    expect(bytes.includes(secret.slice('whsec_'.length))).toBe(false);
    // The answer was stored: the id it carries is in the file, the secret beside it is not.
    expect(bytes.includes(created.body.id)).toBe(true);
  });

  it("keeps a connect URL's state out of the file, and the replay still answers the same URL", async () => {
    const body = { platform: 'twitter' };
    const started = await keyed('/api/v1/social-accounts/connect', 'connect-1', body);
    expect(started.status).toBe(201);
    const state = new URL(started.body.authorize_url).searchParams.get('state')!;
    const replay = await keyed('/api/v1/social-accounts/connect', 'connect-1', body);
    expect(replay.body.authorize_url).toBe(started.body.authorize_url);
    expect((await storedBytes()).includes(state)).toBe(false);
  });

  it('still replays an answer stored in clear before answers were encrypted, within its 24 hours', async () => {
    const body = { caption: 'Stored before the upgrade', target_platforms: ['linkedin'] };
    const first = await keyed('/api/v1/content', 'legacy-1', body);
    expect(first.status).toBe(201);
    await runtime.db
      .update(idempotencyKeys)
      .set({ responseBodyEncrypted: null, responseBody: first.body })
      .where(eq(idempotencyKeys.key, 'legacy-1'))
      .run();
    const replay = await keyed('/api/v1/content', 'legacy-1', body);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
  });
});
