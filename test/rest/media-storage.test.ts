import { eq } from 'drizzle-orm';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mediaAssets, plans } from '../../db/schema/index.ts';
import { eventually } from '../helpers/eventually.ts';
import { makeContent, makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { baseEnv, expectError, expectFieldError, forceStatus } from '../helpers/rest-expect.ts';
import { gif, jpeg, png, pngOfSize, webp } from '../fixtures/media/files.ts';

/**
 * Issue 35, M6: media storage is bounded. A per-plan quota (quota_exceeded, shown on /me), a
 * delete that frees it (refused while an unfinished item uses the file), and images that must be
 * whole: a signature followed by filler is not an image.
 */
describe('REST media storage', () => {
  const bed = useRestTestbed({ env: baseEnv, media: true });

  const form = (bytes: Uint8Array, filename = 'file.png') => {
    const body = new FormData();
    body.append('file', new Blob([bytes], { type: 'application/octet-stream' }), filename);
    return body;
  };
  const upload = async (bytes: Uint8Array, ws: TestWorkspace = bed.ws, filename = 'file.png') => {
    const res = await bed.server.request('/api/v1/media_assets', {
      method: 'POST',
      headers: { authorization: ws.headers.authorization },
      body: form(bytes, filename),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
  const uploaded = async (bytes: Uint8Array, ws: TestWorkspace = bed.ws, filename = 'file.png') => {
    const res = await upload(bytes, ws, filename);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  const rest = (method: string, path: string, ws: TestWorkspace = bed.ws, body?: unknown) =>
    call(bed.server, method, path, { headers: ws.headers, body });
  const rows = async () => bed.runtime.db.select().from(mediaAssets).all();
  const filesOnDisk = () => readdirSync(bed.mediaDir);
  /** A workspace on `pro` with its storage quota set to `bytes` (the plan row, as an operator's plan change would). */
  const workspaceWithQuota = async (bytes: number) => {
    await bed.runtime.db.update(plans).set({ storageBytes: bytes }).where(eq(plans.name, 'pro')).run();
    return makeWorkspace(bed.runtime);
  };
  const fileGone = (url: string) => {
    const key = /\/media\/([0-9A-Za-z]{32})/.exec(url)![1]!;
    return !existsSync(join(bed.mediaDir, key));
  };

  describe('quota', () => {
    it('refuses with 403 quota_exceeded an upload past the plan quota, and keeps no row and no file of it', async () => {
      const ws = await workspaceWithQuota(10_000);
      await uploaded(pngOfSize(6_000), ws);
      const refused = await upload(pngOfSize(6_000), ws);
      expectError(refused, 403, 'quota_exceeded');
      expect(refused.body.error.message).toMatch(/media library/);
      expect(await rows()).toHaveLength(1);
      await eventually('only the first file is on disk', () => filesOnDisk().length === 1, 2_000);
      // What is left still fits.
      await uploaded(pngOfSize(4_000), ws);
    });

    it('refuses a file far past the room left while it streams, without reading it all', async () => {
      const ws = await workspaceWithQuota(10_000);
      const refused = await upload(pngOfSize(4 * 1024 * 1024), ws);
      expectError(refused, 403, 'quota_exceeded');
      expect(refused.headers.get('connection')).toBe('close');
      expect(await rows()).toEqual([]);
      await eventually('the partial file is gone', () => filesOnDisk().length === 0, 2_000);
    });

    it('lets only one of two uploads streaming side by side into the last room through', async () => {
      const ws = await workspaceWithQuota(10_000);
      const answers = await Promise.all([upload(pngOfSize(6_000), ws), upload(pngOfSize(6_000), ws)]);
      expect(answers.map((a) => a.status).sort()).toEqual([201, 403]);
      expect(answers.find((a) => a.status === 403)!.body.error.code).toBe('quota_exceeded');
      expect(await rows()).toHaveLength(1);
      await eventually('only the stored file is on disk', () => filesOnDisk().length === 1, 2_000);
    });

    it('shows the storage used and the quota on GET /me, and a delete frees the room', async () => {
      const ws = await workspaceWithQuota(10_000);
      const before = await rest('GET', '/api/v1/me', ws);
      expect(before.body.usage).toMatchObject({ storage_used_bytes: 0, storage_limit_bytes: 10_000 });
      const asset = await uploaded(pngOfSize(6_000), ws);
      expect((await rest('GET', '/api/v1/me', ws)).body.usage.storage_used_bytes).toBe(6_000);
      expectError(await upload(pngOfSize(6_000), ws), 403, 'quota_exceeded');
      expect((await rest('DELETE', `/api/v1/media_assets/${asset.id}`, ws)).status).toBe(200);
      expect((await rest('GET', '/api/v1/me', ws)).body.usage.storage_used_bytes).toBe(0);
      await uploaded(pngOfSize(6_000), ws);
    });

    it('reports the seeded quota of the default plan', async () => {
      const me = await rest('GET', '/api/v1/me');
      expect(me.body.usage.storage_limit_bytes).toBe(25 * 1024 ** 3);
      expect(me.body.features).not.toHaveProperty('storage_limit_bytes');
    });
  });

  describe('DELETE /api/v1/media_assets/{id}', () => {
    it('removes the asset, its file and its URL', async () => {
      const asset = await uploaded(png(3, 3));
      const res = await rest('DELETE', `/api/v1/media_assets/${asset.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: asset.id, object: 'media_asset', deleted: true });
      expect(await rows()).toEqual([]);
      await eventually('the file is removed', () => fileGone(asset.url), 2_000);
      const served = await bed.server.request(new URL(asset.url).pathname);
      expect(served.status).toBe(404);
      expect((await rest('GET', '/api/v1/media-library')).body.data).toEqual([]);
      expectError(await rest('DELETE', `/api/v1/media_assets/${asset.id}`), 404, 'not_found');
    });

    it("answers 404 for another workspace's asset, as for an unknown id, and keeps it", async () => {
      const other = await makeWorkspace(bed.runtime, { name: 'Other' });
      const theirs = await uploaded(png(2, 2), other);
      const foreign = await rest('DELETE', `/api/v1/media_assets/${theirs.id}`);
      const unknown = await rest('DELETE', '/api/v1/media_assets/00000000-0000-7000-8000-000000000000');
      expectError(foreign, 404, 'not_found');
      expect(foreign.body).toEqual(unknown.body);
      expect(await rows()).toHaveLength(1);
      expect((await bed.server.request(new URL(theirs.url).pathname)).status).toBe(200);
    });

    it('refuses with 409 a file an unfinished item uses, naming the items, and deletes it once they are done', async () => {
      const asset = await uploaded(png(2, 2));
      const draft = await makeContent(bed.runtime, bed.ws.workspace, { caption: 'Uses it', media_urls: [asset.url] });
      const another = await makeContent(bed.runtime, bed.ws.workspace, {
        caption: 'Uses it too',
        media_urls: ['https://elsewhere.example/a.png', asset.url],
      });
      const unrelated = await makeContent(bed.runtime, bed.ws.workspace, { caption: 'Other media' });
      const refused = await rest('DELETE', `/api/v1/media_assets/${asset.id}`);
      expectError(refused, 409, 'invalid_state');
      expect(refused.body.error.message).toContain(draft.id);
      expect(refused.body.error.message).toContain(another.id);
      expect(refused.body.error.message).not.toContain(unrelated.id);
      expect(await rows()).toHaveLength(1);
      expect((await bed.server.request(new URL(asset.url).pathname)).status).toBe(200);

      // Archived and published items need their media no more.
      expect((await rest('DELETE', `/api/v1/content/${draft.id}`)).status).toBe(200);
      await forceStatus(bed.runtime, another.id, 'published');
      expect((await rest('DELETE', `/api/v1/media_assets/${asset.id}`)).status).toBe(200);
      await eventually('the file is removed', () => fileGone(asset.url), 2_000);
    });
  });

  describe('images must be whole', () => {
    const refusedAs = async (bytes: Uint8Array, pattern: RegExp, filename = 'file.png') => {
      const res = await upload(bytes, bed.ws, filename);
      expectFieldError(res, 'file');
      expect(res.body.error.details.fieldErrors.file.join(' ')).toMatch(pattern);
      expect(await rows()).toEqual([]);
      await eventually('no file is kept', () => filesOnDisk().length === 0, 2_000);
      return res;
    };
    const zeros = (n: number) => Buffer.alloc(n);

    it('refuses the 8 PNG signature bytes followed by 20 MiB of zeros, at once', async () => {
      const bytes = Buffer.concat([png(1, 1).subarray(0, 8), zeros(20 * 1024 * 1024)]);
      const res = await refusedAs(bytes, /not a well-formed PNG/);
      expect(res.headers.get('connection')).toBe('close');
    });

    it('refuses a PNG with more than a small margin after IEND, and one cut before IEND', async () => {
      await refusedAs(Buffer.concat([png(2, 2), zeros(2_000)]), /bytes follow the IEND chunk/);
      await refusedAs(png(2, 2).subarray(0, -12), /ends before its IEND/);
      await refusedAs(Buffer.concat([png(2, 2).subarray(0, 33), zeros(5_000)]), /chunk/);
    });

    it('accepts a few bytes of padding after the end', async () => {
      const asset = await uploaded(Buffer.concat([png(2, 2), zeros(16)]));
      expect(asset).toMatchObject({ width: 2, height: 2, size_bytes: png(2, 2).length + 16 });
    });

    it('refuses a JPEG that does not end with EOI, or whose segments do not chain', async () => {
      await refusedAs(Buffer.concat([jpeg(8, 8), zeros(4_000)]), /EOI/, 'a.jpg');
      await refusedAs(
        Buffer.concat([jpeg(8, 8).subarray(0, 20), zeros(4_000), Buffer.from([0xff, 0xd9])]),
        /do not chain/,
        'a.jpg',
      );
    });

    it('refuses a GIF with garbage after its trailer, or none', async () => {
      await refusedAs(Buffer.concat([gif(), zeros(3_000)]), /trailer/, 'a.gif');
      await refusedAs(gif().subarray(0, -1), /trailer/, 'a.gif');
      await refusedAs(
        Buffer.concat([gif().subarray(0, 13), Buffer.alloc(3_000, 0x55)]),
        /0x55 stands where a GIF block/,
        'a.gif',
      );
    });

    it('refuses a WebP whose RIFF size is not its own', async () => {
      await refusedAs(Buffer.concat([webp(), zeros(3_000)]), /RIFF/, 'a.webp');
      const short = Buffer.from(webp());
      short.writeUInt32LE(short.readUInt32LE(4) + 500, 4);
      await refusedAs(short, /RIFF/, 'a.webp');
    });

    it('refuses an image whose header gives no size', async () => {
      // A PNG of well-formed chunks whose IHDR says 0 x 0.
      const bytes = png(2, 2);
      bytes.writeUInt32BE(0, 16);
      bytes.writeUInt32BE(0, 20);
      await refusedAs(bytes, /width and height/);
    });
  });
});
