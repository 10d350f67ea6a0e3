import { describe, expect, it } from 'vitest';
import { content, events } from '../../db/schema/index.ts';
import { RateLimitError } from '../../src/core/errors.ts';
import { inNextCommit } from '../../src/core/batch.ts';
import { consumeRateLimit } from '../../src/core/rate-limits.ts';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { call, startTestServer } from '../helpers/http.ts';
import { TEST_ENGINE, testRuntime } from '../helpers/runtime.ts';

/** Requests commit in batches (group commit); each must still be decided exactly, in order. */
describe('group commit', () => {
  it('decides every take of a batch in order and refuses only those past the limit', async () => {
    const runtime = await testRuntime({ env: { RATE_LIMIT_READ: '3' } });
    const a = await makeWorkspace(runtime);
    const b = await makeWorkspace(runtime);
    const take = (workspaceId: string) =>
      inNextCommit(runtime.db, async () => consumeRateLimit(runtime, workspaceId, ['read']));
    const outcomes = await Promise.allSettled([
      take(a.workspace.id),
      take(a.workspace.id),
      take(b.workspace.id),
      take(a.workspace.id),
      take(a.workspace.id),
    ]);
    const summary = outcomes.map((o) =>
      o.status === 'fulfilled' ? o.value.remaining : (o.reason as RateLimitError).code,
    );
    // Exactly these outcomes on both engines. SQLite runs a batch in one transaction, in the order
    // asked, so each take's outcome is also its place in line; PostgreSQL runs each take in a
    // transaction of its own, concurrently, so which take of `a` got which count is not defined.
    const byValue = (outcome: number | string) => String(outcome);
    expect([...summary].sort((x, y) => byValue(x).localeCompare(byValue(y)))).toEqual([
      0,
      1,
      2,
      2,
      'rate_limit_exceeded',
    ]);
    expect(summary[2]).toBe(2);
    if (TEST_ENGINE === 'sqlite') expect(summary).toEqual([2, 1, 2, 0, 'rate_limit_exceeded']);
    // The batch committed: a later take sees every count, and the refused take consumed nothing.
    await expect(consumeRateLimit(runtime, a.workspace.id, ['read'])).rejects.toThrow(RateLimitError);
    expect((await consumeRateLimit(runtime, b.workspace.id, ['read'])).remaining).toBe(1);
  });

  it('a failing piece of work fails alone; the others of its batch commit', async () => {
    const runtime = await testRuntime();
    const ws = await makeWorkspace(runtime);
    const outcomes = await Promise.allSettled([
      inNextCommit(runtime.db, async () => makeContent(runtime, ws.workspace, { caption: 'first' })),
      inNextCommit(runtime.db, async () => makeContent(runtime, ws.workspace, { caption: '' })),
      inNextCommit(runtime.db, async () => makeContent(runtime, ws.workspace, { caption: 'third' })),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await runtime.db.select().from(content).all()).map((c) => c.caption).sort()).toEqual(['first', 'third']);
  });

  it('concurrent writes over HTTP: each is created once with its event, failures isolated', async () => {
    const runtime = await testRuntime();
    const server = await startTestServer(runtime);
    try {
      const ws = await makeWorkspace(runtime);
      const bodies = Array.from({ length: 12 }, (_, i) => ({ caption: i % 4 === 3 ? '' : `post ${i}` }));
      const answers = await Promise.all(
        bodies.map((body) => call(server, 'POST', '/api/v1/content', { headers: ws.headers, body })),
      );
      expect(answers.map((r) => r.status)).toEqual(bodies.map((b) => (b.caption ? 201 : 400)));
      const remaining = answers.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((x, y) => y - x);
      expect(remaining).toEqual(Array.from({ length: 12 }, (_, i) => 59 - i));
      expect(await runtime.db.select().from(content).all()).toHaveLength(9);
      expect(await runtime.db.select().from(events).all()).toHaveLength(9);
    } finally {
      await server.close();
    }
  });

  it('concurrent GETs over HTTP: exactly the limit is served, the rest get 429', async () => {
    const runtime = await testRuntime({ env: { RATE_LIMIT_READ: '3' } });
    const server = await startTestServer(runtime);
    try {
      const ws = await makeWorkspace(runtime);
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => call(server, 'GET', '/api/v1/content', { headers: ws.headers })),
      );
      const served = answers.filter((r) => r.status === 200).map((r) => Number(r.headers.get('x-ratelimit-remaining')));
      expect(served.sort()).toEqual([0, 1, 2]);
      expect(answers.filter((r) => r.status === 429)).toHaveLength(3);
    } finally {
      await server.close();
    }
  });
});
