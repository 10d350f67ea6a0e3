import { describe, expect, it } from 'vitest';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { baseEnv } from '../helpers/rest-expect.ts';

/** GET /api/v1/content?q=…: caption search, ignoring case, through the one content list. */
describe('REST content: q (caption search)', () => {
  const bed = useRestTestbed({ env: baseEnv });
  const list = async (query: string, headers = bed.ws.headers) => {
    const res = await call(bed.server, 'GET', `/api/v1/content?${query}`, { headers });
    return res;
  };
  const captionsOf = (body: { data: Array<{ caption: string }> }) => body.data.map((item) => item.caption).sort();
  const q = (text: string) => `q=${encodeURIComponent(text)}`;

  it('finds captions containing the text whatever its case, in any script', async () => {
    const { workspace } = bed.ws;
    for (const caption of ['Spring SALE starts today', 'the spring collection', 'Winter is coming', 'ÉTÉ en ville']) {
      await makeContent(bed.runtime, workspace, { caption });
    }
    const res = await list(q('spring'));
    expect(res.status).toBe(200);
    expect(captionsOf(res.body)).toEqual(['Spring SALE starts today', 'the spring collection']);
    expect(captionsOf((await list(q('SaLe'))).body)).toEqual(['Spring SALE starts today']);
    // SQLite's own lower() folds ASCII only: "été" must still find "ÉTÉ".
    expect(captionsOf((await list(q('été'))).body)).toEqual(['ÉTÉ en ville']);
  });

  it('answers an empty list when nothing matches, and the whole list for an empty q', async () => {
    await makeContent(bed.runtime, bed.ws.workspace, { caption: 'Nothing to see' });
    const none = await list(q('zebra'));
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
    expect((await list('q=')).body.data).toHaveLength(1);
  });

  it('takes % and _ as the characters themselves', async () => {
    const { workspace } = bed.ws;
    await makeContent(bed.runtime, workspace, { caption: '50% off everything' });
    await makeContent(bed.runtime, workspace, { caption: '50 percent off' });
    await makeContent(bed.runtime, workspace, { caption: 'snake_case names' });
    await makeContent(bed.runtime, workspace, { caption: 'snakeXcase names' });
    expect(captionsOf((await list(q('50%'))).body)).toEqual(['50% off everything']);
    expect(captionsOf((await list(q('%'))).body)).toEqual(['50% off everything']);
    expect(captionsOf((await list(q('e_c'))).body)).toEqual(['snake_case names']);
  });

  it('combines with status and content_type', async () => {
    const { workspace } = bed.ws;
    await makeContent(bed.runtime, workspace, { caption: 'Launch draft', content_type: 'text_only' });
    await makeContent(bed.runtime, workspace, {
      caption: 'Launch review',
      content_type: 'text_only',
      status: 'pending_review',
    });
    await makeContent(bed.runtime, workspace, {
      caption: 'Launch reel',
      content_type: 'single_image',
      status: 'pending_review',
    });
    await makeContent(bed.runtime, workspace, {
      caption: 'Other review',
      content_type: 'text_only',
      status: 'pending_review',
    });
    expect(captionsOf((await list(`${q('launch')}&status=pending_review`)).body)).toEqual([
      'Launch reel',
      'Launch review',
    ]);
    expect(captionsOf((await list(`${q('launch')}&content_type=text_only`)).body)).toEqual([
      'Launch draft',
      'Launch review',
    ]);
    expect(captionsOf((await list(`${q('launch')}&status=pending_review&content_type=text_only`)).body)).toEqual([
      'Launch review',
    ]);
  });

  it('pages through the matches with the same q', async () => {
    for (let i = 0; i < 5; i++) {
      await makeContent(bed.runtime, bed.ws.workspace, { caption: `match ${i}` });
      await makeContent(bed.runtime, bed.ws.workspace, { caption: `other ${i}` });
      bed.runtime.clock.advance(1000);
    }
    const first = await list(`${q('MATCH')}&limit=3`);
    expect(first.body.data).toHaveLength(3);
    expect(first.body.has_more).toBe(true);
    const second = await list(`${q('MATCH')}&limit=3&cursor=${first.body.next_cursor}`);
    expect(captionsOf(second.body)).toEqual(['match 0', 'match 1']);
    expect(second.body.has_more).toBe(false);
  });

  it("never finds another workspace's items", async () => {
    const other = await makeWorkspace(bed.runtime);
    await makeContent(bed.runtime, other.workspace, { caption: 'A secret launch' });
    const res = await list(q('secret'));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect((await list(q('secret'), other.headers)).body.data).toHaveLength(1);
  });

  it('answers 400 invalid_body with fieldErrors.q to a search it cannot take', async () => {
    for (const bad of [q('x'.repeat(201)), 'q=a&q=b']) {
      const res = await list(bad);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code).toBe('invalid_body');
      expect(res.body.error.details.fieldErrors.q, bad).toBeInstanceOf(Array);
    }
  });

  it('is in the OpenAPI document as an optional string query parameter of GET /api/v1/content', async () => {
    const doc = (await call(bed.server, 'GET', '/api/v1/openapi.json')).body;
    const param = doc.paths['/api/v1/content'].get.parameters.find((p: { name: string }) => p.name === 'q');
    expect(param).toMatchObject({ in: 'query', required: false, schema: { type: 'string', maxLength: 200 } });
    expect(param.description).toMatch(/caption/i);
    expect(param.description).toMatch(/case/i);
  });
});
