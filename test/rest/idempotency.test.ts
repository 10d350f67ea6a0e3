import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { content, events, publishRuns } from '../../db/schema/index.ts';
import { claimIdempotencyKey } from '../../src/core/idempotency.ts';
import { drain } from '../../src/jobs/drain.ts';
import { publishingJob } from '../../src/jobs/publish-run.ts';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { connectAccounts, sandboxPostsFor } from '../helpers/publishing.ts';
import { baseEnv, contentRow, expectError } from '../helpers/rest-expect.ts';

describe('Idempotency-Key on POST', () => {
  const bed = useRestTestbed({ env: baseEnv });

  const post = (key: string, body: unknown, path = '/api/v1/content', headers = bed.ws.headers) =>
    call(bed.server, 'POST', path, { headers: { ...headers, 'idempotency-key': key }, body });

  it('replays the stored answer for the same key and body, creating one item', async () => {
    const first = await post('k-1', { caption: 'once only' });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const second = await post('k-1', { caption: 'once only' });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    // The replay is a request too: it counts against the write bucket and says so.
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(
      Number(first.headers.get('x-ratelimit-remaining')) - 1,
    );
    expect(await bed.runtime.db.select().from(content).all()).toHaveLength(1);
    expect(await bed.runtime.db.select().from(events).where(eq(events.type, 'content.created')).all()).toHaveLength(1);
  });

  it('refuses the same key with another body (422 idempotency_key_reused)', async () => {
    await post('k-2', { caption: 'first' });
    const reused = await post('k-2', { caption: 'second' });
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe('idempotency_key_reused');
    expect(await bed.runtime.db.select().from(content).all()).toHaveLength(1);
  });

  it('answers 409 idempotency_conflict while the first request is in flight', async () => {
    await claimIdempotencyKey(bed.runtime, {
      workspaceId: bed.ws.workspace.id,
      key: 'k-3',
      keyField: 'Idempotency-Key',
      operation: 'createContent',
      input: { caption: 'x' },
    });
    const conflict = await post('k-3', { caption: 'x' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('idempotency_conflict');
    // An in-flight claim whose process died stops blocking the key after a while.
    bed.runtime.clock.advance(3 * 60 * 1000);
    expect((await post('k-3', { caption: 'x' })).status).toBe(201);
  });

  it('replays client errors, and runs anew after 24 hours', async () => {
    const failed = await post('k-4', { caption: '' });
    expect(failed.status).toBe(400);
    const replayed = await post('k-4', { caption: '' });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(failed.body);
    bed.runtime.clock.advance(24 * 60 * 60 * 1000 + 1);
    const fresh = await post('k-4', { caption: '' });
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
  });

  it('scopes keys to the workspace and to the route', async () => {
    const other = await makeWorkspace(bed.runtime);
    const mine = await post('shared', { caption: 'same body' });
    const theirs = await post('shared', { caption: 'same body' }, '/api/v1/content', other.headers);
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
    const item = await makeContent(bed.runtime, bed.ws.workspace, { target_platforms: ['twitter'] });
    const publish = await post('shared', { caption: 'same body' }, `/api/v1/content/${item.id}/publish`);
    expect(publish.body.error.code).toBe('idempotency_key_reused');
  });

  // Found by the fuzz suite: fingerprinting a body nested 100,000 deep overflowed the stack (a 500).
  it('refuses a body nested deeper than the input limit, with or without a key, and stores nothing', async () => {
    const deep = `{"caption":"deep","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    for (const headers of [{ ...bed.ws.headers, 'idempotency-key': 'k-deep' }, bed.ws.headers]) {
      const res = await call(bed.server, 'POST', '/api/v1/content', { headers, rawBody: deep });
      expectError(res, 400, 'invalid_body', { details: true });
      expect(res.body.error.details.formErrors[0]).toMatch(/nested more than 32 levels/);
    }
    const atLimit = `{"caption":"fine","x":${'['.repeat(31)}${']'.repeat(31)}}`;
    expect(
      (
        await call(bed.server, 'POST', '/api/v1/content', {
          headers: { ...bed.ws.headers, 'idempotency-key': 'k-ok' },
          rawBody: atLimit,
        })
      ).status,
    ).toBe(201);
    expect(await bed.runtime.db.select().from(content).all()).toHaveLength(1);
  });

  it('refuses a key longer than 255 characters', async () => {
    const res = await post('k'.repeat(256), { caption: 'x' });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors['Idempotency-Key']).toBeDefined();
  });

  it('replays a publish without queueing it twice', async () => {
    const { runtime } = bed;
    await connectAccounts(runtime, bed.ws.workspace, ['twitter']);
    const item = await makeContent(runtime, bed.ws.workspace, {
      content_type: 'text_only',
      target_platforms: ['twitter'],
    });
    const path = `/api/v1/content/${item.id}/publish`;
    const first = await post('pub', {}, path);
    expect(first.status).toBe(202);
    const run = () => drain(runtime, publishingJob(runtime));
    expect(await run()).toEqual(['published']);

    // Replayed after the run published it: the publish run again would queue the published item anew.
    const replayed = await post('pub', {}, path);
    expect(replayed.status).toBe(202);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(first.body);
    expect(await contentRow(runtime, item.id)).toMatchObject({ status: 'published', publishQueued: false });
    expect(await run()).toEqual([]);
    expect(await runtime.db.select().from(publishRuns).where(eq(publishRuns.contentId, item.id)).all()).toHaveLength(1);
    expect(await sandboxPostsFor(runtime, item.id)).toHaveLength(1);
    expect(await runtime.db.select().from(events).where(eq(events.type, 'content.approved')).all()).toHaveLength(1);
  });
});
