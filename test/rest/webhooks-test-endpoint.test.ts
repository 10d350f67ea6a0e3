import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { webhookDeliveries, webhookJobs } from '../../db/schema/index.ts';
import { newDeliveryId, recordDeliveryAttempt } from '../../src/core/webhooks/delivery-log.ts';
import { TEST_EVENT_MESSAGE } from '../../src/core/webhooks/operations.ts';
import { drain } from '../../src/jobs/drain.ts';
import { webhookDeliveryJob } from '../../src/jobs/webhook-delivery.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { baseEnv, eventsOf, expectError } from '../helpers/rest-expect.ts';
import { refusedUrl, startReceiver, type ReceivedRequest, type Receiver } from '../helpers/webhook-receiver.ts';

const env = { ...baseEnv, ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'), WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };

/** Verifies a received delivery the way a customer would, with the standardwebhooks package. */
function verify(secret: string, request: ReceivedRequest): unknown {
  const headers = {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(request.body, headers);
}

/** POST /webhooks/{id}/test, rotation seen by a receiver, and GET /webhooks/{id}/deliveries. */
describe('REST webhook test deliveries and the delivery log', () => {
  let receiver: Receiver;
  const bed = useRestTestbed({ env, start: new Date().toISOString() });
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  const send = (method: string, path: string, body?: unknown) =>
    call(bed.server, method, path, { headers: bed.ws.headers, body });
  const create = async (url = `${receiver.url}/hook`, events: string[] = ['content.published']) => {
    const res = await send('POST', '/api/v1/webhooks', { url, events });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; signing_secret: string };
  };
  const deliveries = async (id: string, query = '') => {
    const res = await send('GET', `/api/v1/webhooks/${id}/deliveries${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };

  it('delivers a signed synthetic webhook.test event, also while disabled, and logs it', async () => {
    const webhook = await create();
    const off = await send('PATCH', `/api/v1/webhooks/${webhook.id}`, { is_enabled: false });
    expect(off.body.is_enabled).toBe(false);

    const res = await send('POST', `/api/v1/webhooks/${webhook.id}/test`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['delivered', 'duration_ms', 'status_code']);
    expect(res.body).toMatchObject({ delivered: true, status_code: 200 });
    expect(Number.isInteger(res.body.duration_ms)).toBe(true);
    expect(res.body.duration_ms).toBeGreaterThanOrEqual(0);

    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hook');
    const body = JSON.parse(request.body);
    expect(body).toEqual({
      id: expect.stringMatching(/^evt_[0-9A-Za-z]{24}$/),
      object: 'event',
      type: 'webhook.test',
      created_at: bed.runtime.clock.now().toISOString(),
      workspace_id: bed.ws.workspace.id,
      delivery_id: expect.stringMatching(/^whd_[0-9A-Za-z]{24}$/),
      attempt: 1,
      data: { webhook_id: webhook.id, message: TEST_EVENT_MESSAGE },
    });
    expect(request.headers['webhook-id']).toBe(body.id);
    expect(verify(webhook.signing_secret, request)).toEqual(body);

    const log = await deliveries(webhook.id);
    expect(log).toEqual({
      object: 'list',
      data: [
        {
          id: body.delivery_id,
          object: 'webhook_delivery',
          event_id: body.id,
          event_type: 'webhook.test',
          attempt: 1,
          status: 'delivered',
          status_code: 200,
          response_body: null,
          duration_ms: res.body.duration_ms,
          delivered_at: bed.runtime.clock.now().toISOString(),
        },
      ],
      has_more: false,
      next_cursor: null,
    });
    // Logged as a test (it never counts towards auto-disable) of no job.
    const stored = await bed.runtime.db.select().from(webhookDeliveries).all();
    expect(stored.map((r) => ({ isTest: r.isTest, jobId: r.jobId }))).toEqual([{ isTest: true, jobId: null }]);
    // Synthetic: not in the outbox (no other subscription sees it), no job, still disabled.
    expect((await eventsOf(bed.runtime, bed.ws.workspace.id)).map((e) => e.type)).not.toContain('webhook.test');
    expect(await bed.runtime.db.select().from(webhookJobs).all()).toEqual([]);
    expect((await send('GET', `/api/v1/webhooks/${webhook.id}`)).body.is_enabled).toBe(false);
  });

  it('a 500 answer is delivered false with the status, logged failed with the response body, never retried', async () => {
    const webhook = await create();
    receiver.respondWith({ status: 500, body: 'receiver exploded' });
    const res = await send('POST', `/api/v1/webhooks/${webhook.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ delivered: false, status_code: 500 });
    const log = await deliveries(webhook.id);
    expect(log.data).toHaveLength(1);
    expect(log.data[0]).toMatchObject({
      event_type: 'webhook.test',
      attempt: 1,
      status: 'failed',
      status_code: 500,
      response_body: 'receiver exploded',
    });
    expect(await bed.runtime.db.select().from(webhookJobs).all()).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.requests).toHaveLength(1);
    // A 3xx is a failure too, and its Location is not followed.
    receiver.respondWith({ status: 302, location: '/elsewhere' });
    expect((await send('POST', `/api/v1/webhooks/${webhook.id}/test`)).body).toMatchObject({
      delivered: false,
      status_code: 302,
    });
    expect(receiver.requests.map((r) => r.path)).toEqual(['/hook', '/hook']);
  });

  it('status_code is 0 when no HTTP response came (connection refused)', async () => {
    const webhook = await create(`${await refusedUrl()}/hook`);
    const res = await send('POST', `/api/v1/webhooks/${webhook.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ delivered: false, status_code: 0 });
    const [row] = (await deliveries(webhook.id)).data;
    expect(row).toMatchObject({ status: 'failed', status_code: 0, attempt: 1 });
    expect(typeof row.response_body).toBe('string');
    expect(row.response_body.length).toBeGreaterThan(0);
  });

  it('rotation invalidates the old secret at once: the next delivery verifies only with the new one', async () => {
    const webhook = await create();
    await send('POST', `/api/v1/webhooks/${webhook.id}/test`);
    expect(() => verify(webhook.signing_secret, receiver.requests[0])).not.toThrow();

    const rotated = await send('POST', `/api/v1/webhooks/${webhook.id}/rotate`);
    expect(rotated.status).toBe(200);
    const newSecret: string = rotated.body.signing_secret;
    expect(newSecret).not.toBe(webhook.signing_secret);

    await send('POST', `/api/v1/webhooks/${webhook.id}/test`);
    const after = receiver.requests[1];
    expect(() => verify(webhook.signing_secret, after)).toThrow();
    expect(verify(newSecret, after)).toEqual(JSON.parse(after.body));
    // Each test is its own event.
    expect(after.headers['webhook-id']).not.toBe(receiver.requests[0].headers['webhook-id']);
  });

  it('a webhook deleted while its test delivery is out still answers the attempt, and logs nothing', async () => {
    const webhook = await create();
    receiver.respondWith('hang');
    const testing = send('POST', `/api/v1/webhooks/${webhook.id}/test`);
    await receiver.waitForRequests(1);
    expect((await send('DELETE', `/api/v1/webhooks/${webhook.id}`)).status).toBe(200);
    await receiver.close();
    const res = await testing;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ delivered: false, status_code: 0 });
    expectError(await send('GET', `/api/v1/webhooks/${webhook.id}/deliveries`), 404, 'not_found');
  });

  describe('the delivery log', () => {
    /** Writes `count` log rows for `webhookId`, one per `stepMs`, as the worker would; returns their ids, newest first. */
    async function logAttempts(
      webhookId: string,
      count: number,
      stepMs: number,
      from = bed.runtime.clock.now().getTime(),
    ): Promise<string[]> {
      const ids: Array<{ id: string; at: number }> = [];
      for (let i = 0; i < count; i += 1) {
        const id = newDeliveryId();
        const at = from + i * stepMs;
        await recordDeliveryAttempt(bed.runtime.db, id, {
          webhookId,
          jobId: null,
          eventId: `evt_${i}`,
          eventType: 'content.published',
          attempt: (i % 6) + 1,
          status: i % 2 ? 'pending_retry' : 'delivered',
          result: { statusCode: i % 2 ? 503 : 204, responseBody: i % 2 ? 'busy' : null, durationMs: 12.4, error: null },
          at: new Date(at),
          isTest: false,
        });
        ids.push({ id, at });
      }
      return ids.sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1)).map((r) => r.id);
    }

    async function walk(id: string, limit: number): Promise<{ ids: string[]; pages: number }> {
      const ids: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await deliveries(id, `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
        pages += 1;
        expect(page.data.length).toBeLessThanOrEqual(limit);
        expect(page.next_cursor === null).toBe(!page.has_more);
        ids.push(...page.data.map((d: any) => d.id));
        cursor = page.next_cursor;
      } while (cursor !== null && pages < 50);
      return { ids, pages };
    }

    it('lists the most recent attempts first and pages them with limit and cursor', async () => {
      const webhook = await create();
      const other = await create();
      const expected = await logAttempts(webhook.id, 7, 1000);
      await logAttempts(other.id, 3, 500);

      const first = await deliveries(webhook.id, '?limit=3');
      expect(first.has_more).toBe(true);
      expect(first.data.map((d: any) => d.id)).toEqual(expected.slice(0, 3));
      expect(first.data[0]).toMatchObject({
        object: 'webhook_delivery',
        status: 'delivered',
        status_code: 204,
        response_body: null,
        duration_ms: 12,
      });
      expect(first.data[1]).toMatchObject({ status: 'pending_retry', status_code: 503, response_body: 'busy' });
      const second = await deliveries(webhook.id, `?limit=3&cursor=${first.next_cursor}`);
      expect(second.data.map((d: any) => d.id)).toEqual(expected.slice(3, 6));
      const third = await deliveries(webhook.id, `?limit=3&cursor=${second.next_cursor}`);
      expect(third).toMatchObject({ has_more: false, next_cursor: null });
      expect(third.data.map((d: any) => d.id)).toEqual(expected.slice(6));
      expect((await deliveries(webhook.id)).data.map((d: any) => d.id)).toEqual(expected);
    });

    it('never skips attempts that share a timestamp on a page boundary', async () => {
      const webhook = await create();
      const expected = await logAttempts(webhook.id, 9, 0);
      const { ids } = await walk(webhook.id, 2);
      expect(ids).toEqual(expected);
    });

    it('defaults to 25, clamps to 100, falls back on bad limits, and drops a malformed cursor', async () => {
      const webhook = await create();
      const expected = await logAttempts(webhook.id, 120, 10);
      expect((await deliveries(webhook.id)).data).toHaveLength(25);
      for (const limit of ['0', '-3', 'abc'])
        expect((await deliveries(webhook.id, `?limit=${limit}`)).data, limit).toHaveLength(25);
      const all = await deliveries(webhook.id, '?limit=500');
      expect(all.data).toHaveLength(100);
      expect(all.has_more).toBe(true);
      const dropped = await deliveries(webhook.id, '?limit=2&cursor=%%%not-a-cursor');
      expect(dropped.data.map((d: any) => d.id)).toEqual(expected.slice(0, 2));
      expect((await walk(webhook.id, 100)).ids).toEqual(expected);
    });
  });
});

