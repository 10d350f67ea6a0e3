import { and, eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { rateLimitWindows } from '../../db/schema/index.ts';
import { makeContent, makeKey, makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call, startTestServer, type TestServer } from '../helpers/http.ts';
import { baseEnv, expectError } from '../helpers/rest-expect.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';

// testRuntime's clock starts at 2026-03-10T12:00:30.000Z: 30 s into a wall-clock minute.
const RESET = Date.parse('2026-03-10T12:01:00Z') / 1000;
const NEXT_RESET = RESET + 60;

interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

const limits = (res: Reply) => ({
  limit: Number(res.headers.get('x-ratelimit-limit')),
  remaining: Number(res.headers.get('x-ratelimit-remaining')),
  reset: Number(res.headers.get('x-ratelimit-reset')),
});

/** Rate limits (per workspace, per bucket, fixed one-minute windows), in one process. */
describe('REST rate limits', () => {
  let runtime: TestRuntime;
  let server: TestServer;
  afterEach(() => server?.close());

  async function start(env: Record<string, string> = {}): Promise<TestWorkspace> {
    runtime = await testRuntime({ env: { ...baseEnv, ...env } });
    server = await startTestServer(runtime);
    return makeWorkspace(runtime);
  }
  const as = (ws: TestWorkspace, method: string, path: string, body?: unknown) =>
    call(server, method, path, { headers: ws.headers, body });

  /** The contract's own 429 body, not the error envelope, plus Retry-After. */
  function expect429(res: Reply, retryAfter: number, limit: number): void {
    expect(res.status).toBe(429);
    expect(Object.keys(res.body).sort()).toEqual(['message', 'object', 'retry_after', 'type']);
    expect(res.body).toMatchObject({ object: 'error', type: 'rate_limit_exceeded', retry_after: retryAfter });
    expect(typeof res.body.message).toBe('string');
    expect(Number.isInteger(res.body.retry_after)).toBe(true);
    expect(res.headers.get('retry-after')).toBe(String(retryAfter));
    expect(limits(res)).toEqual({ limit, remaining: 0, reset: RESET });
  }

  describe('headers', () => {
    it('every authenticated response carries them, success or failure after authentication', async () => {
      const ws = await start();
      const draft = await makeContent(runtime, ws.workspace);
      const archived = await makeContent(runtime, ws.workspace, { target_platforms: ['twitter'] });
      await as(ws, 'DELETE', `/api/v1/content/${archived.id}`);

      const responses: Array<[string, Reply]> = [
        ['list', await as(ws, 'GET', '/api/v1/content')],
        ['get', await as(ws, 'GET', `/api/v1/content/${draft.id}`)],
        ['me', await as(ws, 'GET', '/api/v1/me')],
        ['create', await as(ws, 'POST', '/api/v1/content', { caption: 'x' })],
        ['404 missing id', await as(ws, 'GET', '/api/v1/content/00000000-0000-4000-8000-000000000000')],
        [
          '404 missing id on PATCH',
          await as(ws, 'PATCH', '/api/v1/content/00000000-0000-4000-8000-000000000000', { caption: 'x' }),
        ],
        ['400 schema', await as(ws, 'POST', '/api/v1/content', { caption: '' })],
        ['400 malformed JSON', await call(server, 'POST', '/api/v1/content', { headers: ws.headers, rawBody: '{' })],
        ['400 no_updates', await as(ws, 'PATCH', `/api/v1/content/${draft.id}`, {})],
        ['409', await as(ws, 'PATCH', `/api/v1/content/${archived.id}`, { caption: 'x' })],
        ['422', await as(ws, 'POST', `/api/v1/content/${draft.id}/publish`)],
      ];
      for (const [label, res] of responses) {
        expect(res.status, label).toBeLessThan(500);
        for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
          expect(res.headers.get(name), `${label}: ${name}`).toMatch(/^\d+$/);
        }
        expect(limits(res).reset, label).toBe(RESET);
      }
    });

    it('Reset is the end of the wall-clock minute in Unix seconds, and Remaining counts down', async () => {
      const ws = await start();
      expect(limits(await as(ws, 'GET', '/api/v1/content'))).toEqual({ limit: 300, remaining: 299, reset: RESET });
      runtime.clock.set('2026-03-10T12:00:59.999Z');
      expect(limits(await as(ws, 'GET', '/api/v1/content'))).toEqual({ limit: 300, remaining: 298, reset: RESET });
      runtime.clock.set('2026-03-10T12:01:00.000Z');
      expect(limits(await as(ws, 'GET', '/api/v1/content'))).toEqual({ limit: 300, remaining: 299, reset: NEXT_RESET });
    });

    it('writes report the write bucket, reads the read bucket', async () => {
      const ws = await start({ RATE_LIMIT_READ: '50', RATE_LIMIT_WRITE: '7' });
      expect(limits(await as(ws, 'POST', '/api/v1/content', { caption: 'x' }))).toMatchObject({
        limit: 7,
        remaining: 6,
      });
      expect(limits(await as(ws, 'GET', '/api/v1/content'))).toMatchObject({ limit: 50, remaining: 49 });
      const item = await makeContent(runtime, ws.workspace);
      expect(limits(await as(ws, 'PATCH', `/api/v1/content/${item.id}`, { caption: 'y' }))).toMatchObject({
        limit: 7,
        remaining: 5,
      });
      expect(limits(await as(ws, 'DELETE', `/api/v1/content/${item.id}`))).toMatchObject({ limit: 7, remaining: 4 });
    });

    it('unauthenticated answers carry none (there is no workspace to count against)', async () => {
      await start();
      const res = await call(server, 'GET', '/api/v1/content');
      expect(res.status).toBe(401);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    });
  });

  describe('429', () => {
    it('answers the spec body and Retry-After once the bucket is empty', async () => {
      const ws = await start({ RATE_LIMIT_READ: '3' });
      for (let i = 0; i < 3; i += 1) expect((await as(ws, 'GET', '/api/v1/content')).status).toBe(200);
      expect429(await as(ws, 'GET', '/api/v1/content'), 30, 3);
      expect429(await as(ws, 'GET', '/api/v1/me'), 30, 3);
    });

    it('retry_after counts the seconds to the window end, at least 1', async () => {
      const ws = await start({ RATE_LIMIT_READ: '1' });
      await as(ws, 'GET', '/api/v1/content');
      runtime.clock.set('2026-03-10T12:00:45.400Z');
      expect429(await as(ws, 'GET', '/api/v1/content'), 15, 1);
      runtime.clock.set('2026-03-10T12:00:59.900Z');
      expect429(await as(ws, 'GET', '/api/v1/content'), 1, 1);
    });

    it('a refused request consumes nothing', async () => {
      const ws = await start({ RATE_LIMIT_READ: '2' });
      await as(ws, 'GET', '/api/v1/content');
      await as(ws, 'GET', '/api/v1/content');
      for (let i = 0; i < 5; i += 1) expect((await as(ws, 'GET', '/api/v1/content')).status).toBe(429);
      const counter = await runtime.db
        .select()
        .from(rateLimitWindows)
        .where(and(eq(rateLimitWindows.workspaceId, ws.workspace.id), eq(rateLimitWindows.bucket, 'read')))
        .all();
      expect(counter.map((r) => r.count)).toEqual([2]);
    });

    it('the window rolls over when the clock passes the minute, and not before', async () => {
      const ws = await start({ RATE_LIMIT_READ: '2' });
      await as(ws, 'GET', '/api/v1/content');
      await as(ws, 'GET', '/api/v1/content');
      runtime.clock.set('2026-03-10T12:00:59.999Z');
      expect((await as(ws, 'GET', '/api/v1/content')).status).toBe(429);
      runtime.clock.set('2026-03-10T12:01:00.000Z');
      const res = await as(ws, 'GET', '/api/v1/content');
      expect(res.status).toBe(200);
      expect(limits(res)).toEqual({ limit: 2, remaining: 1, reset: NEXT_RESET });
    });

    it('a throttled write is refused and its item is untouched', async () => {
      const ws = await start({ RATE_LIMIT_WRITE: '1' });
      const item = await makeContent(runtime, ws.workspace);
      await as(ws, 'POST', '/api/v1/content', { caption: 'first' });
      const res = await as(ws, 'PATCH', `/api/v1/content/${item.id}`, { caption: 'second' });
      expect429(res, 30, 1);
      expect((await as(ws, 'GET', `/api/v1/content/${item.id}`)).body.caption).toBe(item.caption);
    });

    it('failed requests count too (only a 429 consumes nothing), and roll back their own writes', async () => {
      const ws = await start({ RATE_LIMIT_WRITE: '5' });
      const item = await makeContent(runtime, ws.workspace);
      const remaining = [
        await call(server, 'POST', '/api/v1/content', { headers: ws.headers, rawBody: '{' }),
        await as(ws, 'POST', '/api/v1/content', { caption: '' }),
        await as(ws, 'PATCH', `/api/v1/content/${item.id}`, { status: 'scheduled' }),
        await as(ws, 'PATCH', '/api/v1/content/00000000-0000-4000-8000-000000000000', { caption: 'x' }),
      ].map((res) => limits(res).remaining);
      expect(remaining).toEqual([4, 3, 2, 1]);
      expect((await as(ws, 'GET', `/api/v1/content/${item.id}`)).body.status).toBe('draft');
    });

    it('reads and writes are separate buckets', async () => {
      const ws = await start({ RATE_LIMIT_READ: '1', RATE_LIMIT_WRITE: '1' });
      await as(ws, 'GET', '/api/v1/content');
      expect((await as(ws, 'GET', '/api/v1/content')).status).toBe(429);
      expect((await as(ws, 'POST', '/api/v1/content', { caption: 'still writes' })).status).toBe(201);
      expect((await as(ws, 'POST', '/api/v1/content', { caption: 'not now' })).status).toBe(429);
    });
  });

  describe('publish takes from the write and the publish buckets', () => {
    it('headers report the bucket with the least remaining: publish', async () => {
      const ws = await start({ RATE_LIMIT_WRITE: '60', RATE_LIMIT_PUBLISH: '30' });
      const item = await makeContent(runtime, ws.workspace, { target_platforms: ['twitter'] });
      const res = await as(ws, 'POST', `/api/v1/content/${item.id}/publish`);
      expect(res.status).toBe(202);
      expect(limits(res)).toEqual({ limit: 30, remaining: 29, reset: RESET });
      // The publish also took one write.
      expect(limits(await as(ws, 'POST', '/api/v1/content', { caption: 'x' }))).toMatchObject({
        limit: 60,
        remaining: 58,
      });
    });

    it('headers report the bucket with the least remaining: write', async () => {
      const ws = await start({ RATE_LIMIT_WRITE: '4', RATE_LIMIT_PUBLISH: '30' });
      const item = await makeContent(runtime, ws.workspace, { target_platforms: ['twitter'] });
      await as(ws, 'POST', '/api/v1/content', { caption: 'x' });
      const res = await as(ws, 'POST', `/api/v1/content/${item.id}/publish`);
      expect(res.status).toBe(202);
      expect(limits(res)).toEqual({ limit: 4, remaining: 2, reset: RESET });
    });

    it('an empty publish bucket refuses the publish and leaves the write bucket untouched', async () => {
      const ws = await start({ RATE_LIMIT_WRITE: '5', RATE_LIMIT_PUBLISH: '1' });
      const item = await makeContent(runtime, ws.workspace, { target_platforms: ['twitter'] });
      expect((await as(ws, 'POST', `/api/v1/content/${item.id}/publish`)).status).toBe(202);
      for (let i = 0; i < 3; i += 1) expect429(await as(ws, 'POST', `/api/v1/content/${item.id}/publish`), 30, 1);
      // 5 writes: one by the publish that passed, none by the three refused, this one.
      expect(limits(await as(ws, 'POST', '/api/v1/content', { caption: 'x' }))).toMatchObject({
        limit: 5,
        remaining: 3,
      });
    });

    it('an empty write bucket refuses the publish and leaves the publish bucket untouched', async () => {
      const ws = await start({ RATE_LIMIT_WRITE: '1', RATE_LIMIT_PUBLISH: '10' });
      const item = await makeContent(runtime, ws.workspace, { target_platforms: ['twitter'] });
      await as(ws, 'POST', '/api/v1/content', { caption: 'x' });
      expect429(await as(ws, 'POST', `/api/v1/content/${item.id}/publish`), 30, 1);
      expect((await as(ws, 'GET', `/api/v1/content/${item.id}`)).body.publish_queued).toBe(false);
      runtime.clock.set('2026-03-10T12:01:00.000Z');
      const res = await as(ws, 'POST', `/api/v1/content/${item.id}/publish`);
      expect(res.status).toBe(202);
      // Write: 1 limit, 0 left; publish: 10 limit, 9 left. The tightest is reported.
      expect(limits(res)).toEqual({ limit: 1, remaining: 0, reset: NEXT_RESET });
    });
  });

  describe('per workspace', () => {
    it('keys of one workspace share one budget', async () => {
      const ws = await start({ RATE_LIMIT_READ: '4' });
      const second = await makeKey(runtime, ws.workspace.id);
      const other: TestWorkspace = { ...ws, headers: { ...ws.headers, authorization: `Bearer ${second.apiKey}` } };
      expect(limits(await as(ws, 'GET', '/api/v1/content')).remaining).toBe(3);
      expect(limits(await as(other, 'GET', '/api/v1/content')).remaining).toBe(2);
      expect(limits(await as(ws, 'GET', '/api/v1/content')).remaining).toBe(1);
      expect(limits(await as(other, 'GET', '/api/v1/content')).remaining).toBe(0);
      expect429(await as(ws, 'GET', '/api/v1/content'), 30, 4);
      expect429(await as(other, 'GET', '/api/v1/content'), 30, 4);
    });

    it('one workspace exhausting its budget leaves another untouched', async () => {
      const a = await start({ RATE_LIMIT_READ: '2', RATE_LIMIT_WRITE: '1' });
      const b = await makeWorkspace(runtime);
      await as(a, 'GET', '/api/v1/content');
      await as(a, 'GET', '/api/v1/content');
      await as(a, 'POST', '/api/v1/content', { caption: 'x' });
      expect((await as(a, 'GET', '/api/v1/content')).status).toBe(429);
      expect((await as(a, 'POST', '/api/v1/content', { caption: 'x' })).status).toBe(429);
      expect(limits(await as(b, 'GET', '/api/v1/content'))).toEqual({ limit: 2, remaining: 1, reset: RESET });
      expect(limits(await as(b, 'POST', '/api/v1/content', { caption: 'x' }))).toEqual({
        limit: 1,
        remaining: 0,
        reset: RESET,
      });
    });
  });

  it('a refused request is still authenticated first: a bad key gets 401, not 429', async () => {
    const ws = await start({ RATE_LIMIT_READ: '1' });
    await as(ws, 'GET', '/api/v1/content');
    expectError(
      await call(server, 'GET', '/api/v1/content', { headers: { authorization: 'Bearer np_live_nope' } }),
      401,
      'invalid_key',
    );
  });
});
