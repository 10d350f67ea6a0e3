import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enqueueAllEvents } from '../../src/core/webhooks/delivery/enqueue.ts';
import { drain } from '../../src/jobs/drain.ts';
import { webhookDeliveryJob } from '../../src/jobs/webhook-delivery.ts';
import { makeContent, makeWebhook, makeWorkspace } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { baseEnv, expectError, expectFieldError } from '../helpers/rest-expect.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';

/** One retry, a second after the first attempt: two 500s and a delivery has failed for good. */
const env = { ...baseEnv, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '500', WEBHOOK_RETRY_DELAYS: '1' };

describe('REST webhook delivery log filter and resends', () => {
  const bed = useRestTestbed({ env });
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());

  const send = (method: string, path: string, body?: unknown, headers = bed.ws.headers) =>
    call(bed.server, method, path, { headers, body });
  const deliverAll = async () => {
    await enqueueAllEvents(bed.runtime);
    await drain(bed.runtime, webhookDeliveryJob(bed.runtime));
  };
  /** An event whose delivery failed for good: both attempts answered 500. */
  const failedEvent = async (webhookId: string, caption: string) => {
    receiver.respondWith({ status: 500, body: 'receiver broken' });
    const item = await makeContent(bed.runtime, bed.ws.workspace, { caption });
    await deliverAll();
    bed.runtime.clock.advance(1000);
    await deliverAll();
    const log = await send('GET', `/api/v1/webhooks/${webhookId}/deliveries?status=failed`);
    return { item, log: log.body.data as Array<Record<string, any>> };
  };
  const eventIdsReceived = () => receiver.requests.map((r) => r.headers['webhook-id']);

  it('filters the log by outcome and resends one delivery under the same event id', async () => {
    const hook = await makeWebhook(bed.runtime, bed.ws.workspace, { url: `${receiver.url}/hook`, events: [] });
    const { log } = await failedEvent(hook.id, 'first');
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ status: 'failed', status_code: 500, response_body: 'receiver broken', attempt: 2 });
    const retried = await send('GET', `/api/v1/webhooks/${hook.id}/deliveries?status=pending_retry`);
    expect(retried.body.data.map((d: any) => d.status_code)).toEqual([500]);
    expect((await send('GET', `/api/v1/webhooks/${hook.id}/deliveries?status=delivered`)).body.data).toEqual([]);
    expectFieldError(await send('GET', `/api/v1/webhooks/${hook.id}/deliveries?status=bounced`), 'status');

    receiver.respondWith({ status: 200 });
    const resent = await send('POST', `/api/v1/webhooks/${hook.id}/deliveries/${log[0]!.id}/resend`);
    expect(resent.status, JSON.stringify(resent.body)).toBe(200);
    expect(resent.body).toEqual({
      object: 'webhook_resend',
      webhook_id: hook.id,
      queued: 1,
      events: [{ event_id: log[0]!.event_id, event_type: 'content.created' }],
      has_more: false,
    });
    // Queued once: a second resend before it goes out is refused.
    expectError(
      await send('POST', `/api/v1/webhooks/${hook.id}/deliveries/${log[0]!.id}/resend`),
      409,
      'invalid_state',
    );
    await deliverAll();
    expect(eventIdsReceived()).toEqual([log[0]!.event_id, log[0]!.event_id, log[0]!.event_id]);
    const delivered = await send('GET', `/api/v1/webhooks/${hook.id}/deliveries?status=delivered`);
    expect(delivered.body.data).toEqual([
      expect.objectContaining({ event_id: log[0]!.event_id, status_code: 200, attempt: 1 }),
    ]);
  });

  it('resends the failed events of a range, skipping delivered and queued ones; refuses bad ranges', async () => {
    const hook = await makeWebhook(bed.runtime, bed.ws.workspace, { url: `${receiver.url}/hook`, events: [] });
    const since = bed.runtime.clock.now().toISOString();
    const a = await failedEvent(hook.id, 'a');
    const b = await failedEvent(hook.id, 'b');
    receiver.respondWith({ status: 200 });
    await makeContent(bed.runtime, bed.ws.workspace, { caption: 'delivered at once' });
    await deliverAll();
    const failedIds = [a.log.at(-1)!.event_id, b.log[0]!.event_id];
    expect(new Set(failedIds).size).toBe(2);
    bed.runtime.clock.advance(1000);

    const url = `/api/v1/webhooks/${hook.id}/resend-failed`;
    expectFieldError(await send('POST', url, { since: 'yesterday' }), 'since');
    expectFieldError(await send('POST', url, { since, until: since }), 'until');
    expectFieldError(
      await send('POST', url, { since: '2026-01-01T00:00:00Z', until: '2026-03-01T00:00:00Z' }),
      'since',
    );

    const res = await send('POST', url, { since });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.queued).toBe(2);
    expect(res.body.events.map((e: any) => e.event_id)).toEqual(failedIds);
    expect(res.body.has_more).toBe(false);
    // Queued already: nothing more to queue.
    expect((await send('POST', url, { since })).body.queued).toBe(0);
    receiver.requests.length = 0;
    await deliverAll();
    expect(eventIdsReceived().sort()).toEqual([...failedIds].sort());
    // Delivered now: nothing failed is left undelivered in the range.
    expect((await send('POST', url, { since })).body.queued).toBe(0);
  });

  it('refuses both on a disabled webhook, and test deliveries; another workspace gets 404', async () => {
    const hook = await makeWebhook(bed.runtime, bed.ws.workspace, { url: `${receiver.url}/hook`, events: [] });
    const { log } = await failedEvent(hook.id, 'x');
    await send('PATCH', `/api/v1/webhooks/${hook.id}`, { is_enabled: false });
    const since = '2026-03-10T00:00:00Z';
    const single = await send('POST', `/api/v1/webhooks/${hook.id}/deliveries/${log[0]!.id}/resend`);
    expectError(single, 409, 'invalid_state');
    expect(single.body.error.message).toMatch(/disabled/);
    expectError(await send('POST', `/api/v1/webhooks/${hook.id}/resend-failed`, { since }), 409, 'invalid_state');

    await send('PATCH', `/api/v1/webhooks/${hook.id}`, { is_enabled: true });
    receiver.respondWith({ status: 200 });
    await send('POST', `/api/v1/webhooks/${hook.id}/test`);
    const test = (await send('GET', `/api/v1/webhooks/${hook.id}/deliveries?status=delivered`)).body.data[0];
    expect(test.event_type).toBe('webhook.test');
    expectError(await send('POST', `/api/v1/webhooks/${hook.id}/deliveries/${test.id}/resend`), 409, 'invalid_state');

    const other = await makeWorkspace(bed.runtime);
    for (const [method, path, body] of [
      ['POST', `/api/v1/webhooks/${hook.id}/deliveries/${log[0]!.id}/resend`],
      ['POST', `/api/v1/webhooks/${hook.id}/resend-failed`, { since }],
      ['GET', `/api/v1/webhooks/${hook.id}/deliveries?status=failed`],
    ] as const) {
      expectError(await send(method, path, body, other.headers), 404, 'not_found');
    }
    expectError(await send('POST', `/api/v1/webhooks/${hook.id}/deliveries/whd_nope/resend`), 404, 'not_found');
  });
});