/**
 * The retry ladder as configured (`WEBHOOK_RETRY_DELAYS`), seen through the REST door: an event
 * created by POST /content to a failing receiver, its attempts read back from the delivery log.
 */
describe('REST webhook delivery log: a configured retry ladder', () => {
  const LADDER_SECONDS = [45, 300, 7200];
  let receiver: Receiver;
  const bed = useRestTestbed({ env: { ...env, WEBHOOK_RETRY_DELAYS: LADDER_SECONDS.join(',') } });
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  const send = (method: string, path: string, body?: unknown) =>
    call(bed.server, method, path, { headers: bed.ws.headers, body });
  const deliver = () => drain(bed.runtime, webhookDeliveryJob(bed.runtime));

  it('retries each delay after the attempt before, no sooner, then logs the last attempt failed and stops', async () => {
    receiver.respondWith({ status: 503, body: 'busy' });
    const hook = await send('POST', '/api/v1/webhooks', { url: `${receiver.url}/hook`, events: ['content.created'] });
    expect(hook.status).toBe(201);
    expect((await send('POST', '/api/v1/content', { caption: 'Retried' })).status).toBe(201);

    const attemptedAt = [bed.runtime.clock.now().toISOString()];
    expect(await deliver()).toEqual(['retry']);
    for (const [index, seconds] of LADDER_SECONDS.entries()) {
      bed.runtime.clock.advance(seconds * 1000 - 1);
      expect(await deliver(), `before retry ${index + 1}`).toEqual([]);
      bed.runtime.clock.advance(1);
      attemptedAt.push(bed.runtime.clock.now().toISOString());
      expect(await deliver(), `retry ${index + 1}`).toEqual([index === LADDER_SECONDS.length - 1 ? 'dead' : 'retry']);
    }
    bed.runtime.clock.advance(24 * 3_600_000);
    expect(await deliver()).toEqual([]);
    expect(receiver.requests).toHaveLength(LADDER_SECONDS.length + 1);

    const log = await send('GET', `/api/v1/webhooks/${hook.body.id}/deliveries`);
    expect(log.status).toBe(200);
    // Newest first: the last attempt failed, every one before it waits for the next.
    expect(log.body.data.map((d: any) => [d.event_type, d.attempt, d.status, d.status_code, d.delivered_at])).toEqual(
      attemptedAt
        .map((at, i) => ['content.created', i + 1, i === LADDER_SECONDS.length ? 'failed' : 'pending_retry', 503, at])
        .reverse(),
    );
    expect(new Set(log.body.data.map((d: any) => d.event_id)).size).toBe(1);
  });
});
