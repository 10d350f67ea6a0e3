import { eq } from 'drizzle-orm';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mediaAssets } from '../../db/schema/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call, startTestServer, type TestServer } from '../helpers/http.ts';
import { BASE_URL, baseEnv, expectError, expectFieldError } from '../helpers/rest-expect.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';
import { EXECUTABLES, FIXTURES, png, pngOfSize } from '../fixtures/media/files.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const RESOURCE_KEYS = [
  'alt_text',
  'asset_type',
  'created_at',
  'filename',
  'height',
  'id',
  'mime_type',
  'object',
  'size_bytes',
  'tags',
  'url',
  'width',
];

/** POST /media_assets, the public file URL and GET /media-library (README, Media). */
describe('REST media', () => {
  let runtime: TestRuntime;
  let server: TestServer;
  let ws: TestWorkspace;
  let mediaDir: string;
  const start = async (env: Record<string, string> = {}) => {
    mediaDir = mkdtempSync(join(tmpdir(), 'media-test-'));
    runtime = await testRuntime({ env: { ...baseEnv, MEDIA_DIR: mediaDir, ...env } });
    server = await startTestServer(runtime);
    ws = await makeWorkspace(runtime);
  };
  beforeEach(() => start());
  afterEach(async () => {
    await server.close();
    rmSync(mediaDir, { recursive: true, force: true });
  });

  const auth = (w: TestWorkspace = ws) => ({ authorization: w.headers.authorization });
  const form = (bytes: Uint8Array, filename: string, options: { type?: string; tags?: string[] } = {}) => {
    const body = new FormData();
    body.append('file', new Blob([bytes], { type: options.type ?? 'application/octet-stream' }), filename);
    for (const tag of options.tags ?? []) body.append('tags', tag);
    return body;
  };
  const upload = async (
    bytes: Uint8Array,
    filename: string,
    options: { type?: string; tags?: string[]; path?: string; headers?: Record<string, string> } = {},
  ) => {
    const res = await server.request(options.path ?? '/api/v1/media_assets', {
      method: 'POST',
      headers: options.headers ?? auth(),
      body: form(bytes, filename, options),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
  const uploaded = async (bytes: Uint8Array, filename: string, options: Parameters<typeof upload>[2] = {}) => {
    const res = await upload(bytes, filename, options);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  const filesOnDisk = () => readdirSync(mediaDir);
  const rows = async () => runtime.db.select().from(mediaAssets).all();
  /** The served file, fetched from the test server at the URL's path (the URL carries PUBLIC_BASE_URL). */
  const fetchUrl = (url: string, headers: Record<string, string> = {}, method = 'GET') => {
    expect(url.startsWith(`${BASE_URL}/media/`)).toBe(true);
    return server.request(url.slice(BASE_URL.length), { method, headers });
  };

  describe('upload', () => {
    for (const fixture of FIXTURES) {
      it(`accepts ${fixture.mimeType} from its bytes, stores it and serves the same bytes`, async () => {
        const asset = await uploaded(fixture.bytes, fixture.filename, { tags: ['launch'] });
        expect(Object.keys(asset).sort()).toEqual(RESOURCE_KEYS);
        expect(asset).toEqual({
          id: expect.stringMatching(UUID),
          object: 'media_asset',
          url: expect.stringMatching(new RegExp(`^${BASE_URL}/media/[0-9A-Za-z]{32}\\.${fixture.extension}$`)),
          asset_type: fixture.assetType,
          mime_type: fixture.mimeType,
          size_bytes: fixture.bytes.length,
          width: fixture.width,
          height: fixture.height,
          tags: ['launch'],
          alt_text: null,
          filename: fixture.filename,
          created_at: '2026-03-10T12:00:30.000Z',
        });
        expect(await rows()).toHaveLength(1);
        expect(filesOnDisk()).toEqual([(await rows())[0].storageKey]);
        const served = await fetchUrl(asset.url);
        expect(served.status).toBe(200);
        expect(served.headers.get('content-type')).toBe(fixture.mimeType);
        expect(Buffer.from(await served.arrayBuffer())).toEqual(Buffer.from(fixture.bytes));
      });
    }

    it("answers at /media_assets too, the contract's root address", async () => {
      const res = await upload(FIXTURES[0].bytes, 'a.png', { path: '/media_assets' });
      expect(res.status).toBe(201);
      expect(res.body.object).toBe('media_asset');
    });

    it('classifies by content: a PNG sent as clip.mp4 with video/mp4 is a PNG image', async () => {
      const bytes = png(7, 5);
      const asset = await uploaded(bytes, 'clip.mp4', { type: 'video/mp4' });
      expect(asset).toMatchObject({
        asset_type: 'image',
        mime_type: 'image/png',
        width: 7,
        height: 5,
        filename: 'clip.mp4',
      });
      expect(asset.url).toMatch(/\.png$/);
    });

    for (const [name, bytes] of Object.entries(EXECUTABLES)) {
      it(`refuses a renamed executable (${name} sent as photo.jpg, image/jpeg) with 415 and keeps nothing`, async () => {
        const res = await upload(bytes, 'photo.jpg', { type: 'image/jpeg' });
        expectError(res, 415, 'unsupported_media_type');
        expect(await rows()).toEqual([]);
        await eventually('the refused file is gone', () => filesOnDisk().length === 0, 2_000);
      });
    }

    it('refuses a Matroska (non-WebM) file and a text file with 415', async () => {
      const mkv = Buffer.from(FIXTURES.find((f) => f.mimeType === 'video/webm')!.bytes);
      mkv.write('matroska', mkv.indexOf('webm'), 'latin1');
      expectError(await upload(mkv, 'movie.webm'), 415, 'unsupported_media_type');
      expectError(await upload(Buffer.from('hello world, not an image'), 'notes.png'), 415, 'unsupported_media_type');
      expect(await rows()).toEqual([]);
    });

    it('takes tags as repeated fields or comma-separated, trimmed and deduplicated', async () => {
      const asset = await uploaded(png(1, 1), 'a.png', { tags: [' spring , launch', 'launch', 'hero ', ''] });
      expect(asset.tags).toEqual(['spring', 'launch', 'hero']);
      expect((await rows())[0].tags).toEqual(['spring', 'launch', 'hero']);
    });

    it('refuses more than 20 tags, or a tag over 50 characters, and keeps no file', async () => {
      const many = Array.from({ length: 21 }, (_, i) => `t${i}`).join(',');
      expectFieldError(await upload(png(1, 1), 'a.png', { tags: [many] }), 'tags');
      expectFieldError(await upload(png(1, 1), 'a.png', { tags: ['x'.repeat(51)] }), 'tags');
      expect(await rows()).toEqual([]);
      await eventually('the files of refused uploads are gone', () => filesOnDisk().length === 0, 2_000);
    });

    it('keeps only the last segment of a path-like filename, and names an unnamed file upload.<ext>', async () => {
      expect((await uploaded(png(1, 1), 'C:\\fakepath\\holiday.png')).filename).toBe('holiday.png');
      const body = new FormData();
      body.append('file', new Blob([png(1, 1)]), '');
      const res = await server.request('/api/v1/media_assets', { method: 'POST', headers: auth(), body });
      expect(res.status).toBe(201);
      expect(((await res.json()) as any).filename).toBe('upload.png');
    });

    it('answers 400 invalid_body naming file when no file part is sent', async () => {
      const body = new FormData();
      body.append('tags', 'spring');
      const res = await server.request('/api/v1/media_assets', { method: 'POST', headers: auth(), body });
      expectFieldError({ status: res.status, body: await res.json() }, 'file');
    });

    it('answers 415 to a JSON body', async () => {
      const res = await call(server, 'POST', '/api/v1/media_assets', {
        headers: ws.headers,
        body: { url: 'https://x.test/a.png' },
      });
      expectError(res, 415, 'unsupported_media_type');
    });

    it('asks for a key before reading anything', async () => {
      const res = await upload(png(1, 1), 'a.png', { headers: {} });
      expectError(res, 401, 'missing_key');
      expect(filesOnDisk()).toEqual([]);
    });

    it('keeps apart many uploads at once', async () => {
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => uploaded(png(i + 1, 2), `p${i}.png`)));
      expect(new Set(results.map((r) => r.id)).size).toBe(12);
      expect(new Set(results.map((r) => r.url)).size).toBe(12);
      expect(results.map((r) => r.width)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect(await rows()).toHaveLength(12);
      expect(filesOnDisk().sort()).toEqual((await rows()).map((r) => r.storageKey).sort());
      for (const r of results) {
        const served = await fetchUrl(r.url);
        expect(Buffer.from(await served.arrayBuffer())).toEqual(Buffer.from(png(r.width, 2)));
      }
    });

    it('replays an upload repeated with the same Idempotency-Key and keeps one file', async () => {
      const headers = { ...auth(), 'idempotency-key': 'upload-1' };
      const first = await upload(png(3, 3), 'a.png', { headers });
      const again = await upload(png(3, 3), 'a.png', { headers });
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(await rows()).toHaveLength(1);
      await eventually('the replayed upload left no second file', () => filesOnDisk().length === 1, 2_000);
      const other = await upload(png(4, 4), 'a.png', { headers });
      expectError(other, 422, 'idempotency_key_reused');
    });
  });

  describe('size cap (MEDIA_MAX_BYTES)', () => {
    beforeEach(async () => {
      await server.close();
      rmSync(mediaDir, { recursive: true, force: true });
      await start({ MEDIA_MAX_BYTES: String(64 * 1024) });
    });

    it('accepts a file of exactly the cap', async () => {
      const bytes = pngOfSize(64 * 1024);
      const asset = await uploaded(bytes, 'exact.png');
      expect(asset.size_bytes).toBe(64 * 1024);
    });

    it('refuses one byte more with 413 and leaves no row and no file', async () => {
      const res = await upload(pngOfSize(64 * 1024 + 1), 'big.png');
      expectError(res, 413, 'payload_too_large');
      expect(await rows()).toEqual([]);
      await eventually('the partial file is gone', () => filesOnDisk().length === 0, 2_000);
    });

    it('refuses a file far past the cap without reading it all', async () => {
      const res = await upload(pngOfSize(8 * 1024 * 1024), 'huge.png');
      expectError(res, 413, 'payload_too_large');
      expect(res.headers.get('connection')).toBe('close');
      await eventually('the partial file is gone', () => filesOnDisk().length === 0, 2_000);
    });
  });

  describe('truncated uploads', () => {
    it('answers 400 invalid_body to a multipart body that ends inside the file, and keeps nothing', async () => {
      const boundary = 'XyZboundary';
      const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`;
      const body = Buffer.concat([Buffer.from(head), pngOfSize(20_000)]); // no closing boundary
      const res = await call(server, 'POST', '/api/v1/media_assets', {
        headers: { ...auth(), 'content-type': `multipart/form-data; boundary=${boundary}` },
        rawBody: body.toString('latin1'),
      });
      expectError(res, 400, 'invalid_body');
      expect(await rows()).toEqual([]);
      await eventually('the partial file is gone', () => filesOnDisk().length === 0, 2_000);
    });

    it('keeps no row and no file when the client disconnects mid-upload', async () => {
      const boundary = 'XyZboundary';
      const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`;
      const { port } = new URL(server.url);
      const socket = connect(Number(port), '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(
        `POST /api/v1/media_assets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth().authorization}\r\n` +
          `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 1000000\r\n\r\n`,
      );
      socket.write(Buffer.concat([Buffer.from(head), pngOfSize(200_000)]));
      await eventually(
        'the partial file is being written',
        () => filesOnDisk().some((f) => f.endsWith('.part')),
        5_000,
      );
      socket.destroy();
      await eventually('the partial file is gone', () => filesOnDisk().length === 0, 5_000);
      expect(await rows()).toEqual([]);
    });
  });

  describe('rate limits', () => {
    it('takes from the media bucket: the third upload of two allowed is 429 and its file is removed', async () => {
      await server.close();
      await start({ RATE_LIMIT_MEDIA: '2' });
      await uploaded(png(1, 1), 'a.png');
      const second = await upload(png(1, 1), 'b.png');
      expect(second.status).toBe(201);
      expect(second.headers.get('x-ratelimit-limit')).toBe('2');
      expect(second.headers.get('x-ratelimit-remaining')).toBe('0');
      const third = await upload(png(1, 1), 'c.png');
      expect(third.status).toBe(429);
      expect(third.body.type).toBe('rate_limit_exceeded');
      expect(await rows()).toHaveLength(2);
      await eventually('the refused upload left no file', () => filesOnDisk().length === 2, 2_000);
    });

    it('takes from the write bucket too: uploads leave fewer writes for other POSTs', async () => {
      await server.close();
      await start({ RATE_LIMIT_WRITE: '2', RATE_LIMIT_MEDIA: '100' });
      await uploaded(png(1, 1), 'a.png');
      await uploaded(png(1, 1), 'b.png');
      const create = await call(server, 'POST', '/api/v1/campaigns', { headers: ws.headers, body: { name: 'x' } });
      expect(create.status).toBe(429);
    });
  });

  describe('serving', () => {
    let asset: any;
    let bytes: Buffer;
    beforeEach(async () => {
      bytes = pngOfSize(5_000);
      asset = await uploaded(bytes, 'served.png');
    });

    it('serves without a key, typed, cacheable forever, with validators', async () => {
      const res = await fetchUrl(asset.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('content-length')).toBe('5000');
      expect(res.headers.get('accept-ranges')).toBe('bytes');
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const etag = res.headers.get('etag');
      expect(etag).toBeTruthy();
      expect(res.headers.get('last-modified')).toBeTruthy();
      // An explicit Cache-Control, or fetch adds `no-cache`, which rightly defeats the validator.
      const revalidated = await fetchUrl(asset.url, { 'if-none-match': etag!, 'cache-control': 'max-age=0' });
      expect(revalidated.status).toBe(304);
    });

    it('answers ranges with 206 and the slice', async () => {
      const res = await fetchUrl(asset.url, { range: 'bytes=10-19' });
      expect(res.status).toBe(206);
      expect(res.headers.get('content-range')).toBe('bytes 10-19/5000');
      expect(Buffer.from(await res.arrayBuffer())).toEqual(bytes.subarray(10, 20));
      const tail = await fetchUrl(asset.url, { range: 'bytes=-100' });
      expect(tail.status).toBe(206);
      expect(tail.headers.get('content-range')).toBe('bytes 4900-4999/5000');
      expect(Buffer.from(await tail.arrayBuffer())).toEqual(bytes.subarray(4900));
    });

    it('answers an unsatisfiable range with 416, the size and the error envelope', async () => {
      // bytes=-0 (an empty suffix) found by the fuzz suite: it used to answer 416 with an empty body.
      for (const range of ['bytes=5000-6000', 'bytes=-0']) {
        const res = await fetchUrl(asset.url, { range });
        expect(res.headers.get('content-range')).toBe('bytes */5000');
        expectError({ status: res.status, body: await res.json() }, 416, 'range_not_satisfiable');
      }
    });

    it('answers HEAD with the headers and no body', async () => {
      const res = await fetchUrl(asset.url, {}, 'HEAD');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-length')).toBe('5000');
      expect(await res.text()).toBe('');
    });

    it('answers 404 with the error envelope for an unknown key, a wrong extension or a bad name', async () => {
      const path = asset.url.slice(BASE_URL.length);
      for (const bad of [
        `/media/${'A'.repeat(32)}.png`,
        path.replace(/\.png$/, '.jpg'),
        '/media/..%2Fservice.db',
        `${path}.png`,
      ]) {
        const res = await call(server, 'GET', bad);
        expectError(res, 404, 'not_found');
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      }
      expect((await server.request(path.replace(/\.png$/, ''))).status).toBe(200);
    });

    it('answers 405 to other methods on a file URL', async () => {
      const res = await call(server, 'DELETE', asset.url.slice(BASE_URL.length), { headers: ws.headers });
      expectError(res, 405, 'method_not_allowed');
    });
  });

  describe('GET /api/v1/media-library', () => {
    const list = (query = '', w: TestWorkspace = ws) =>
      call(server, 'GET', `/api/v1/media-library${query}`, { headers: w.headers });
    const video = () => FIXTURES.find((f) => f.mimeType === 'video/mp4')!;

    it('lists newest first, filters by asset_type and pages with the cursor', async () => {
      const made: any[] = [];
      for (let i = 0; i < 5; i++) {
        runtime.clock.advance(1_000);
        made.push(
          i % 2 === 0 ? await uploaded(png(i + 1, 1), `p${i}.png`) : await uploaded(video().bytes, `v${i}.mp4`),
        );
      }
      const all = await list();
      expect(all.status).toBe(200);
      expect(all.body).toEqual({ object: 'list', data: [...made].reverse(), has_more: false, next_cursor: null });

      const images = await list('?asset_type=image');
      expect(images.body.data.map((a: any) => a.id)).toEqual([made[4].id, made[2].id, made[0].id]);
      const videos = await list('?asset_type=video');
      expect(videos.body.data.map((a: any) => a.id)).toEqual([made[3].id, made[1].id]);

      const page1 = await list('?limit=2');
      expect(page1.body.data.map((a: any) => a.id)).toEqual([made[4].id, made[3].id]);
      expect(page1.body.has_more).toBe(true);
      const page2 = await list(`?limit=2&cursor=${page1.body.next_cursor}`);
      expect(page2.body.data.map((a: any) => a.id)).toEqual([made[2].id, made[1].id]);
      const page3 = await list(`?limit=2&cursor=${page2.body.next_cursor}`);
      expect(page3.body).toMatchObject({ data: [made[0]], has_more: false, next_cursor: null });

      const imagePage = await list('?asset_type=image&limit=1');
      const imagePage2 = await list(`?asset_type=image&limit=1&cursor=${imagePage.body.next_cursor}`);
      expect(imagePage2.body.data.map((a: any) => a.id)).toEqual([made[2].id]);
    });

    it('refuses an unknown asset_type with 400 invalid_body', async () => {
      expectFieldError(await list('?asset_type=audio'), 'asset_type');
    });

    it("shows only the caller's workspace, though the file URLs stay public", async () => {
      const other = await makeWorkspace(runtime);
      const mine = await uploaded(png(1, 1), 'mine.png');
      const theirs = await uploaded(png(2, 2), 'theirs.png', { headers: auth(other) });
      expect((await list()).body.data.map((a: any) => a.id)).toEqual([mine.id]);
      expect((await list('', other)).body.data.map((a: any) => a.id)).toEqual([theirs.id]);
      expect((await rows()).find((r) => r.id === theirs.id)!.workspaceId).toBe(other.workspace.id);
      expect((await fetchUrl(theirs.url)).status).toBe(200);
    });

    it('needs a key', async () => {
      expectError(await call(server, 'GET', '/api/v1/media-library'), 401, 'missing_key');
    });
  });

  it('writes the file under MEDIA_DIR with the storage key as its name', async () => {
    const asset = await uploaded(png(2, 3), 'x.png');
    const row = (await runtime.db.select().from(mediaAssets).where(eq(mediaAssets.id, asset.id)).get())!;
    expect(readFileSync(join(mediaDir, row.storageKey))).toEqual(Buffer.from(png(2, 3)));
    expect(asset.url).toBe(`${BASE_URL}/media/${row.storageKey}.png`);
  });
});
