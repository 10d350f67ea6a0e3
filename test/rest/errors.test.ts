import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { ERROR_CODES } from '../../src/core/errors.ts';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { call, startTestServer, useRestTestbed } from '../helpers/http.ts';
import {
  baseEnv,
  eventsOf,
  expectError,
  expectFieldError,
  forceStatus,
  insertPublished,
} from '../helpers/rest-expect.ts';
import { testRuntime } from '../helpers/runtime.ts';

/** Every error code the REST door and the content core can produce (the contract's table and our additions). */
describe('REST errors', () => {
  const bed = useRestTestbed({ env: baseEnv });

  const send = (
    method: string,
    path: string,
    options: { body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
  ) => call(bed.server, method, path, { ...options, headers: { ...bed.ws.headers, ...options.headers } });

  describe('400 invalid_body', () => {
    it('malformed JSON has no details', async () => {
      const res = await send('POST', '/api/v1/content', { rawBody: '{"caption": "cut' });
      expectError(res, 400, 'invalid_body');
      expect(res.body.error).not.toHaveProperty('details');
      const patch = await send('PATCH', `/api/v1/content/${(await makeContent(bed.runtime, bed.ws.workspace)).id}`, {
        rawBody: '{,}',
      });
      expectError(patch, 400, 'invalid_body');
    });

    // Found by the fuzz suite: body-parser passes zlib's error on as a bare 400, which used to reach the client as a 500.
    it('a body that does not decode with its Content-Encoding', async () => {
      for (const encoding of ['gzip', 'deflate', 'br']) {
        for (const rawBody of ['{"caption":"not compressed"}', '']) {
          const res = await send('POST', '/api/v1/content', { rawBody, headers: { 'content-encoding': encoding } });
          expectError(res, 400, 'invalid_body');
          expect(res.body.error).not.toHaveProperty('details');
        }
      }
      const compressed = await bed.server.request('/api/v1/content', {
        method: 'POST',
        headers: { ...bed.ws.headers, 'content-encoding': 'gzip' },
        body: gzipSync('{"caption":"compressed"}'),
      });
      expect(compressed.status).toBe(201);
      expectError(
        await send('POST', '/api/v1/content', { rawBody: '{}', headers: { 'content-encoding': 'x-unknown' } }),
        415,
        'unsupported_media_type',
      );
    });

    it('a JSON scalar body is refused as invalid_body', async () => {
      expectError(await send('POST', '/api/v1/content', { rawBody: '"just a caption"' }), 400, 'invalid_body');
    });

    it('a schema failure carries details.formErrors and details.fieldErrors keyed by field', async () => {
      const res = await send('POST', '/api/v1/content', {
        body: { caption: '', hashtags: 'nope', content_type: 'video' },
      });
      expectError(res, 400, 'invalid_body', { details: true });
      const { formErrors, fieldErrors } = res.body.error.details;
      expect(formErrors).toEqual([]);
      expect(Object.keys(fieldErrors).sort()).toEqual(['caption', 'content_type', 'hashtags']);
      for (const messages of Object.values(fieldErrors) as string[][]) {
        expect(messages.length).toBeGreaterThan(0);
        for (const m of messages) expect(typeof m).toBe('string');
      }
    });

    it('a JSON array body is a form error, not a field error', async () => {
      const res = await send('POST', '/api/v1/content', { body: [{ caption: 'in an array' }] });
      expectError(res, 400, 'invalid_body', { details: true });
      expect(res.body.error.details.formErrors.length).toBeGreaterThan(0);
      expect(res.body.error.details.fieldErrors).toEqual({});
      const item = await makeContent(bed.runtime, bed.ws.workspace);
      const patch = await send('PATCH', `/api/v1/content/${item.id}`, { body: [{ caption: 'x' }] });
      expectError(patch, 400, 'invalid_body', { details: true });
    });

    it('a missing caption is a field error', async () => {
      expectFieldError(await send('POST', '/api/v1/content', { body: {} }), 'caption');
    });

    it('an unknown status filter is a field error', async () => {
      expectFieldError(await send('GET', '/api/v1/content?status=bogus'), 'status');
      expectFieldError(await send('GET', '/api/v1/content?content_type=video'), 'content_type');
    });
  });

  describe('400 no_updates', () => {
    it.each([
      ['an empty body', {}],
      ['only unknown fields', { colour: 'blue', caption_text: 'x' }],
      ['only the id', { id: randomUUID() }],
      [
        'read-only fields',
        { object: 'content', created_at: '2026-01-01T00:00:00Z', published_at: null, campaign_id: 'c' },
      ],
    ])('PATCH with %s', async (_label, body) => {
      const item = await makeContent(bed.runtime, bed.ws.workspace);
      const before = (await eventsOf(bed.runtime)).length;
      expectError(await send('PATCH', `/api/v1/content/${item.id}`, { body }), 400, 'no_updates');
      expect(await eventsOf(bed.runtime)).toHaveLength(before);
    });

    it('PATCH with no body at all', async () => {
      const item = await makeContent(bed.runtime, bed.ws.workspace);
      expectError(await send('PATCH', `/api/v1/content/${item.id}`), 400, 'no_updates');
    });
  });

  describe('404 not_found', () => {
    it.each([
      ['GET', '/api/v1/nothing-here'],
      ['POST', '/api/v1/contents'],
      ['GET', '/api/v2/content'],
      ['GET', '/'],
      ['DELETE', '/somewhere/else'],
      ['GET', '/api/v1/content/x/y/z'],
    ])('an unknown route %s %s answers the envelope', async (method, path) => {
      expectError(await send(method, path), 404, 'not_found');
    });

    it('an unknown route answers 404 even without a key', async () => {
      expectError(await call(bed.server, 'GET', '/api/v1/nothing-here'), 404, 'not_found');
    });

    it.each([
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/publish'],
    ])('%s on a missing id', async (method, suffix) => {
      const body = method === 'PATCH' ? { caption: 'x' } : undefined;
      expectError(await send(method, `/api/v1/content/${randomUUID()}${suffix}`, { body }), 404, 'not_found');
      expectError(await send(method, `/api/v1/content/not-a-uuid${suffix}`, { body }), 404, 'not_found');
    });

    // Found by the fuzz suite: Express refuses to decode such a segment, which used to reach the client as a 500.
    it.each([
      ['GET', '/api/v1/content/%'],
      ['DELETE', '/api/v1/campaigns/%E0%A4%A'],
      ['GET', '/api/v1/webhooks/%ED%A0%80/deliveries'],
      ['GET', '/media/%'],
      ['GET', '/callbacks/facebook/data-deletion/%FF'],
    ])('a path id that is not valid percent-encoding names no resource: %s %s', async (method, path) => {
      expectError(await send(method, path), 404, 'not_found');
    });
  });

  describe('405 method_not_allowed', () => {
    const allowOf = (headers: Headers) =>
      (headers.get('allow') ?? '')
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean)
        .sort();

    it.each([
      ['PUT', '/api/v1/content', ['GET', 'HEAD', 'POST']],
      ['DELETE', '/api/v1/content', ['GET', 'HEAD', 'POST']],
      ['PUT', `/api/v1/content/${randomUUID()}`, ['DELETE', 'GET', 'HEAD', 'PATCH']],
      ['POST', `/api/v1/content/${randomUUID()}`, ['DELETE', 'GET', 'HEAD', 'PATCH']],
      ['GET', `/api/v1/content/${randomUUID()}/publish`, ['POST']],
      ['DELETE', '/api/v1/me', ['GET', 'HEAD', 'PATCH']],
    ])('%s %s lists the allowed methods', async (method, path, allowed) => {
      const res = await send(method, path);
      expectError(res, 405, 'method_not_allowed');
      expect(allowOf(res.headers)).toEqual(allowed);
    });
  });

  describe('409 invalid_state', () => {
    it('PATCH, publish and DELETE on an archived item', async () => {
      const item = await makeContent(bed.runtime, bed.ws.workspace, { target_platforms: ['twitter'] });
      expect((await send('DELETE', `/api/v1/content/${item.id}`)).status).toBe(200);
      const before = (await eventsOf(bed.runtime)).length;
      expectError(
        await send('PATCH', `/api/v1/content/${item.id}`, { body: { caption: 'back' } }),
        409,
        'invalid_state',
      );
      expectError(
        await send('PATCH', `/api/v1/content/${item.id}`, { body: { status: 'draft' } }),
        409,
        'invalid_state',
      );
      expectError(await send('POST', `/api/v1/content/${item.id}/publish`), 409, 'invalid_state');
      expectError(await send('DELETE', `/api/v1/content/${item.id}`), 409, 'invalid_state');
      expect(await eventsOf(bed.runtime)).toHaveLength(before);
      const after = await send('GET', `/api/v1/content/${item.id}`);
      expect(after.body).toMatchObject({ status: 'archived', caption: item.caption });
    });

    it('PATCH and publish on an item being published', async () => {
      const item = await makeContent(bed.runtime, bed.ws.workspace, { target_platforms: ['twitter'] });
      await forceStatus(bed.runtime, item.id, 'publishing');
      const before = (await eventsOf(bed.runtime)).length;
      expectError(
        await send('PATCH', `/api/v1/content/${item.id}`, { body: { caption: 'too late' } }),
        409,
        'invalid_state',
      );
      expectError(await send('POST', `/api/v1/content/${item.id}/publish`), 409, 'invalid_state');
      expect(await eventsOf(bed.runtime)).toHaveLength(before);
      const after = await send('GET', `/api/v1/content/${item.id}`);
      expect(after.body).toMatchObject({ status: 'publishing', caption: item.caption });
    });
  });

  describe('413 payload_too_large', () => {
    it('a body over BODY_LIMIT_BYTES is refused; one under it passes', async () => {
      const small = await testRuntime({ env: { ...baseEnv, BODY_LIMIT_BYTES: '1024' } });
      const smallServer = await startTestServer(small);
      try {
        const owner = await makeWorkspace(small);
        const over = await call(smallServer, 'POST', '/api/v1/content', {
          headers: owner.headers,
          body: { caption: 'x'.repeat(1100) },
        });
        expectError(over, 413, 'payload_too_large');
        const under = await call(smallServer, 'POST', '/api/v1/content', {
          headers: owner.headers,
          body: { caption: 'x'.repeat(900) },
        });
        expect(under.status).toBe(201);
        const item = under.body.id as string;
        const patch = await call(smallServer, 'PATCH', `/api/v1/content/${item}`, {
          headers: owner.headers,
          body: { caption: 'y'.repeat(2000) },
        });
        expectError(patch, 413, 'payload_too_large');
      } finally {
        await smallServer.close();
      }
    });
  });

  describe('415 unsupported_media_type', () => {
    it('a JSON body in a charset other than UTF-8', async () => {
      const res = await send('POST', '/api/v1/content', {
        rawBody: JSON.stringify({ caption: 'latin' }),
        headers: { 'content-type': 'application/json; charset=latin1' },
      });
      expectError(res, 415, 'unsupported_media_type');
    });

    it('a body sent as another type is refused, not silently ignored', async () => {
      const item = await send('POST', '/api/v1/content', { body: { caption: 'to patch' } });
      const attempts = [
        send('POST', '/api/v1/content', {
          rawBody: 'caption=hello',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
        send('PATCH', `/api/v1/content/${item.body.id}`, {
          rawBody: '{"caption":"x"}',
          headers: { 'content-type': 'text/plain' },
        }),
      ];
      for (const res of await Promise.all(attempts)) expectError(res, 415, 'unsupported_media_type');
    });

    it('a write without a body needs no content type', async () => {
      const item = await send('POST', '/api/v1/content', {
        body: { caption: 'to publish', target_platforms: ['twitter'] },
      });
      const res = await send('POST', `/api/v1/content/${item.body.id}/publish`, { headers: { 'content-type': '' } });
      expect(res.status).toBe(202);
    });
  });

  describe('422 no_target_platforms', () => {
    it('publishing an item without target platforms', async () => {
      const item = await makeContent(bed.runtime, bed.ws.workspace);
      const before = (await eventsOf(bed.runtime)).length;
      expectError(await send('POST', `/api/v1/content/${item.id}/publish`), 422, 'no_target_platforms');
      expect(await eventsOf(bed.runtime)).toHaveLength(before);
      expect((await send('GET', `/api/v1/content/${item.id}`)).body).toMatchObject({
        status: 'draft',
        publish_queued: false,
      });
    });
  });

  describe('403 quota_exceeded', () => {
    it('publishing once posts_per_month items were published this month; one fewer still publishes', async () => {
      const starter = await makeWorkspace(bed.runtime, { plan: 'starter' });
      const now = bed.runtime.clock.now();
      // 299 this month, plus some last month that do not count.
      await insertPublished(bed.runtime, starter.workspace.id, 299, new Date(now.getTime() - 60 * 60 * 1000));
      await insertPublished(bed.runtime, starter.workspace.id, 5, new Date('2026-02-27T10:00:00Z'));
      const first = await makeContent(bed.runtime, starter.workspace, { target_platforms: ['twitter'] });
      const second = await makeContent(bed.runtime, starter.workspace, { target_platforms: ['twitter'] });

      const ok = await call(bed.server, 'POST', `/api/v1/content/${first.id}/publish`, { headers: starter.headers });
      expect(ok.status).toBe(202);

      await insertPublished(bed.runtime, starter.workspace.id, 1, now);
      const before = (await eventsOf(bed.runtime)).length;
      const refused = await call(bed.server, 'POST', `/api/v1/content/${second.id}/publish`, {
        headers: starter.headers,
      });
      expectError(refused, 403, 'quota_exceeded');
      expect(await eventsOf(bed.runtime)).toHaveLength(before);
      expect(
        (await call(bed.server, 'GET', `/api/v1/content/${second.id}`, { headers: starter.headers })).body.status,
      ).toBe('draft');
    });

    it('the quota resets with the UTC calendar month', async () => {
      const starter = await makeWorkspace(bed.runtime, { plan: 'starter' });
      await insertPublished(bed.runtime, starter.workspace.id, 300, bed.runtime.clock.now());
      const item = await makeContent(bed.runtime, starter.workspace, { target_platforms: ['twitter'] });
      expectError(
        await call(bed.server, 'POST', `/api/v1/content/${item.id}/publish`, { headers: starter.headers }),
        403,
        'quota_exceeded',
      );
      bed.runtime.clock.set('2026-04-01T00:00:00.000Z');
      expect(
        (await call(bed.server, 'POST', `/api/v1/content/${item.id}/publish`, { headers: starter.headers })).status,
      ).toBe(202);
    });
  });

  describe('500 internal', () => {
    it('shows no internals', async () => {
      const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
      try {
        await bed.runtime.db.$store.close();
        const res = await send('GET', '/api/v1/content');
        expectError(res, 500, 'internal');
        expect(res.body.error.message).not.toMatch(/database|sqlite|stack|TypeError|\.ts/i);
      } finally {
        quiet.mockRestore();
      }
    });
  });

  describe('GET /docs/errors', () => {
    // Written out from the contract's table and our additions, not from the source, so a missing row fails.
    const expected: Array<[string, number]> = [
      ['invalid_body', 400],
      ['no_updates', 400],
      ['missing_key', 401],
      ['invalid_key', 401],
      ['expired_key', 401],
      ['payment_required', 402],
      ['plan_forbidden', 403],
      ['quota_exceeded', 403],
      ['not_found', 404],
      ['method_not_allowed', 405],
      ['invalid_state', 409],
      ['idempotency_conflict', 409],
      ['payload_too_large', 413],
      ['unsupported_media_type', 415],
      ['range_not_satisfiable', 416],
      ['no_target_platforms', 422],
      ['unprocessable_entity', 422],
      ['invalid_return_url', 422],
      ['credentials_refused', 422],
      ['idempotency_key_reused', 422],
      ['rate_limit_exceeded', 429],
      ['internal', 500],
      ['platform_unavailable', 502],
    ];

    it('is served without a key and lists every code with its status', async () => {
      const res = await bed.server.request('/docs/errors');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await res.text();
      for (const [code, status] of expected) {
        expect(html, code).toMatch(new RegExp(`<tr id="${code}"><td>${status}</td><td><code>${code}</code></td>`));
      }
    });

    it('says for every code what it means and what to do', async () => {
      const html = await (await bed.server.request('/docs/errors')).text();
      expect(html).toContain('<th>What to do</th>');
      for (const code of ERROR_CODES) {
        const row = new RegExp(
          `<tr id="${code}"><td>\\d{3}</td><td><code>${code}</code></td><td>([^<]{10,})</td><td>([^<]{10,})</td></tr>`,
        ).exec(html);
        expect(row, code).not.toBeNull();
      }
      expect(html.match(/<tr id=/g)).toHaveLength(ERROR_CODES.length);
    });

    it('is the page every docs_url points to', async () => {
      const res = await send('GET', '/api/v1/nothing-here');
      expect(new URL(res.body.error.docs_url).pathname).toBe('/docs/errors');
    });
  });
});
