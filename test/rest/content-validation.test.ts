import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeContent, makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call, startTestServer, type TestServer } from '../helpers/http.ts';
import { baseEnv, expectError, expectFieldError } from '../helpers/rest-expect.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';

const CONTENT_TYPES = [
  'text_only',
  'single_image',
  'slideshow',
  'reel',
  'talking_head',
  'video_hook',
  'video_hook_demo',
  'carousel',
];
const tags = (n: number) => Array.from({ length: n }, (_, i) => `tag${i}`);
const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://cdn.example.com/${i}.png`);
const platforms = (n: number) => Array.from({ length: n }, (_, i) => `platform_${i}`);

/**
 * The content fields: each limit from both sides. One server and
 * workspace serve the whole file; no test depends on another's items.
 */
describe('REST content: field rules', () => {
  let runtime: TestRuntime;
  let server: TestServer;
  let ws: TestWorkspace;
  beforeAll(async () => {
    // Generous limits: this file makes many writes in one clock minute.
    runtime = await testRuntime({ env: { ...baseEnv, RATE_LIMIT_WRITE: '100000', RATE_LIMIT_READ: '100000' } });
    server = await startTestServer(runtime);
    ws = await makeWorkspace(runtime);
  });
  afterAll(() => server.close());

  const create = (body: Record<string, unknown>) =>
    call(server, 'POST', '/api/v1/content', { headers: ws.headers, body });
  const createWith = (fields: Record<string, unknown>) => create({ caption: 'Caption', ...fields });
  const patch = (id: string, body: Record<string, unknown>) =>
    call(server, 'PATCH', `/api/v1/content/${id}`, { headers: ws.headers, body });

  describe('caption: required, 1 to 4000 characters', () => {
    it('accepts 1 and 4000 characters', async () => {
      expect((await create({ caption: 'x' })).body.caption).toBe('x');
      expect((await create({ caption: 'x'.repeat(4000) })).status).toBe(201);
    });
    it('refuses a missing, empty, 4001-character or non-string caption', async () => {
      expectFieldError(await create({}), 'caption');
      expectFieldError(await create({ caption: '' }), 'caption');
      expectFieldError(await create({ caption: 'x'.repeat(4001) }), 'caption');
      expectFieldError(await create({ caption: 42 }), 'caption');
      expectFieldError(await create({ caption: null }), 'caption');
    });
    it('PATCH holds the same limits', async () => {
      const item = await makeContent(runtime, ws.workspace);
      expect((await patch(item.id, { caption: 'x'.repeat(4000) })).status).toBe(200);
      expectFieldError(await patch(item.id, { caption: 'x'.repeat(4001) }), 'caption');
      expectFieldError(await patch(item.id, { caption: '' }), 'caption');
      expectFieldError(await patch(item.id, { caption: null }), 'caption');
    });
  });

  describe('hashtags: max 50, leading # stripped, items 1 to 100 characters without whitespace', () => {
    it('accepts 50 and refuses 51', async () => {
      expect((await createWith({ hashtags: tags(50) })).body.hashtags).toEqual(tags(50));
      expectFieldError(await createWith({ hashtags: tags(51) }), 'hashtags');
    });
    it('strips one leading #', async () => {
      expect((await createWith({ hashtags: ['#growth', 'plain', '#a#b'] })).body.hashtags).toEqual([
        'growth',
        'plain',
        'a#b',
      ]);
    });
    it('accepts 100 characters (after the #) and refuses 101', async () => {
      expect((await createWith({ hashtags: ['a'.repeat(100)] })).status).toBe(201);
      expect((await createWith({ hashtags: [`#${'a'.repeat(100)}`] })).body.hashtags).toEqual(['a'.repeat(100)]);
      expectFieldError(await createWith({ hashtags: ['a'.repeat(101)] }), 'hashtags');
    });
    it('refuses empty items, a lone #, whitespace and non-strings', async () => {
      for (const bad of [[''], ['#'], ['two words'], ['tab\there'], ['new\nline'], [' lead'], [7], 'notanarray']) {
        expectFieldError(await createWith({ hashtags: bad }), 'hashtags');
      }
    });
    it('PATCH strips and limits the same way', async () => {
      const item = await makeContent(runtime, ws.workspace);
      expect((await patch(item.id, { hashtags: ['#one'] })).body.hashtags).toEqual(['one']);
      expectFieldError(await patch(item.id, { hashtags: tags(51) }), 'hashtags');
    });
  });

  describe('content_type: enum, default single_image', () => {
    it.each(CONTENT_TYPES)('accepts %s', async (type) => {
      expect((await createWith({ content_type: type })).body.content_type).toBe(type);
    });
    it('defaults to single_image', async () => {
      expect((await createWith({})).body.content_type).toBe('single_image');
    });
    it('refuses other values, including camelCase engine names and different case', async () => {
      for (const bad of ['video', 'talkingHead', 'REEL', 'ugc', '', null]) {
        expectFieldError(await createWith({ content_type: bad }), 'content_type');
      }
    });
  });

  describe('target_platforms: max 10, unique, lowercase ids, not checked against accounts on create', () => {
    it('accepts 10 and refuses 11', async () => {
      expect((await createWith({ target_platforms: platforms(10) })).body.target_platforms).toEqual(platforms(10));
      expectFieldError(await createWith({ target_platforms: platforms(11) }), 'target_platforms');
    });
    it('refuses duplicates', async () => {
      expectFieldError(await createWith({ target_platforms: ['twitter', 'linkedin', 'twitter'] }), 'target_platforms');
    });
    it('refuses ids that are not lowercase', async () => {
      for (const bad of [['Twitter'], ['LINKEDIN'], ['x y'], [''], ['1twitter'], [5]]) {
        expectFieldError(await createWith({ target_platforms: bad }), 'target_platforms');
      }
    });
    it('accepts platforms the workspace has no connected account for', async () => {
      const res = await createWith({ target_platforms: ['twitter', 'instagram', 'mastodon'] });
      expect(res.status).toBe(201);
      expect(res.body.target_platforms).toEqual(['twitter', 'instagram', 'mastodon']);
    });
  });

  describe('media_urls: absolute http(s), ordered, max 20', () => {
    it('accepts 20 in order and refuses 21', async () => {
      const twenty = urls(20).reverse();
      expect((await createWith({ media_urls: twenty })).body.media_urls).toEqual(twenty);
      expectFieldError(await createWith({ media_urls: urls(21) }), 'media_urls');
    });
    it('accepts http and https', async () => {
      expect((await createWith({ media_urls: ['http://a.example/x.jpg', 'https://b.example/y.mp4?v=1'] })).status).toBe(
        201,
      );
    });
    it('refuses relative URLs and other schemes', async () => {
      for (const bad of [
        '/img/1.png',
        'cdn.example.com/1.png',
        'ftp://cdn.example.com/1.png',
        'javascript:alert(1)',
        'data:image/png;base64,AAAA',
        'file:///etc/passwd',
        '',
      ]) {
        expectFieldError(await createWith({ media_urls: [bad] }), 'media_urls');
      }
    });
  });

  describe('topic: up to 280 characters', () => {
    it('accepts 280 and refuses 281', async () => {
      expect((await createWith({ topic: 't'.repeat(280) })).body.topic).toBe('t'.repeat(280));
      expectFieldError(await createWith({ topic: 't'.repeat(281) }), 'topic');
    });
  });

  describe('aspect_ratio: width:height', () => {
    it.each(['9:16', '1:1', '1920:1080'])('accepts %s', async (ratio) => {
      expect((await createWith({ aspect_ratio: ratio })).body.aspect_ratio).toBe(ratio);
    });
    it('refuses other forms', async () => {
      for (const bad of ['9x16', '9:', ':16', '1.5:1', '16/9', ' 9:16', '9:16 ', 'a:b', '']) {
        expectFieldError(await createWith({ aspect_ratio: bad }), 'aspect_ratio');
      }
    });
  });

  describe('date-times: an offset is required; output is UTC with milliseconds and Z', () => {
    it.each([
      ['2026-04-01T09:00:00Z', '2026-04-01T09:00:00.000Z'],
      ['2026-04-01T09:00:00.5Z', '2026-04-01T09:00:00.500Z'],
      ['2026-04-01T09:00:00+02:00', '2026-04-01T07:00:00.000Z'],
      ['2026-04-01T01:00:00-05:30', '2026-04-01T06:30:00.000Z'],
    ])('%s is stored as %s', async (input, output) => {
      expect((await createWith({ scheduled_for: input })).body.scheduled_for).toBe(output);
    });
    it('refuses a naive date-time, a bare date and junk with fieldErrors.scheduled_for', async () => {
      for (const bad of ['2026-04-01T09:00:00', '2026-04-01 09:00:00', '2026-04-01', 'next tuesday', 1775000000000]) {
        expectFieldError(await createWith({ scheduled_for: bad }), 'scheduled_for');
      }
    });
    it('PATCH refuses a naive date-time too', async () => {
      const item = await makeContent(runtime, ws.workspace);
      expectFieldError(await patch(item.id, { scheduled_for: '2026-04-01T09:00:00' }), 'scheduled_for');
    });
    it('publish refuses a naive scheduled_for', async () => {
      const item = await makeContent(runtime, ws.workspace, { target_platforms: ['twitter'] });
      const res = await call(server, 'POST', `/api/v1/content/${item.id}/publish`, {
        headers: ws.headers,
        body: { scheduled_for: '2026-04-01T09:00:00' },
      });
      expectFieldError(res, 'scheduled_for');
    });
  });

  describe('status on create', () => {
    it('defaults to draft', async () => {
      expect((await createWith({})).body.status).toBe('draft');
    });
    it.each(['draft', 'pending_review', 'approved'])('accepts %s', async (status) => {
      expect((await createWith({ status })).body.status).toBe(status);
    });
    it('accepts scheduled with scheduled_for and refuses it without', async () => {
      const ok = await createWith({ status: 'scheduled', scheduled_for: '2026-04-01T09:00:00Z' });
      expect(ok.body).toMatchObject({ status: 'scheduled', scheduled_for: '2026-04-01T09:00:00.000Z' });
      const refused = await createWith({ status: 'scheduled' });
      expectFieldError(refused, 'scheduled_for');
      // One full stop at the end (found by the fuzz suite: single-field errors ended in "..").
      expect(refused.body.error.message).toBe(
        'The request is invalid: scheduled_for: Status scheduled needs a scheduled_for date-time.',
      );
      expectFieldError(await createWith({ status: 'scheduled', scheduled_for: null }), 'scheduled_for');
    });
    it.each(['rejected', 'archived', 'publishing', 'published', 'Draft', ''])('refuses %s', async (status) => {
      expectFieldError(await createWith({ status }), 'status');
    });
  });

  describe('status on PATCH', () => {
    it.each(['draft', 'pending_review', 'approved', 'rejected'])('accepts %s', async (status) => {
      const item = await makeContent(runtime, ws.workspace);
      expect((await patch(item.id, { status })).body.status).toBe(status);
    });
    it.each(['archived', 'publishing', 'published'])('refuses %s', async (status) => {
      const item = await makeContent(runtime, ws.workspace);
      expectFieldError(await patch(item.id, { status }), 'status');
    });
    it('moving to scheduled takes scheduled_for from the body', async () => {
      const item = await makeContent(runtime, ws.workspace);
      const res = await patch(item.id, { status: 'scheduled', scheduled_for: '2026-04-01T09:00:00Z' });
      expect(res.body).toMatchObject({ status: 'scheduled', scheduled_for: '2026-04-01T09:00:00.000Z' });
    });
    it('moving to scheduled uses a scheduled_for already set', async () => {
      const item = await makeContent(runtime, ws.workspace, { scheduled_for: '2026-04-02T10:00:00Z' });
      const res = await patch(item.id, { status: 'scheduled' });
      expect(res.body).toMatchObject({ status: 'scheduled', scheduled_for: '2026-04-02T10:00:00.000Z' });
    });
    it('moving to scheduled without any scheduled_for is refused and changes nothing', async () => {
      const item = await makeContent(runtime, ws.workspace);
      expectFieldError(await patch(item.id, { status: 'scheduled' }), 'scheduled_for');
      const read = await call(server, 'GET', `/api/v1/content/${item.id}`, { headers: ws.headers });
      expect(read.body).toEqual(item);
    });
    it('clearing scheduled_for on a scheduled item is refused', async () => {
      const item = await makeContent(runtime, ws.workspace, {
        status: 'scheduled',
        scheduled_for: '2026-04-02T10:00:00Z',
      });
      expectFieldError(await patch(item.id, { scheduled_for: null }), 'scheduled_for');
      expectFieldError(await patch(item.id, { status: 'scheduled', scheduled_for: null }), 'scheduled_for');
    });
  });

  describe('PATCH ignores unknown fields', () => {
    it('applies the known ones and drops the rest', async () => {
      const item = await makeContent(runtime, ws.workspace);
      const res = await patch(item.id, {
        caption: 'Known',
        colour: 'blue',
        id: 'spoofed',
        workspace_id: 'other',
        created_at: '2020-01-01T00:00:00Z',
      });
      expect(res.status).toBe(200);
      expect(res.body.caption).toBe('Known');
      expect(res.body.id).toBe(item.id);
      expect(res.body.created_at).toBe(item.created_at);
      expect(res.body).not.toHaveProperty('colour');
      expect(res.body).not.toHaveProperty('workspace_id');
    });
    it('an unknown field on create is ignored too', async () => {
      const res = await createWith({ colour: 'blue', id: '00000000-0000-0000-0000-000000000000' });
      expect(res.status).toBe(201);
      expect(res.body.id).not.toBe('00000000-0000-0000-0000-000000000000');
      expect(res.body).not.toHaveProperty('colour');
    });
  });

  describe('platform_specific: overrides keyed by platform id', () => {
    it('accepts caption, hashtags and media_urls overrides and strips # in them', async () => {
      const res = await createWith({
        platform_specific: {
          twitter: { caption: 'Short', hashtags: ['#x'] },
          instagram: { media_urls: ['https://cdn.example.com/a.jpg'] },
        },
      });
      expect(res.status).toBe(201);
      expect(res.body.platform_specific).toEqual({
        twitter: { caption: 'Short', hashtags: ['x'] },
        instagram: { media_urls: ['https://cdn.example.com/a.jpg'] },
      });
    });
    it('refuses bad keys, unknown override fields and broken override values', async () => {
      const bad = [
        { Twitter: { caption: 'x' } },
        { twitter: { caption: '' } },
        { twitter: { caption: 'x'.repeat(4001) } },
        { twitter: { colour: 'blue' } },
        { twitter: { hashtags: ['two words'] } },
        { twitter: { hashtags: tags(51) } },
        { twitter: { media_urls: ['ftp://x.example/a'] } },
        { twitter: { media_urls: urls(21) } },
        { twitter: 'just text' },
        ['twitter'],
      ];
      for (const platform_specific of bad) {
        expectFieldError(await createWith({ platform_specific }), 'platform_specific');
      }
    });
    it('PATCH validates overrides the same way', async () => {
      const item = await makeContent(runtime, ws.workspace);
      expect(
        (await patch(item.id, { platform_specific: { linkedin: { caption: 'Long form' } } })).body.platform_specific,
      ).toEqual({
        linkedin: { caption: 'Long form' },
      });
      expectFieldError(await patch(item.id, { platform_specific: { linkedin: { caption: '' } } }), 'platform_specific');
    });
  });

  it('a refused create stores nothing', async () => {
    const fresh = await makeWorkspace(runtime);
    const res = await call(server, 'POST', '/api/v1/content', {
      headers: fresh.headers,
      body: { caption: 'x', hashtags: tags(51) },
    });
    expectError(res, 400, 'invalid_body', { details: true });
    const list = await call(server, 'GET', '/api/v1/content', { headers: fresh.headers });
    expect(list.body.data).toEqual([]);
  });
});
