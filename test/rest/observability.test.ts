import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inNextCommit } from '../../src/core/batch.ts';
import { createLogger, withLogContext } from '../../src/core/log.ts';
import { connectorsFor } from '../../src/core/publishing/connectors/index.ts';
import { enqueueAllEvents } from '../../src/core/webhooks/delivery/enqueue.ts';
import { eventually } from '../helpers/eventually.ts';
import { makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call, startTestServer, type TestServer } from '../helpers/http.ts';
import { connectAccounts } from '../helpers/publishing.ts';
import { baseEnv } from '../helpers/rest-expect.ts';
import { TEST_ENGINE, testRuntime, type TestRuntime } from '../helpers/runtime.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { drain } from '../../src/jobs/drain.ts';
import { publishingJob } from '../../src/jobs/publish-run.ts';
import { webhookDeliveryJob } from '../../src/jobs/webhook-delivery.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A runtime whose logger writes into `lines` (one parsed JSON object per line). */
async function capturedRuntime(env: Record<string, string> = {}): Promise<{
  runtime: TestRuntime;
  lines: Array<Record<string, any>>;
}> {
  const lines: Array<Record<string, any>> = [];
  const log = createLogger({
    level: 'info',
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  return { runtime: { ...(await testRuntime({ env: { ...baseEnv, ...env } })), log }, lines };
}

/** The value of one sample of the Prometheus text, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('request ids and logs', () => {
  let runtime: TestRuntime;
  let lines: Array<Record<string, any>>;
  let server: TestServer;
  let ws: TestWorkspace;
  beforeEach(async () => {
    ({ runtime, lines } = await capturedRuntime());
    server = await startTestServer(runtime);
    ws = await makeWorkspace(runtime);
  });
  afterEach(() => server.close());

  it('echoes a sane X-Request-Id on successes and generates one otherwise; failures carry none', async () => {
    const created = await call(server, 'POST', '/api/v1/content', {
      headers: { ...ws.headers, 'x-request-id': 'client-42.a:b/c+d=' },
      body: { caption: 'x' },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-request-id')).toBe('client-42.a:b/c+d=');

    for (const insane of ['a'.repeat(129), 'has space', 'semi;colon', '']) {
      const res = await call(server, 'GET', '/api/v1/me', { headers: { ...ws.headers, 'x-request-id': insane } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toMatch(UUID);
    }
    // "There is no param field, no request_id and no X-Request-Id header" on a failure.
    const unauthenticated = await call(server, 'GET', '/api/v1/me');
    expect(unauthenticated.status).toBe(401);
    const invalid = await call(server, 'POST', '/api/v1/content', {
      headers: { ...ws.headers, 'x-request-id': 'bad-body' },
      rawBody: '{',
    });
    expect(invalid.status).toBe(400);
    const unknown = await call(server, 'GET', '/nowhere', { headers: { 'x-request-id': 'lost' } });
    expect(unknown.status).toBe(404);
    const wrongMethod = await call(server, 'PUT', '/api/v1/content', { headers: ws.headers });
    expect(wrongMethod.status).toBe(405);
    const replayedFailure = async () =>
      call(server, 'POST', '/api/v1/content', {
        headers: { ...ws.headers, 'idempotency-key': 'fails-twice', 'x-request-id': 'replay' },
        body: { caption: '' },
      });
    expect((await replayedFailure()).status).toBe(400);
    const replay = await replayedFailure();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    for (const failure of [unauthenticated, invalid, unknown, wrongMethod, replay]) {
      expect(failure.headers.get('x-request-id')).toBeNull();
      expect(failure.body.error).not.toHaveProperty('request_id');
    }
    // Two requests never share an id.
    const ids = new Set(
      await Promise.all([1, 2, 3].map(async () => (await call(server, 'GET', '/healthz')).headers.get('x-request-id'))),
    );
    expect(ids.size).toBe(3);
  });

  it('writes one access line per request with the method, the route pattern, the status and the duration', async () => {
    const created = await call(server, 'POST', '/api/v1/content', {
      headers: { ...ws.headers, 'x-request-id': 'create-1' },
      body: { caption: 'x' },
    });
    await call(server, 'GET', `/api/v1/content/${created.body.id}`, {
      headers: { ...ws.headers, 'x-request-id': 'read-1' },
    });
    await call(server, 'GET', '/api/v1/content/00000000-0000-7000-8000-000000000000', {
      headers: { ...ws.headers, 'x-request-id': 'missing-1' },
    });
    await call(server, 'GET', `/unknown/${created.body.id}`, { headers: { 'x-request-id': 'unmatched-1' } });

    const access = lines.filter((line) => line.msg === 'request');
    expect(access.map(({ request_id, method, route, status }) => ({ request_id, method, route, status }))).toEqual([
      { request_id: 'create-1', method: 'POST', route: '/api/v1/content', status: 201 },
      { request_id: 'read-1', method: 'GET', route: '/api/v1/content/:id', status: 200 },
      { request_id: 'missing-1', method: 'GET', route: '/api/v1/content/:id', status: 404 },
      { request_id: 'unmatched-1', method: 'GET', route: 'unmatched', status: 404 },
    ]);
    for (const line of access) {
      expect(line.duration_ms).toBeGreaterThanOrEqual(0);
      expect(line.level).toBe('info');
      expect(typeof line.time).toBe('string');
    }
  });

  it('puts the request id on the lines the error translator writes, and never logs the API key', async () => {
    // A table gone under the service: every content request now fails with an unexpected error.
    await runtime.db.run(sql`alter table content rename to content_gone`);
    const [first, second] = await Promise.all(
      ['broken-1', 'broken-2'].map((id) =>
        call(server, 'POST', '/api/v1/content', {
          headers: { ...ws.headers, 'x-request-id': id },
          body: { caption: 'x' },
        }),
      ),
    );
    expect([first.status, second.status]).toEqual([500, 500]);
    const errors = lines.filter((line) => line.msg === 'Unexpected error');
    expect(errors.map((line) => line.request_id).sort()).toEqual(['broken-1', 'broken-2']);
    // Each engine's own words for a missing table.
    for (const line of errors) expect(line.err.message).toMatch(/no such table|relation "content" does not exist/);
    const key = ws.headers.authorization.replace('Bearer ', '');
    expect(JSON.stringify(lines)).not.toContain(key);
  });

  it('records a request whose client went away before any answer as 499, aborted', async () => {
    const hooked = await capturedRuntime({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    const hookedServer = await startTestServer(hooked.runtime);
    const hookedWs = await makeWorkspace(hooked.runtime);
    const receiver = await startReceiver();
    try {
      receiver.respondWith('hang');
      const hook = await call(hookedServer, 'POST', '/api/v1/webhooks', {
        headers: hookedWs.headers,
        body: { url: `${receiver.url}/hook` },
      });
      const client = new AbortController();
      // The test delivery waits on the receiver, which never answers; the client gives up first.
      const testing = hookedServer
        .request(`/api/v1/webhooks/${hook.body.id}/test`, {
          method: 'POST',
          headers: { ...hookedWs.headers, 'x-request-id': 'gave-up' },
          signal: client.signal,
        })
        .catch(() => 'aborted');
      await receiver.waitForRequests(1);
      client.abort();
      expect(await testing).toBe('aborted');
      await eventually('the access line is written', () =>
        hooked.lines.some((line) => line.request_id === 'gave-up' && line.msg === 'request'),
      );
      expect(hooked.lines.find((line) => line.request_id === 'gave-up' && line.msg === 'request')).toMatchObject({
        route: '/api/v1/webhooks/:id/test',
        status: 499,
        aborted: true,
      });
    } finally {
      await hookedServer.close();
      await receiver.close();
    }
  });

  it('gives each line the context and its own fields only', () => {
    withLogContext({ request_id: 'r' }, () => {
      runtime.log.info({ detail: 1 }, 'first');
      runtime.log.info('second');
    });
    runtime.log.info('outside');
    const [first, second, outside] = ['first', 'second', 'outside'].map((msg) =>
      lines.find((line) => line.msg === msg)!,
    );
    expect(first).toMatchObject({ request_id: 'r', detail: 1 });
    expect(second).toMatchObject({ request_id: 'r' });
    expect(second).not.toHaveProperty('detail');
    expect(outside).not.toHaveProperty('request_id');
  });

  it('runs each piece of a group commit in the log context of whoever queued it', async () => {
    const logged = (id: string | null) => {
      const work = () => inNextCommit(runtime.db, () => runtime.log.info('inside'));
      return id === null ? work() : withLogContext({ request_id: id }, work);
    };
    // Queued in one turn of the event loop: one batch, run on the first one's call stack.
    await Promise.all([logged('a'), logged(null), logged('b')]);
    const contexts = lines.filter((line) => line.msg === 'inside').map((line) => line.request_id ?? null);
    expect([...contexts].sort()).toEqual(['a', 'b', null]);
    // SQLite runs the batch in one transaction in the order queued; PostgreSQL runs each piece in a
    // transaction of its own, concurrently, so the order of their lines is not defined there.
    if (TEST_ENGINE === 'sqlite') expect(contexts).toEqual(['a', null, 'b']);
  });
});

describe('GET /metrics', () => {
  let runtime: TestRuntime;
  let server: TestServer;
  let ws: TestWorkspace;
  let receiver: Receiver;
  beforeEach(async () => {
    ({ runtime } = await capturedRuntime({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }));
    server = await startTestServer(runtime);
    ws = await makeWorkspace(runtime);
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await server.close();
    await receiver.close();
  });
  const scrape = async () => {
    const res = await server.request('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  it('counts requests and their durations by method, route pattern and status, never by raw path', async () => {
    const created = await call(server, 'POST', '/api/v1/content', { headers: ws.headers, body: { caption: 'x' } });
    const read = `http_requests_total{method="GET",route="/api/v1/content/:id",status="200"}`;
    const before = await scrape();
    expect(sample(before, `http_requests_total{method="POST",route="/api/v1/content",status="201"}`)).toBe(1);
    expect(sample(before, read)).toBeUndefined();

    await call(server, 'GET', `/api/v1/content/${created.body.id}`, { headers: ws.headers });
    await call(server, 'GET', `/api/v1/content/${created.body.id}`, { headers: ws.headers });
    await call(server, 'DELETE', '/api/v1/content/00000000-0000-7000-8000-000000000000', { headers: ws.headers });
    await call(server, 'GET', `/nowhere/${created.body.id}`);
    const after = await scrape();
    expect(sample(after, read)).toBe(2);
    expect(sample(after, `http_requests_total{method="DELETE",route="/api/v1/content/:id",status="404"}`)).toBe(1);
    expect(sample(after, `http_requests_total{method="GET",route="unmatched",status="404"}`)).toBe(1);
    expect(
      sample(after, `http_request_duration_seconds_count{method="GET",route="/api/v1/content/:id",status="200"}`),
    ).toBe(2);
    expect(
      sample(
        after,
        `http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/api/v1/content/:id",status="200"}`,
      ),
    ).toBe(2);
    expect(after).not.toContain(created.body.id);
  });

  it('shows the publishing queue and what publishing came to', async () => {
    await connectAccounts(runtime, ws.workspace, ['twitter']);
    for (let i = 0; i < 2; i++) {
      const item = await call(server, 'POST', '/api/v1/content', {
        headers: ws.headers,
        body: { caption: `post ${i}`, content_type: 'text_only', target_platforms: ['twitter', 'linkedin'] },
      });
      expect(
        (await call(server, 'POST', `/api/v1/content/${item.body.id}/publish`, { headers: ws.headers, body: {} }))
          .status,
      ).toBe(202);
    }
    runtime.clock.advance(90_000);
    const queued = await scrape();
    expect(sample(queued, 'publish_queue_depth{state="due"}')).toBe(2);
    expect(sample(queued, 'publish_queue_depth{state="in_flight"}')).toBe(0);
    expect(sample(queued, 'publish_queue_oldest_age_seconds{state="due"}')).toBe(90);
    expect(sample(queued, 'publish_runs_total{result="published"}')).toBe(0);

    expect(await drain(runtime, publishingJob(runtime, connectorsFor(runtime)))).toEqual(['published', 'published']);
    const published = await scrape();
    expect(sample(published, 'publish_queue_depth{state="due"}')).toBe(0);
    expect(sample(published, 'publish_queue_oldest_age_seconds{state="due"}')).toBe(0);
    expect(sample(published, 'publish_runs_total{result="published"}')).toBe(2);
    expect(sample(published, 'publish_platform_calls_total{platform="twitter",result="published"}')).toBe(2);
    // LinkedIn has no connected account: refused before any call, so no call is counted.
    expect(sample(published, 'publish_platform_calls_total{platform="linkedin",result="rejected"}')).toBe(0);
  });

  it('shows the webhook delivery queue and the delivery outcomes', async () => {
    const hook = await call(server, 'POST', '/api/v1/webhooks', {
      headers: ws.headers,
      body: { url: `${receiver.url}/hook`, events: ['content.created'] },
    });
    expect(hook.status).toBe(201);
    receiver.respondWith({ status: 500 });
    for (let i = 0; i < 3; i++)
      await call(server, 'POST', '/api/v1/content', { headers: ws.headers, body: { caption: `c${i}` } });
    await enqueueAllEvents(runtime);
    runtime.clock.advance(5_000);
    const queued = await scrape();
    expect(sample(queued, 'webhook_queue_depth{state="due"}')).toBe(3);
    expect(sample(queued, 'webhook_queue_oldest_due_age_seconds')).toBe(5);

    await drain(runtime, webhookDeliveryJob(runtime));
    const retrying = await scrape();
    expect(sample(retrying, 'webhook_deliveries_total{status="pending_retry"}')).toBe(3);
    expect(sample(retrying, 'webhook_queue_depth{state="due"}')).toBe(0);
    expect(sample(retrying, 'webhook_queue_depth{state="waiting"}')).toBe(3);

    receiver.respondWith({ status: 204 });
    runtime.clock.advance(runtime.config.webhooks.retryDelaysSeconds[0]! * 1000);
    await drain(runtime, webhookDeliveryJob(runtime));
    const delivered = await scrape();
    expect(sample(delivered, 'webhook_deliveries_total{status="delivered"}')).toBe(3);
    expect(sample(delivered, 'webhook_deliveries_total{status="failed"}')).toBe(0);
    expect(sample(delivered, 'webhook_queue_depth{state="waiting"}')).toBe(0);
  });

  it('asks for the bearer token when METRICS_TOKEN is set', async () => {
    const token = 'metrics-token-0123456789';
    const guarded = (await capturedRuntime({ METRICS_TOKEN: token })).runtime;
    const guardedServer = await startTestServer(guarded);
    try {
      expect((await guardedServer.request('/metrics')).status).toBe(401);
      expect((await guardedServer.request('/metrics', { headers: { authorization: 'Bearer wrong' } })).status).toBe(
        401,
      );
      const ok = await guardedServer.request('/metrics', { headers: { authorization: `Bearer ${token}` } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('http_requests_total');
    } finally {
      await guardedServer.close();
    }
  });
});
