/**
 * Alt text, black box: the real server with live accounts on X, LinkedIn, a Facebook Page and
 * Bluesky. Media carry a description (on the media asset, or per item where it is attached), and each
 * platform's fake receives it as its documented API takes it: X's media metadata, LinkedIn's
 * `altText`, Facebook's `alt_text_custom`, Bluesky's `alt`. The tests share one world and run in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jpeg, png } from '../fixtures/media/files.ts';
import {
  connectThroughConsent,
  FACEBOOK_SINGLE_PAGE_USER,
  finished,
  publishNow,
  startLiveWorld,
  type LivePlatform,
  type LiveWorld,
} from './harness.ts';

const SLOW = 120_000;

describe('live publishing: alt text reaches every platform that takes it', () => {
  let world: LiveWorld;

  beforeAll(async () => {
    world = await startLiveWorld({ RATE_LIMIT_MEDIA: '200' });
    world.facebook.script.loginAs(FACEBOOK_SINGLE_PAGE_USER);
    for (const platform of ['twitter', 'linkedin', 'facebook'] as const) await connectThroughConsent(world, platform);
    const account = world.bluesky.accounts[0]!;
    const connected = await world.api('POST', '/api/v1/social-accounts/connect', {
      platform: 'bluesky',
      identifier: account.handle,
      app_password: account.appPassword,
    });
    expect(connected.status, JSON.stringify(connected.json)).toBe(201);
  }, SLOW);
  afterAll(async () => {
    await world?.close();
  });

  /** Uploads a file with an optional alt_text field; answers the status and the body. */
  const upload = async (bytes: Buffer, filename: string, altText?: string) => {
    const form = new FormData();
    form.append('file', new Blob([bytes]), filename);
    if (altText !== undefined) form.append('alt_text', altText);
    const response = await fetch(`${world.url}/api/v1/media_assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.apiKey}` },
      body: form,
    });
    return { status: response.status, json: (await response.json()) as any };
  };

  let wide: { id: string; url: string };
  let tall: { id: string; url: string };

  it(
    "a media asset's alt_text: given at upload, changed and removed with PATCH, at most 1,000 characters",
    async () => {
      const first = await upload(jpeg(64, 32), 'wide.jpg', '  A wide red rectangle.  ');
      expect(first.status, JSON.stringify(first.json)).toBe(201);
      expect(first.json.alt_text).toBe('A wide red rectangle.');
      wide = first.json;
      const second = await upload(png(30, 60), 'tall.png');
      expect(second.status).toBe(201);
      expect(second.json.alt_text).toBeNull();
      tall = second.json;

      const tooLong = await upload(png(8, 8), 'long.png', 'x'.repeat(1001));
      expect(tooLong.status).toBe(400);
      expect(tooLong.json.error.details.fieldErrors.alt_text[0]).toMatch(/at most 1000 characters/);

      const set = await world.api('PATCH', `/api/v1/media_assets/${tall.id}`, { alt_text: 'A tall bar, on its own' });
      expect(set.status, JSON.stringify(set.json)).toBe(200);
      expect(set.json).toMatchObject({ id: tall.id, alt_text: 'A tall bar, on its own' });
      const removed = await world.api('PATCH', `/api/v1/media_assets/${tall.id}`, { alt_text: null });
      expect(removed.json.alt_text).toBeNull();
      const again = await world.api('PATCH', `/api/v1/media_assets/${tall.id}`, { alt_text: 'A tall blue bar' });
      expect(again.json.alt_text).toBe('A tall blue bar');
      const listed = await world.api('GET', '/api/v1/media-library');
      expect(listed.json.data.find((asset: any) => asset.id === tall.id).alt_text).toBe('A tall blue bar');

      expect((await world.api('PATCH', `/api/v1/media_assets/${tall.id}`, { alt_text: '   ' })).status).toBe(400);
      const unknown = await world.api('PATCH', '/api/v1/media_assets/00000000-0000-4000-8000-000000000000', {
        alt_text: 'Nothing here',
      });
      expect(unknown.status).toBe(404);
    },
    SLOW,
  );

  it(
    "an item's media_alt_text: keyed by an attached media URL, in place of the asset's; a stray key is refused",
    async () => {
      const stray = await world.api('POST', '/api/v1/content', {
        caption: 'Stray',
        media_urls: [wide.url],
        media_alt_text: { [tall.url]: 'Not attached' },
      });
      expect(stray.status).toBe(400);
      expect(stray.json.error.details.fieldErrors.media_alt_text[0]).toMatch(/not one of the item's media_urls/);

      const made = await world.api('POST', '/api/v1/content', {
        caption: 'Both',
        content_type: 'slideshow',
        media_urls: [wide.url, tall.url],
        media_alt_text: { [tall.url]: 'A tall bar in the item' },
      });
      expect(made.status, JSON.stringify(made.json)).toBe(201);
      expect(made.json.media_alt_text).toEqual({ [tall.url]: 'A tall bar in the item' });
      // The media changes and the entry's URL is gone: so is the entry.
      const changed = await world.api('PATCH', `/api/v1/content/${made.json.id}`, { media_urls: [wide.url, wide.url] });
      expect(changed.json.media_alt_text).toEqual({});
    },
    SLOW,
  );

  it(
    "publishes two images on each platform: the first with its asset's alt text, the second with the item's own",
    async () => {
      const fields = {
        content_type: 'slideshow',
        media_urls: [wide.url, tall.url],
        media_alt_text: { [tall.url]: 'A tall bar in the item' },
      };
      const expected = ['A wide red rectangle.', 'A tall bar in the item'];
      const ids: Partial<Record<LivePlatform, string>> = {};
      for (const platform of ['twitter', 'linkedin', 'facebook', 'bluesky'] as const) {
        ids[platform] = await publishNow(world, platform, { caption: `Two pictures on ${platform}`, ...fields });
      }
      for (const id of Object.values(ids)) {
        const item = await finished(world, id);
        expect(item.status, JSON.stringify(item.publish_results)).toBe('published');
      }

      // X: each image described with POST /2/media/metadata before the post used it.
      const tweet = world.x.posts.at(-1)!;
      expect(tweet.mediaIds.map((id) => world.x.media.get(id)!.altText)).toEqual(expected);
      // LinkedIn: altText on each image of the multiImage content.
      const linkedInPost = world.linkedin.posts.at(-1)!;
      expect((linkedInPost.body.content as any).multiImage.images.map((image: any) => image.altText)).toEqual(expected);
      // Facebook: alt_text_custom on each unpublished photo of the album.
      const album = world.facebook.posts.at(-1)!;
      expect(album.kind).toBe('album');
      expect(album.photoIds.map((id) => world.facebook.photos.get(id)!.altText)).toEqual(expected);
      // Bluesky: alt on each image of the embed.
      const skeet = world.bluesky.posts.at(-1)!;
      expect((skeet.record.embed as any).images.map((image: any) => image.alt)).toEqual(expected);
    },
    SLOW,
  );
});
