import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { webhookDeliveries, webhookJobs, webhooks } from '../../db/schema/index.ts';
import { EVENT_TYPES } from '../../src/core/events/record-event.ts';
import { newDeliveryId, recordDeliveryAttempt } from '../../src/core/webhooks/delivery-log.ts';
import { MAX_WEBHOOKS_PER_WORKSPACE } from '../../src/core/webhooks/operations.ts';
import { decryptSecret } from '../../src/core/secrets.ts';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { call, startTestServer, useRestTestbed } from '../helpers/http.ts';
import { baseEnv, expectError, expectFieldError } from '../helpers/rest-expect.ts';
import { testRuntime } from '../helpers/runtime.ts';

/** A fixed key, so nothing is written to a data directory. */
const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');
const env = { ...baseEnv, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY };

/** Public addresses as IP literals: the SSRF guard passes them without a DNS lookup (the sandbox has none). */
const URL_A = 'https://93.184.216.34/hooks/a';
const URL_B = 'https://1.1.1.1/hooks/b';

const WEBHOOK_ID = /^whk_[0-9A-Za-z]{24}$/;
const SIGNING_SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const RESOURCE_KEYS = [
  'auto_disabled_at',
  'created_at',
  'events',
  'id',
  'is_enabled',
  'object',
  'signing_secret',
  'url',
];

