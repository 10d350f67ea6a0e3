import { describe, expect, it } from 'vitest';
import { RateLimitError } from '../../src/core/errors.ts';
import { consumeRateLimit, consumeRateLimitBatched } from '../../src/core/rate-limits.ts';
import { makeWorkspace } from '../helpers/factories.ts';
import { call, startTestServer } from '../helpers/http.ts';
import { testRuntime } from '../helpers/runtime.ts';

/** Reads commit their takes in batches; each take must still be decided exactly, in order. */
describe('batched rate-limit takes', () => {
  it('decides every take of a batch in order and refuses only those past the limit', async () => {
    const runtime = testRuntime({ env: { RATE_LIMIT_READ: '3' } });
    const a = makeWorkspace(runtime);
    const b = makeWorkspace(runtime);
    const outcomes = await Promise.allSettled([
      consumeRateLimitBatched(runtime, a.workspace.id, 'read'),
      consumeRateLimitBatched(runtime, a.workspace.id, 'read'),
      consumeRateLimitBatched(runtime, b.workspace.id, 'read'),
      consumeRateLimitBatched(runtime, a.workspace.id, 'read'),
      consumeRateLimitBatched(runtime, a.workspace.id, 'read'),
    ]);
    const summary = outcomes.map((o) => (o.status === 'fulfilled' ? o.value.remaining : (o.reason as RateLimitError).code));
    expect(summary).toEqual([2, 1, 2, 0, 'rate_limit_exceeded']);
    // The batch committed: a later take sees every count, and the refused take consumed nothing.
    expect(() => consumeRateLimit(runtime, a.workspace.id, ['read'])).toThrow(RateLimitError);
    expect(consumeRateLimit(runtime, b.workspace.id, ['read']).remaining).toBe(1);
  });

  it('concurrent GETs over HTTP: exactly the limit is served, the rest get 429', async () => {
    const runtime = testRuntime({ env: { RATE_LIMIT_READ: '3' } });
    const server = await startTestServer(runtime);
    try {
      const ws = makeWorkspace(runtime);
      const answers = await Promise.all(Array.from({ length: 6 }, () => call(server, 'GET', '/api/v1/content', { headers: ws.headers })));
      const served = answers.filter((r) => r.status === 200).map((r) => Number(r.headers.get('x-ratelimit-remaining')));
      expect(served.sort()).toEqual([0, 1, 2]);
      expect(answers.filter((r) => r.status === 429)).toHaveLength(3);
    } finally {
      await server.close();
    }
  });
});
