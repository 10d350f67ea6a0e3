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
