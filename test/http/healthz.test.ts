import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, call, type TestServer } from '../helpers/http.ts';
import { testRuntime, TEST_ENGINE, type TestRuntime } from '../helpers/runtime.ts';

/** GET /healthz: the process is up, on which engine, and whether its database answers now. */
describe('GET /healthz', () => {
  let runtime: TestRuntime;
  let server: TestServer;
  afterEach(async () => {
    await server?.close();
    await runtime?.db.$store.close();
  });

  it('names the engine the process runs on and says the database answers', async () => {
    runtime = await testRuntime();
    server = await startTestServer(runtime);
    const health = await call(server, 'GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({
      status: 'ok',
      engine: TEST_ENGINE,
      database: 'ok',
      time: '2026-03-10T12:00:30.000Z',
    });
  });

  it('still answers 200, with database unavailable, once the database does not answer', async () => {
    runtime = await testRuntime();
    server = await startTestServer(runtime);
    // Closed under the running server: SQLite's connection, or PostgreSQL's pool, refuses every query.
    await runtime.db.$store.close();
    const health = await call(server, 'GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', engine: TEST_ENGINE, database: 'unavailable' });
  });
});

/** GET /readyz: whether a load balancer should send this process traffic. */
describe('GET /readyz', () => {
  let runtime: TestRuntime;
  let server: TestServer;
  afterEach(async () => {
    await server?.close();
    await runtime?.db.$store.close();
  });

  it('answers 200 ready while the database answers and has every migration of this build', async () => {
    runtime = await testRuntime();
    server = await startTestServer(runtime);
    const ready = await call(server, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: 'ready',
      engine: TEST_ENGINE,
      database: 'ok',
      migrations: 'applied',
      time: '2026-03-10T12:00:30.000Z',
    });
  });

  it("answers 503 with Retry-After when the database lacks this build's newest migration (an older backup restored under it)", async () => {
    runtime = await testRuntime();
    server = await startTestServer(runtime);
    await runtime.db.run(
      sql`delete from ${sql.raw(TEST_ENGINE === 'postgres' ? 'drizzle.__drizzle_migrations' : '__drizzle_migrations')}
          where created_at = (${runtime.db.$store.sql.newestMigrationApplied})`,
    );
    const ready = await call(server, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('5');
    expect(ready.body).toMatchObject({ status: 'not_ready', database: 'ok', migrations: 'pending' });
  });

  it('answers 503 with Retry-After once the database does not answer', async () => {
    runtime = await testRuntime();
    server = await startTestServer(runtime);
    await runtime.db.$store.close();
    const ready = await call(server, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('5');
    expect(ready.body).toMatchObject({ status: 'not_ready', database: 'unavailable', migrations: 'unknown' });
  });
});
