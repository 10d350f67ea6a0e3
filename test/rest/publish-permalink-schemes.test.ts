import { describe, expect, it } from 'vitest';
import type { Platform } from '../../db/schema/index.ts';
import { drain } from '../../src/jobs/drain.ts';
import { publishingJob } from '../../src/jobs/publish-run.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { connectAccounts, connectorsWith } from '../helpers/publishing.ts';

/**
 * A post's URL is what a platform answers; it is shown as a link and opened by the MCP view, so
 * whatever the platform, only an http(s) URL is stored in publish_results.
 */
describe('publish_results keep only http(s) post URLs', () => {
  const bed = useRestTestbed();

  const ANSWERS: Partial<Record<Platform, string>> = {
    twitter: 'javascript:alert(document.domain)',
    linkedin: 'data:text/html,<script>alert(1)</script>',
    facebook: ' JavaScript:alert(1)',
    threads: 'not a url at all',
    bluesky: 'https://bsky.app/profile/brand.bsky.social/post/3kabc',
    instagram: 'HTTP://www.instagram.com/p/abc/',
  };

  it('stores no url for a javascript:, data: or unparsable answer, on every platform, and keeps http(s) ones', async () => {
    const platforms = Object.keys(ANSWERS) as Platform[];
    await connectAccounts(bed.runtime, bed.ws.workspace, platforms);
    const created = await call(bed.server, 'POST', '/api/v1/content', {
      headers: bed.ws.headers,
      body: {
        caption: 'Out now',
        content_type: 'single_image',
        media_urls: ['https://cdn.example.com/one.jpg'],
        target_platforms: platforms,
        status: 'approved',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const queued = await call(bed.server, 'POST', `/api/v1/content/${created.body.id}/publish`, {
      headers: bed.ws.headers,
      body: {},
    });
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    const connectors = connectorsWith(
      bed.runtime,
      Object.fromEntries(
        platforms.map((platform) => [
          platform,
          {
            publish: async () => ({
              status: 'published' as const,
              platformPostId: `${platform}-1`,
              url: ANSWERS[platform]!,
            }),
          },
        ]),
      ),
    );
    await drain(bed.runtime, publishingJob(bed.runtime, connectors));

    const item = await call(bed.server, 'GET', `/api/v1/content/${created.body.id}`, { headers: bed.ws.headers });
    expect(item.body.status).toBe('published');
    const urls = Object.fromEntries(
      item.body.publish_results.map((r: { platform: string; success: boolean; url: string | null }) => {
        expect(r.success, r.platform).toBe(true);
        return [r.platform, r.url];
      }),
    );
    expect(urls).toEqual({
      twitter: null,
      linkedin: null,
      facebook: null,
      threads: null,
      bluesky: 'https://bsky.app/profile/brand.bsky.social/post/3kabc',
      instagram: 'HTTP://www.instagram.com/p/abc/',
    });
  });
});
