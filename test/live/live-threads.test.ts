/**
 * Threads, black box: the real server in its own process, the OAuth flow through the fake's consent
 * window and the service's confirmation page, and real publishing runs against the fake, which
 * downloads the media from the service's own media URLs. The tests share one world and run in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jpeg, png } from '../fixtures/media/files.ts';
import {
  confirmInBrowser,
  consentCallback,
  finished,
  liveAccounts,
  publishNow,
  startLiveWorld,
  uploadMedia,
  type LiveWorld,
} from './harness.ts';

const SLOW = 120_000;

describe('live publishing: Threads through the real server', () => {
  let world: LiveWorld;

  beforeAll(async () => {
    world = await startLiveWorld();
  }, SLOW);
  afterAll(async () => {
    await world?.close();
  });

  /** The item, checked published once, with the permalink of the one post the fake made for it. */
  const expectPublishedOnce = async (id: string) => {
    const item = await finished(world, id);
    expect(item.status, JSON.stringify(item.publish_results)).toBe('published');
    const [result] = item.publish_results;
    const post = world.threads.posts.find((candidate) => candidate.id === result.platform_post_id);
    expect(post).toBeDefined();
    expect(result).toMatchObject({ platform: 'threads', success: true, url: post!.permalink });
    expect(
      world.threads.log.creates().filter((call) => call.responseBody && (call.responseBody as any).id === post!.id),
    ).toHaveLength(1);
    return post!;
  };

  it(
    "connects through the fake's consent window and the confirmation page: active, with a 60-day token",
    async () => {
      const asked = await consentCallback(world, 'threads');
      expect(asked.status, asked.page).toBe(200);
      expect(asked.page).toContain('Fake Threader');
      // Nothing is stored before the person confirms.
      expect(await liveAccounts(world, 'threads')).toHaveLength(0);
      const confirmed = await confirmInBrowser(world, asked);
      expect(confirmed.status, confirmed.page).toBe(200);
      const [account] = await liveAccounts(world, 'threads');
      expect(account).toMatchObject({
        mode: 'live',
        status: 'active',
        platform_user_id: world.threads.users[0]!.id,
        username: 'fake.threader',
        profile_url: 'https://www.threads.net/@fake.threader',
      });
      expect(world.threads.log.calls('oauth.exchange')).toHaveLength(1);
      expect(Date.parse(account.token_expires_at) - Date.now()).toBeGreaterThan(59 * 86_400_000);
    },
    SLOW,
  );

  it(
    'publishes text, one image and a carousel of 3, each created once with its permalink',
    async () => {
      const image = await uploadMedia(world, jpeg(32, 32), 'square.jpg');
      const slides = [
        await uploadMedia(world, png(40, 40), 'slide-1.png'),
        await uploadMedia(world, jpeg(48, 48), 'slide-2.jpg'),
        await uploadMedia(world, png(56, 56), 'slide-3.png'),
      ];
      const text = await publishNow(world, 'threads', { caption: 'Hello from the service 👋' });
      const single = await publishNow(world, 'threads', {
        caption: 'One image',
        content_type: 'single_image',
        media_urls: [image],
      });
      const carousel = await publishNow(world, 'threads', {
        caption: 'Three slides',
        content_type: 'carousel',
        media_urls: slides,
      });
      expect(await expectPublishedOnce(text)).toMatchObject({ mediaType: 'TEXT', text: 'Hello from the service 👋' });
      expect(await expectPublishedOnce(single)).toMatchObject({ mediaType: 'IMAGE', mediaUrls: [image] });
      expect(await expectPublishedOnce(carousel)).toMatchObject({ mediaType: 'CAROUSEL', mediaUrls: slides });
      expect(world.threads.log.creates()).toHaveLength(3);
      expect(world.threads.log.creates().every((call) => call.route === 'threads.publish')).toBe(true);
      // Threads downloaded each file from the service's own media URLs.
      expect(world.threads.mediaFetches.map((fetched) => fetched.url).sort()).toEqual([image, ...slides].sort());
      expect(world.threads.mediaFetches.every((fetched) => fetched.status === 200)).toBe(true);
    },
    SLOW,
  );

  it(
    'a container that stays IN_PROGRESS for two polls is still published, once',
    async () => {
      world.threads.script.inProgressPolls(2);
      const creates = world.threads.log.creates().length;
      const id = await publishNow(world, 'threads', { caption: 'Slow to process' });
      const post = await expectPublishedOnce(id);
      const container = world.threads.containers.find((candidate) => candidate.id === post.containerId)!;
      const polls = world.threads.log.calls('container.status').filter((call) => call.path === `/${container.id}`);
      expect(polls.map((call) => (call.responseBody as any).status)).toEqual([
        'IN_PROGRESS',
        'IN_PROGRESS',
        'FINISHED',
      ]);
      expect(world.threads.log.creates()).toHaveLength(creates + 1);
      world.threads.script.inProgressPolls(0);
    },
    SLOW,
  );

  it(
    'the preview (publish dry_run) refuses a 501-character text and sends nothing to Threads',
    async () => {
      const requests = world.threads.log.entries.length;
      const created = await world.api('POST', '/api/v1/content', {
        caption: 'a'.repeat(501),
        content_type: 'text_only',
        target_platforms: ['threads'],
      });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      const preview = await world.api('POST', `/api/v1/content/${created.json.id}/publish`, { dry_run: true });
      expect(preview.status, JSON.stringify(preview.json)).toBe(200);
      expect(preview.json).toMatchObject({ object: 'publish_preview', ready: false });
      expect(preview.json.platforms).toEqual([
        expect.objectContaining({
          platform: 'threads',
          ready: false,
          problems: [
            expect.stringContaining('text is 501 characters (an emoji counts its UTF-8 bytes); the limit is 500'),
          ],
        }),
      ]);
      const exactly = await world.api('POST', '/api/v1/content', {
        caption: `${'a'.repeat(496)}🚀`,
        content_type: 'text_only',
        target_platforms: ['threads'],
      });
      const fits = await world.api('POST', `/api/v1/content/${exactly.json.id}/publish`, { dry_run: true });
      expect(fits.json.ready, JSON.stringify(fits.json)).toBe(true);
      expect(world.threads.log.entries.length).toBe(requests);
    },
    SLOW,
  );

  it('no token or secret ever left the service', () => {
    const secrets = [
      world.threads.appSecret,
      ...world.threads.log.entries.flatMap((entry) => (entry.query.access_token ? [entry.query.access_token] : [])),
    ];
    expect(secrets.length).toBeGreaterThan(1);
    for (const secret of new Set(secrets)) {
      for (const body of world.bodies) expect(body).not.toContain(secret);
      expect(world.logs()).not.toContain(secret);
    }
  });
});