/** The subscription endpoints: create, read, update, rotate and delete, event names, URL rules. */
describe('REST webhooks', () => {
  const bed = useRestTestbed({ env });

  const send = (method: string, path: string, body?: unknown, headers = bed.ws.headers) =>
    call(bed.server, method, path, { headers, body });
  const create = async (body: Record<string, unknown> = { url: URL_A }, headers = bed.ws.headers) => {
    const res = await send('POST', '/api/v1/webhooks', body, headers);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  const storedRow = async (id: string) => bed.runtime.db.select().from(webhooks).where(eq(webhooks.id, id)).get();

  describe('create, read, list', () => {
    it('creates a subscription to every event, shown with its signing secret once', async () => {
      const res = await send('POST', '/api/v1/webhooks', { url: URL_A });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(RESOURCE_KEYS);
      expect(res.body).toEqual({
        id: expect.stringMatching(WEBHOOK_ID),
        object: 'webhook',
        url: URL_A,
        events: [],
        is_enabled: true,
        auto_disabled_at: null,
        created_at: bed.runtime.clock.now().toISOString(),
        signing_secret: expect.stringMatching(SIGNING_SECRET),
      });
      expect(Buffer.from(res.body.signing_secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
      expect(res.headers.get('x-ratelimit-limit')).toBe('60');

      const got = await send('GET', `/api/v1/webhooks/${res.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ ...res.body, signing_secret: null });
    });

    it('stores the secret encrypted, never as plaintext', async () => {
      const created = await create();
      const row = (await storedRow(created.id))!;
      expect(row.secretCiphertext).not.toContain(created.signing_secret);
      expect(row.secretCiphertext).not.toContain(created.signing_secret.slice('whsec_'.length));
      expect(decryptSecret(bed.runtime.config, row.secretCiphertext)).toBe(created.signing_secret);
      // Two subscriptions never share a secret.
      expect((await create()).signing_secret).not.toBe(created.signing_secret);
    });

    it('lists the full set newest first with signing_secret null, ignoring limit and cursor', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        ids.unshift((await create({ url: URL_A, events: ['content.published'] })).id);
        bed.runtime.clock.advance(1000);
      }
      for (const query of ['', '?limit=1', '?limit=1&cursor=abc', '?cursor=WzE3NzMxNDQwMzAwMDAsIngiXQ']) {
        const res = await send('GET', `/api/v1/webhooks${query}`);
        expect(res.status, query).toBe(200);
        expect(res.body.object).toBe('list');
        expect(res.body.has_more).toBe(false);
        expect(res.body.next_cursor).toBeNull();
        expect(
          res.body.data.map((w: any) => w.id),
          query,
        ).toEqual(ids);
        for (const webhook of res.body.data) expect(webhook.signing_secret).toBeNull();
      }
      expect((await send('GET', '/api/v1/webhooks')).body.data[2]).toEqual({
        id: ids[2],
        object: 'webhook',
        url: URL_A,
        events: ['content.published'],
        is_enabled: true,
        auto_disabled_at: null,
        created_at: '2026-03-10T12:00:30.000Z',
        signing_secret: null,
      });
    });

    it('answers an empty list for a workspace without webhooks', async () => {
      const res = await send('GET', '/api/v1/webhooks');
      expect(res.body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
    });

    it(`caps a workspace at ${MAX_WEBHOOKS_PER_WORKSPACE} subscriptions`, async () => {
      for (let i = 0; i < MAX_WEBHOOKS_PER_WORKSPACE; i += 1) await create();
      expectError(await send('POST', '/api/v1/webhooks', { url: URL_A }), 403, 'quota_exceeded');
      // Another workspace is not held back by this one.
      await create({ url: URL_A }, (await makeWorkspace(bed.runtime)).headers);
      expect((await send('GET', '/api/v1/webhooks')).body.data).toHaveLength(MAX_WEBHOOKS_PER_WORKSPACE);
    });
  });

  describe('events', () => {
    it('accepts each of the eleven names, reserved ones included, and removes duplicates in order', async () => {
      expect((await create({ url: URL_A, events: [...EVENT_TYPES] })).events).toEqual([...EVENT_TYPES]);
      const created = await create({
        url: URL_A,
        events: ['campaign.paused', 'content.created', 'campaign.paused', 'content.created'],
      });
      expect(created.events).toEqual(['campaign.paused', 'content.created']);
      expect((await storedRow(created.id))!.events).toEqual(['campaign.paused', 'content.created']);
    });

    it('refuses unknown names and webhook.test with fieldErrors.events, on create and on update', async () => {
      for (const events of [
        ['content.exploded'],
        ['content.created', 'webhook.test'],
        ['Content.Created'],
        [42],
        'content.created',
        null,
      ]) {
        const res = await send('POST', '/api/v1/webhooks', { url: URL_A, events });
        expectFieldError(res, 'events');
      }
      const synthetic = await send('POST', '/api/v1/webhooks', { url: URL_A, events: ['webhook.test'] });
      expect(synthetic.body.error.details.fieldErrors.events.join(' ')).toMatch(/webhook\.test cannot be subscribed/);
      const unknown = await send('POST', '/api/v1/webhooks', { url: URL_A, events: ['content.exploded'] });
      expect(unknown.body.error.details.fieldErrors.events.join(' ')).toMatch(/Unknown event "content\.exploded"/);
      expect((await send('GET', '/api/v1/webhooks')).body.data).toEqual([]);

      const created = await create({ url: URL_A, events: ['content.published'] });
      expectFieldError(await send('PATCH', `/api/v1/webhooks/${created.id}`, { events: ['webhook.test'] }), 'events');
      expectFieldError(await send('PATCH', `/api/v1/webhooks/${created.id}`, { events: ['nope'] }), 'events');
      expect((await storedRow(created.id))!.events).toEqual(['content.published']);
    });

    it('an empty array means every event, on create and when set by PATCH', async () => {
      const created = await create({ url: URL_A, events: [] });
      expect(created.events).toEqual([]);
      const narrowed = await create({ url: URL_A, events: ['content.deleted'] });
      const widened = await send('PATCH', `/api/v1/webhooks/${narrowed.id}`, { events: [] });
      expect(widened.status).toBe(200);
      expect(widened.body.events).toEqual([]);
    });
  });

  describe('update', () => {
    it('changes url, events and is_enabled, and answers the webhook without its secret', async () => {
      const created = await create({ url: URL_A, events: ['content.created'] });
      bed.runtime.clock.advance(5000);
      const res = await send('PATCH', `/api/v1/webhooks/${created.id}`, {
        url: URL_B,
        events: ['content.published', 'content.publish_failed'],
        is_enabled: false,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...created,
        url: URL_B,
        events: ['content.published', 'content.publish_failed'],
        is_enabled: false,
        signing_secret: null,
      });
      expect((await storedRow(created.id))!.updatedAt.toISOString()).toBe('2026-03-10T12:00:35.000Z');
      // Each field alone leaves the others as they were.
      const enabled = await send('PATCH', `/api/v1/webhooks/${created.id}`, { is_enabled: true });
      expect(enabled.body).toMatchObject({
        url: URL_B,
        events: ['content.published', 'content.publish_failed'],
        is_enabled: true,
      });
      // The secret is unchanged by an update.
      expect(decryptSecret(bed.runtime.config, (await storedRow(created.id))!.secretCiphertext)).toBe(
        created.signing_secret,
      );
    });

    it('answers no_updates to a body without a recognised field', async () => {
      const created = await create();
      for (const body of [{}, { signing_secret: 'whsec_x', created_at: '2026-01-01T00:00:00Z', foo: 1 }]) {
        expectError(await send('PATCH', `/api/v1/webhooks/${created.id}`, body), 400, 'no_updates');
      }
      expectFieldError(await send('PATCH', `/api/v1/webhooks/${created.id}`, { is_enabled: 'true' }), 'is_enabled');
    });

    it('is_enabled true clears auto_disabled_at; false keeps it', async () => {
      const created = await create();
      const disabledAt = new Date('2026-03-10T11:00:00.000Z');
      await bed.runtime.db
        .update(webhooks)
        .set({ isEnabled: false, autoDisabledAt: disabledAt })
        .where(eq(webhooks.id, created.id))
        .run();
      const shown = await send('GET', `/api/v1/webhooks/${created.id}`);
      expect(shown.body).toMatchObject({ is_enabled: false, auto_disabled_at: '2026-03-10T11:00:00.000Z' });

      const stillOff = await send('PATCH', `/api/v1/webhooks/${created.id}`, { is_enabled: false });
      expect(stillOff.body).toMatchObject({ is_enabled: false, auto_disabled_at: '2026-03-10T11:00:00.000Z' });
      const otherChange = await send('PATCH', `/api/v1/webhooks/${created.id}`, { events: ['content.created'] });
      expect(otherChange.body).toMatchObject({ is_enabled: false, auto_disabled_at: '2026-03-10T11:00:00.000Z' });

      const woken: string[] = [];
      bed.runtime.wakeups.listen('webhooks', () => woken.push('webhooks'));
      const on = await send('PATCH', `/api/v1/webhooks/${created.id}`, { is_enabled: true });
      expect(on.status).toBe(200);
      expect(on.body).toMatchObject({ is_enabled: true, auto_disabled_at: null });
      expect((await storedRow(created.id))!.autoDisabledAt).toBeNull();
      expect(woken).toEqual(['webhooks']);
    });
  });

  describe('rotate and delete', () => {
    it('rotate answers the create shape with a new secret; later reads show null', async () => {
      const created = await create({ url: URL_A, events: ['content.created'] });
      bed.runtime.clock.advance(1000);
      const rotated = await send('POST', `/api/v1/webhooks/${created.id}/rotate`);
      expect(rotated.status).toBe(200);
      expect(Object.keys(rotated.body).sort()).toEqual(RESOURCE_KEYS);
      expect(rotated.body).toEqual({ ...created, signing_secret: expect.stringMatching(SIGNING_SECRET) });
      expect(rotated.body.signing_secret).not.toBe(created.signing_secret);
      expect(decryptSecret(bed.runtime.config, (await storedRow(created.id))!.secretCiphertext)).toBe(
        rotated.body.signing_secret,
      );
      expect((await send('GET', `/api/v1/webhooks/${created.id}`)).body.signing_secret).toBeNull();
    });

    it('delete answers {id, object, deleted} and takes the queued jobs and the log with it', async () => {
      const created = await create();
      const kept = await create();
      const content = await makeContent(bed.runtime, bed.ws.workspace);
      const now = bed.runtime.clock.now();
      for (const id of [created.id, kept.id]) {
        await bed.runtime.db
          .insert(webhookJobs)
          .values({
            id: `job-${id}`,
            webhookId: id,
            workspaceId: bed.ws.workspace.id,
            eventId: content.id,
            state: 'queued',
            attempts: 0,
            nextAttemptAt: now,
            createdAt: now,
          })
          .run();
        await recordDeliveryAttempt(bed.runtime.db, newDeliveryId(), {
          webhookId: id,
          jobId: `job-${id}`,
          eventId: 'evt_x',
          eventType: 'content.created',
          attempt: 1,
          status: 'pending_retry',
          result: { statusCode: 500, responseBody: 'no', durationMs: 3, error: null },
          at: now,
          isTest: false,
        });
      }

      const res = await send('DELETE', `/api/v1/webhooks/${created.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: created.id, object: 'webhook', deleted: true });
      expectError(await send('GET', `/api/v1/webhooks/${created.id}`), 404, 'not_found');
      expectError(await send('DELETE', `/api/v1/webhooks/${created.id}`), 404, 'not_found');
      expect(await storedRow(created.id)).toBeUndefined();
      const jobsLeft = (await bed.runtime.db.select().from(webhookJobs).all()).map((j) => j.webhookId);
      const logLeft = (await bed.runtime.db.select().from(webhookDeliveries).all()).map((d) => d.webhookId);
      expect(jobsLeft).toEqual([kept.id]);
      expect(logLeft).toEqual([kept.id]);
      expect((await send('GET', '/api/v1/webhooks')).body.data.map((w: any) => w.id)).toEqual([kept.id]);
    });
  });

  describe('URL rules (SSRF guard)', () => {
    const PRIVATE_URLS = [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://[::1]/hook',
      'http://10.1.2.3/hook',
      'http://192.168.0.10/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://100.64.0.1/hook',
      'http://0.0.0.0/hook',
    ];

    it('refuses private, loopback and link-local targets at create with fieldErrors.url', async () => {
      for (const url of PRIVATE_URLS) expectFieldError(await send('POST', '/api/v1/webhooks', { url }), 'url');
      expect((await send('GET', '/api/v1/webhooks')).body.data).toEqual([]);
    });

    it('refuses what is not an absolute http(s) URL', async () => {
      for (const url of [
        'ftp://93.184.216.34/x',
        '/relative/path',
        'not a url',
        '',
        42,
        null,
        `https://93.184.216.34/${'a'.repeat(2048)}`,
      ]) {
        expectFieldError(await send('POST', '/api/v1/webhooks', { url }), 'url');
      }
      expectFieldError(await send('POST', '/api/v1/webhooks', { events: [] }), 'url');
    });

    it('refuses a private target at update and leaves the webhook as it was', async () => {
      const created = await create();
      for (const url of PRIVATE_URLS) {
        expectFieldError(await send('PATCH', `/api/v1/webhooks/${created.id}`, { url, is_enabled: false }), 'url');
      }
      expect(await storedRow(created.id)).toMatchObject({ url: URL_A, isEnabled: true });
    });

    it('WEBHOOK_ALLOW_PRIVATE_URLS=true lets local targets through', async () => {
      const local = await testRuntime({ env: { ...env, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
      const localServer = await startTestServer(local);
      try {
        const localWs = await makeWorkspace(local);
        const res = await call(localServer, 'POST', '/api/v1/webhooks', {
          headers: localWs.headers,
          body: { url: 'http://127.0.0.1:8080/hook' },
        });
        expect(res.status).toBe(201);
        const patched = await call(localServer, 'PATCH', `/api/v1/webhooks/${res.body.id}`, {
          headers: localWs.headers,
          body: { url: 'http://localhost:9/other' },
        });
        expect(patched.status).toBe(200);
        expect(patched.body.url).toBe('http://localhost:9/other');
        // Still only http(s).
        expectFieldError(
          await call(localServer, 'POST', '/api/v1/webhooks', {
            headers: localWs.headers,
            body: { url: 'file:///etc/passwd' },
          }),
          'url',
        );
      } finally {
        await localServer.close();
      }
    });
  });

  describe('isolation and HTTP rules', () => {
    it("answers not_found for another workspace's webhook on every route, and changes nothing", async () => {
      const other = await makeWorkspace(bed.runtime);
      const theirs = await create({ url: URL_A, events: ['content.created'] }, other.headers);
      const routes: Array<[string, string, unknown?]> = [
        ['GET', `/api/v1/webhooks/${theirs.id}`],
        ['PATCH', `/api/v1/webhooks/${theirs.id}`, { is_enabled: false }],
        ['PATCH', `/api/v1/webhooks/${theirs.id}`, { url: URL_B }],
        ['DELETE', `/api/v1/webhooks/${theirs.id}`],
        ['POST', `/api/v1/webhooks/${theirs.id}/rotate`],
        ['POST', `/api/v1/webhooks/${theirs.id}/test`],
        ['GET', `/api/v1/webhooks/${theirs.id}/deliveries`],
        ['GET', '/api/v1/webhooks/whk_doesnotexist'],
      ];
      for (const [method, path, body] of routes) {
        expectError(await send(method, path, body), 404, 'not_found');
      }
      expect((await send('GET', '/api/v1/webhooks')).body.data).toEqual([]);
      const afterwards = await send('GET', `/api/v1/webhooks/${theirs.id}`, undefined, other.headers);
      expect(afterwards.body).toEqual({ ...theirs, signing_secret: null });
      expect(decryptSecret(bed.runtime.config, (await storedRow(theirs.id))!.secretCiphertext)).toBe(
        theirs.signing_secret,
      );
      expect(await bed.runtime.db.select().from(webhookDeliveries).all()).toEqual([]);
    });

    it('needs an API key and answers 405 for other methods', async () => {
      expectError(await call(bed.server, 'GET', '/api/v1/webhooks'), 401, 'missing_key');
      expectError(await call(bed.server, 'POST', '/api/v1/webhooks', { body: { url: URL_A } }), 401, 'missing_key');
      const created = await create();
      const put = await send('PUT', `/api/v1/webhooks/${created.id}`, { url: URL_B });
      expectError(put, 405, 'method_not_allowed');
      expect(put.headers.get('allow')).toBe('GET, PATCH, DELETE, HEAD');
      expectError(await send('GET', `/api/v1/webhooks/${created.id}/rotate`), 405, 'method_not_allowed');
      expectError(await send('DELETE', `/api/v1/webhooks/${created.id}/deliveries`), 405, 'method_not_allowed');
    });

    it('replays a create sent again with the same Idempotency-Key instead of making a second webhook', async () => {
      const headers = { ...bed.ws.headers, 'idempotency-key': 'create-hook-1' };
      const first = await send('POST', '/api/v1/webhooks', { url: URL_A }, headers);
      const again = await send('POST', '/api/v1/webhooks', { url: URL_A }, headers);
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      expect((await send('GET', '/api/v1/webhooks')).body.data).toHaveLength(1);
    });
  });
});
