import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresDatabase } from '../../db/postgres.ts';
import { loadConfig } from '../../src/core/config.ts';
import { openRuntime } from '../../src/core/runtime.ts';
import { connectorsFor } from '../../src/core/publishing/connectors/index.ts';
import { startPublishing } from '../../src/jobs/publish-run.ts';
import { content, publishAttempts } from '../../db/schema/index.ts';
import { eq } from 'drizzle-orm';
import { connectAccounts, publish } from '../helpers/publishing.ts';
import { eventually } from '../helpers/eventually.ts';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { call, startTestServer, type TestServer } from '../helpers/http.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { baseEnv, expectError } from '../helpers/rest-expect.ts';
import { TEST_ENCRYPTION_KEY } from '../helpers/runtime.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import type { Runtime } from '../../src/core/context.ts';

const POST = { caption: 'Our spring launch', content_type: 'text_only', target_platforms: ['linkedin'] };

/**
 * The service with its PostgreSQL behind a relay the test cuts (every connection dropped, new ones
 * refused), as a network fault or a server restart would: requests are refused with 503 and
 * Retry-After, never a 500, nothing half-done is kept, and once the database is back the same
 * process serves again by itself.
 */
describe('PostgreSQL out of reach, then back', () => {
  let database: TestDatabase | undefined;
  let proxy: TcpProxy | undefined;
  let runtime: Runtime | undefined;
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    await runtime?.db.$store.close();
    await proxy?.close();
    await database?.drop();
  });

  /** A runtime on a new database reached through a relay the test can cut. */
  async function runtimeBehindRelay(): Promise<Runtime> {
    database = await createTestDatabase();
    const direct = new URL(database.url);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
    const relayed = new URL(database.url);
    relayed.port = String(proxy.port);
    const config = loadConfig({
      ...baseEnv,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      // The passes that fail while it is cut log errors: expected here.
      LOG_LEVEL: 'fatal',
    });
    runtime = await openRuntime({
      config,
      db: await openPostgresDatabase(relayed.toString(), { max: 4, connectTimeoutMs: 2000 }),
    });
    return runtime;
  }

  it('answers 503 with Retry-After while it is gone (readiness too, not liveness), and recovers by itself', async () => {
    runtime = await runtimeBehindRelay();
    server = await startTestServer(runtime);
    const ws = await makeWorkspace(runtime);

    expect((await call(server, 'GET', '/api/v1/content', { headers: ws.headers })).status).toBe(200);
    expect((await call(server, 'GET', '/readyz')).body).toMatchObject({
      status: 'ready',
      database: 'ok',
      migrations: 'applied',
    });

    await proxy!.cut();
    const read = await call(server, 'GET', '/api/v1/content', { headers: ws.headers });
    expectError(read, 503, 'service_unavailable');
    expect(read.headers.get('retry-after')).toBe('5');
    const write = await call(server, 'POST', '/api/v1/content', { headers: ws.headers, body: POST });
    expectError(write, 503, 'service_unavailable');
    expect(write.headers.get('retry-after')).toBe('5');
    const ready = await call(server, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('5');
    expect(ready.body).toMatchObject({ status: 'not_ready', database: 'unavailable', migrations: 'unknown' });
    // Liveness stays 200: the process is up, and restarting it would not bring the database back.
    const health = await call(server, 'GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', database: 'unavailable' });

    await proxy!.restore();
    await eventually(
      'a read succeeds again',
      async () => (await call(server!, 'GET', '/api/v1/content', { headers: ws.headers })).status === 200,
      10_000,
      100,
    );
    const created = await call(server, 'POST', '/api/v1/content', { headers: ws.headers, body: POST });
    expect(created.status).toBe(201);
    // The write refused while the database was gone left nothing: only the one made since.
    const listed = await call(server, 'GET', '/api/v1/content', { headers: ws.headers });
    expect(listed.body.data.map((item: { id: string }) => item.id)).toEqual([created.body.id]);
    expect((await call(server, 'GET', '/readyz')).status).toBe(200);
  });

  it('a platform answer that comes while it is gone is recorded once it is back: published, not unknown', async () => {
    const rt = await runtimeBehindRelay();
    const ws = await makeWorkspace(rt);
    await connectAccounts(rt, ws.workspace, ['linkedin']);
    const item = await makeContent(rt, ws.workspace, POST);
    // A platform that answers once the test lets it, after the relay is cut.
    let called!: () => void;
    const calledNow = new Promise<void>((resolve) => (called = resolve));
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const connectors = new Map(connectorsFor(rt));
    const sandbox = connectors.get('linkedin')!;
    connectors.set('linkedin', {
      platform: 'linkedin',
      validate: (post) => sandbox.validate(post),
      publish: async () => {
        called();
        await answered;
        return { status: 'published', platformPostId: 'urn:li:share:1', url: null };
      },
    });
    const worker = startPublishing(rt, connectors);
    try {
      await publish(rt, ws.workspace, item.id);
      await calledNow;
      await proxy!.cut();
      answer();
      // Its recording meets the database gone, and is tried again meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await proxy!.restore();
      await eventually(
        'the item is published',
        async () => (await rt.db.select().from(content).where(eq(content.id, item.id)).get())?.status === 'published',
        15_000,
        100,
      );
      const attempts = await rt.db.select().from(publishAttempts).where(eq(publishAttempts.contentId, item.id)).all();
      expect(attempts.map(({ status, platformPostId }) => ({ status, platformPostId }))).toEqual([
        { status: 'published', platformPostId: 'urn:li:share:1' },
      ]);
    } finally {
      await worker.stop();
    }
  });
});
