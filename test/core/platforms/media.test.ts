import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPostMedia } from '../../../src/core/platforms/media.ts';
import { PlatformError } from '../../../src/core/platforms/platform-client.ts';
import { gif, isoMedia, png } from '../../fixtures/media/files.ts';
import { makeMedia, makeWorkspace } from '../../helpers/factories.ts';
import { testRuntime } from '../../helpers/runtime.ts';

describe('a live post’s media', () => {
  let server: Server;
  let origin: string;
  let dir: string;
  const files: Record<string, Buffer> = {
    '/photo': png(4, 4),
    '/clip': isoMedia('mp42', ['isom', 'mp42']),
    '/text': Buffer.from('just text, not an image'),
    '/big': Buffer.alloc(4096, 1),
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'live-media-'));
    server = createServer((request, response) => {
      if (request.url === '/moved') return response.writeHead(302, { location: '/photo' }).end();
      const body = files[request.url ?? ''];
      if (!body) return response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const failure = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).kind).toBe('media_invalid');
    return (error as PlatformError).message;
  };

  it('reads the service’s own media URLs from storage, sniffing their type', async () => {
    const runtime = await testRuntime({ env: { MEDIA_DIR: dir } });
    const ws = await makeWorkspace(runtime);
    const image = await makeMedia(runtime, ws.workspace, { bytes: png(3, 3) });
    const animation = await makeMedia(runtime, ws.workspace, { bytes: gif(), filename: 'a.gif' });
    const media = await readPostMedia(runtime, [image.url, animation.url]);
    expect(media.map(({ mimeType, kind }) => ({ mimeType, kind }))).toEqual([
      { mimeType: 'image/png', kind: 'image' },
      { mimeType: 'image/gif', kind: 'gif' },
    ]);
    expect(media[0]!.bytes.equals(png(3, 3))).toBe(true);
  });

  it('refuses an external URL on a private address while the escape is unset', async () => {
    const runtime = await testRuntime({ env: { MEDIA_DIR: dir } });
    expect(await failure(readPostMedia(runtime, [`${origin}/photo`]))).toMatch(/refused.*127\.0\.0\.1.*loopback/);
  });

  it('downloads external media through the guard when private addresses are allowed, following a redirect', async () => {
    const runtime = await testRuntime({ env: { MEDIA_DIR: dir, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    const [photo, clip, moved] = await readPostMedia(runtime, [`${origin}/photo`, `${origin}/clip`, `${origin}/moved`]);
    expect(photo).toMatchObject({ mimeType: 'image/png', kind: 'image' });
    expect(clip).toMatchObject({ mimeType: 'video/mp4', kind: 'video' });
    expect(moved!.bytes.equals(files['/photo']!)).toBe(true);
  });

  it('refuses what is not media, what is missing and what is over MEDIA_MAX_BYTES, saying why', async () => {
    const runtime = await testRuntime({
      env: { MEDIA_DIR: dir, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', MEDIA_MAX_BYTES: '1024' },
    });
    expect(await failure(readPostMedia(runtime, [`${origin}/text`]))).toMatch(/not an image or video/);
    expect(await failure(readPostMedia(runtime, [`${origin}/nothing`]))).toMatch(/HTTP 404/);
    expect(await failure(readPostMedia(runtime, [`${origin}/big`]))).toMatch(/larger than 1024 bytes/);
    expect(
      await failure(readPostMedia(runtime, [`${runtime.config.publicBaseUrl}/media/${'a'.repeat(32)}.png`])),
    ).toMatch(/names no file/);
  });
});
