/**
 * Instagram downloads media from the URL it is given: a service whose PUBLIC_BASE_URL is a loopback
 * address cannot be reached from a public Instagram, so such a publish is refused before any call.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { drain } from '../../../src/jobs/drain.ts';
import { publishingJob } from '../../../src/jobs/publish-run.ts';
import { makeContent, makeMedia, makeWorkspace } from '../../helpers/factories.ts';
import { connectLiveAccount, publish } from '../../helpers/publishing.ts';
import { contentRow } from '../../helpers/rest-expect.ts';
import { testRuntime } from '../../helpers/runtime.ts';

describe('media a platform must fetch from the service', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses an Instagram post up front when PUBLIC_BASE_URL is loopback and the Instagram host is public', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'public-media-'));
    dirs.push(dir);
    const runtime = await testRuntime({
      env: {
        MEDIA_DIR: dir,
        PUBLIC_BASE_URL: 'http://127.0.0.1:3000',
        // A public name (the reserved .example domain: it never resolves, so nothing could be reached).
        INSTAGRAM_GRAPH_BASE_URL: 'https://graph.instagram.example',
        INSTAGRAM_APP_ID: '1234',
        INSTAGRAM_APP_SECRET: 'not-used',
      },
    });
    const ws = await makeWorkspace(runtime);
    await connectLiveAccount(runtime, ws.workspace, 'instagram', {
      accessToken: 'token-never-sent',
      expiresAt: new Date(runtime.clock.now().getTime() + 30 * 24 * 3600 * 1000),
    });
    const image = await makeMedia(runtime, ws.workspace);
    const item = await makeContent(runtime, ws.workspace, {
      caption: 'Seen from the beach',
      content_type: 'single_image',
      media_urls: [image.url],
      target_platforms: ['instagram'],
    });
    await publish(runtime, ws.workspace, item.id);
    expect(await drain(runtime, publishingJob(runtime))).toEqual(['failed']);
    const [result] = (await contentRow(runtime, item.id))!.publishResults;
    expect(result!.error).toMatch(
      /Instagram fetches media from a public URL.*PUBLIC_BASE_URL \(http:\/\/127\.0\.0\.1:3000\)/,
    );
  });
});
