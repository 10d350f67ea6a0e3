import { eq, max } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import dns from 'node:dns';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { events, webhooks } from '../../../db/schema/index.ts';
import { contextFor, type ServiceContext } from '../../../src/core/context.ts';
import { executeOperation } from '../../../src/core/operation.ts';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  MAX_WEBHOOKS_PER_WORKSPACE,
  updateWebhook,
} from '../../../src/core/webhooks/operations.ts';
import { makeContent, makeWorkspace, type TestWorkspace } from '../../helpers/factories.ts';
import { testRuntime, type TestRuntime } from '../../helpers/runtime.ts';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.ts';
import { drain } from '../../../src/jobs/drain.ts';
import { webhookDeliveryJob } from '../../../src/jobs/webhook-delivery.ts';

const env = { ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64') };
const PUBLIC_URL = 'https://93.184.216.34/hooks';

/** Subscriptions in the core: what they are sent from, and the ordering of their async checks. */
describe('webhook subscriptions', () => {
  let runtime: TestRuntime;
  let ws: TestWorkspace;
  let ctx: ServiceContext;
  beforeEach(async () => {
    runtime = await testRuntime({ env, start: new Date().toISOString() });
    ws = await makeWorkspace(runtime);
    ctx = contextFor(runtime, ws.workspace, 'rest');
  });

  const row = async (id: string) => runtime.db.select().from(webhooks).where(eq(webhooks.id, id)).get();
  const lastSeq = async () =>
    (
      await runtime.db
        .select({ seq: max(events.seq) })
        .from(events)
        .get()
    )?.seq ?? 0;

  describe('what a new subscription is sent', () => {
    let receiver: Receiver;
    beforeEach(async () => {
      runtime = await testRuntime({
        env: { ...env, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
        start: new Date().toISOString(),
      });
      ws = await makeWorkspace(runtime);
      ctx = contextFor(runtime, ws.workspace, 'rest');
      receiver = await startReceiver();
    });
    afterEach(() => receiver.close());

    it('starts after the last event written before it, so earlier events are never sent to it', async () => {
      const first = await executeOperation(ctx, createWebhook, { url: `${receiver.url}/first` });
      expect((await row(first.id))!.startAfterSeq).toBe(0);

      const before = await makeContent(runtime, ws.workspace, { caption: 'Written before the second subscription' });
      const seqBefore = await lastSeq();
      expect(seqBefore).toBeGreaterThan(0);
      const second = await executeOperation(ctx, createWebhook, {
        url: `${receiver.url}/second`,
        events: ['content.created'],
      });
      expect((await row(second.id))!.startAfterSeq).toBe(seqBefore);

      const after = await makeContent(runtime, ws.workspace, { caption: 'Written after it' });
      await drain(runtime, webhookDeliveryJob(runtime));

      const sent = (path: string) =>
        receiver.requests.filter((r) => r.path === path).map((r) => JSON.parse(r.body).data.content.id as string);
      // Attempts run side by side, so the two may arrive in either order.
      expect(sent('/first').sort()).toEqual([before.id, after.id].sort());
      expect(sent('/second')).toEqual([after.id]);
      // The worker signs with the secret the create answer showed.
      const delivery = receiver.requests.find((r) => r.path === '/second')!;
      const headers = Object.fromEntries(
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(delivery.headers[h])]),
      );
      expect(() => new Webhook(second.signing_secret!).verify(delivery.body, headers)).not.toThrow();
      expect(() => new Webhook(first.signing_secret!).verify(delivery.body, headers)).toThrow();
    });
  });

  describe('checks that wait on the network', () => {
    it('answers not_found for an unknown id before checking its URL', async () => {
      await expect(
        executeOperation(ctx, updateWebhook, { id: 'whk_unknown', url: 'http://127.0.0.1/x' }),
      ).rejects.toMatchObject({
        code: 'not_found',
      });
    });

    it('refuses a host that does not resolve', async () => {
      await expect(
        executeOperation(ctx, createWebhook, { url: 'https://hooks.example.invalid/x' }),
      ).rejects.toMatchObject({
        code: 'invalid_body',
        details: { fieldErrors: { url: [expect.stringMatching(/does not resolve/)] } },
      });
    });

    it('a webhook deleted while its new URL was being checked is not_found, and stays deleted', async () => {
      const created = await executeOperation(ctx, createWebhook, { url: PUBLIC_URL });
      // The new host's lookup is where the update waits on the network: the delete commits meanwhile.
      let deleting: Promise<unknown> | undefined;
      const lookup = vi.spyOn(dns.promises, 'lookup').mockImplementation((async () => {
        deleting = executeOperation(ctx, deleteWebhook, { id: created.id });
        await deleting.catch(() => {});
        return [{ address: '93.184.216.34', family: 4 }];
      }) as unknown as typeof dns.promises.lookup);
      try {
        await expect(
          executeOperation(ctx, updateWebhook, {
            id: created.id,
            url: 'https://hooks.moved.test/x',
            is_enabled: false,
          }),
        ).rejects.toMatchObject({ code: 'not_found' });
      } finally {
        lookup.mockRestore();
      }
      expect(deleting).toBeDefined();
      await expect(deleting).resolves.toEqual({ id: created.id, object: 'webhook', deleted: true });
      expect(await row(created.id)).toBeUndefined();
    });

    it('two creates racing for the last free place: exactly one gets it', async () => {
      for (let i = 0; i < MAX_WEBHOOKS_PER_WORKSPACE - 1; i += 1)
        await executeOperation(ctx, createWebhook, { url: PUBLIC_URL });
      const outcomes = await Promise.allSettled([
        executeOperation(ctx, createWebhook, { url: PUBLIC_URL }),
        executeOperation(ctx, createWebhook, { url: PUBLIC_URL }),
      ]);
      expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({ reason: { code: 'quota_exceeded' } });
      expect(await runtime.db.select().from(webhooks).all()).toHaveLength(MAX_WEBHOOKS_PER_WORKSPACE);
    });

    it('a PATCH without a URL is written in the request commit and wakes the worker only when enabling', async () => {
      const created = await executeOperation(ctx, createWebhook, { url: PUBLIC_URL });
      const woken: number[] = [];
      runtime.wakeups.listen('webhooks', () => woken.push(Date.now()));
      await executeOperation(ctx, updateWebhook, { id: created.id, is_enabled: false });
      await executeOperation(ctx, updateWebhook, { id: created.id, events: ['content.deleted'] });
      expect(woken).toHaveLength(0);
      const enabled = await executeOperation(ctx, updateWebhook, { id: created.id, is_enabled: true });
      expect(enabled).toMatchObject({ is_enabled: true, events: ['content.deleted'], signing_secret: null });
      expect(woken).toHaveLength(1);
      expect(await executeOperation(ctx, getWebhook, { id: created.id })).toEqual(enabled);
    });
  });
});
