/**
 * Bluesky, black box: the real server in its own process, an account connected with an app password
 * (no consent page), and real publishing runs against the fake PDS, which checks every XRPC call as
 * the lexicons describe it. The tests share one world and run in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jpeg, jpegOfSize, png } from '../fixtures/media/files.ts';
import { eventually } from '../helpers/eventually.ts';
import { TEST_ENGINE } from '../helpers/runtime.ts';
import type { Receiver } from '../helpers/webhook-receiver.ts';
import {
  finished,
  liveAccounts,
  publishNow,
  uploadMedia,
  type LiveWorld,
  receivedEvents,
  startLiveWorldWatchingAccounts,
} from './harness.ts';

const SLOW = 120_000;

describe('live publishing: Bluesky through the real server', () => {
  let world: LiveWorld;
  let receiver: Receiver;

  beforeAll(async () => {
    ({ world, receiver } = await startLiveWorldWatchingAccounts());
  }, SLOW);
  afterAll(async () => {
    await world?.close();
    await receiver?.close();
  });

  const webhookEvents = (type: string) => receivedEvents(receiver, type);
  const account = () => world.bluesky.accounts[0]!;
  const connect = (body: Record<string, unknown>) =>
    world.api('POST', '/api/v1/social-accounts/connect', { platform: 'bluesky', ...body });

  /** The item, checked published once: its result's URL names the handle and the record key of the one post stored. */
  const expectPublishedOnce = async (id: string) => {
    const item = await finished(world, id);
    expect(item.status, JSON.stringify(item.publish_results)).toBe('published');
    const [result] = item.publish_results;
    const post = world.bluesky.posts.find((candidate) => candidate.uri === result.platform_post_id);
    expect(post, JSON.stringify(result)).toBeDefined();
    expect(result).toMatchObject({
      platform: 'bluesky',
      success: true,
      url: `https://bsky.app/profile/${account().handle}/post/${post!.rkey}`,
    });
    expect(world.bluesky.posts.filter((candidate) => candidate.rkey === post!.rkey)).toHaveLength(1);
    return post!;
  };

  it(
    'a wrong app password answers 422 credentials_refused and creates nothing',
    async () => {
      const refused = await connect({ identifier: account().handle, app_password: 'wrong-wrong-wrong-wrong' });
      expect(refused.status, JSON.stringify(refused.json)).toBe(422);
      expect(refused.json.error.code).toBe('credentials_refused');
      expect(refused.json.error.message).toMatch(/app password/);
      expect(await liveAccounts(world, 'bluesky')).toEqual([]);
      // Without the fields a credentials platform needs: 400 naming them, and no sign-in is tried.
      const signInsBefore = world.bluesky.log.calls('createSession').length;
      const incomplete = await connect({ identifier: account().handle });
      expect(incomplete.status).toBe(400);
      expect(incomplete.json.error.details.fieldErrors.app_password).toBeDefined();
      expect(world.bluesky.log.calls('createSession')).toHaveLength(signInsBefore);
    },
    SLOW,
  );

  it(
    'connects with an app password: 201 with the active account, one sign-in, and the password nowhere in the database or the logs',
    async () => {
      const connected = await connect({ identifier: account().handle, app_password: account().appPassword });
      expect(connected.status, JSON.stringify(connected.json)).toBe(201);
      expect(connected.json).toMatchObject({
        object: 'social_account',
        platform: 'bluesky',
        mode: 'live',
        status: 'active',
        platform_user_id: account().did,
        username: account().handle,
        profile_url: `https://bsky.app/profile/${account().handle}`,
      });
      expect(await liveAccounts(world, 'bluesky')).toHaveLength(1);
      expect(world.bluesky.log.calls('createSession').filter((call) => call.status === 200)).toHaveLength(1);
      await eventually('the connected webhook arrived', () => webhookEvents('social_account.connected').length > 0);

      // The database as stored (SQLite's file and its WAL, read as bytes; PostgreSQL's rows), and every log line at trace level.
      const stored = world.storedDatabase();
      expect(stored.map(({ name }) => name)).toContain(TEST_ENGINE === 'sqlite' ? 'service.db' : 'pg_dump --data-only');
      // The account's rows are in what was read, so the password's absence means something.
      expect(stored.some(({ bytes }) => bytes.includes(account().did))).toBe(true);
      for (const { name, bytes } of stored) expect(bytes.includes(account().appPassword), name).toBe(false);
      expect(world.logs()).not.toContain(account().appPassword);
      expect(world.bodies.join('\n')).not.toContain(account().appPassword);
    },
    SLOW,
  );

  it(
    'publishes text with an emoji before a link, a mention and a hashtag: facets over the right UTF-8 byte ranges',
    async () => {
      const mentioned = world.bluesky.accounts[1]!;
      const caption = `Hi 👋 see https://example.com/a?b=1 with @${mentioned.handle} #launch`;
      const post = await expectPublishedOnce(await publishNow(world, 'bluesky', { caption }));
      expect(post.record.text).toBe(caption);
      // "Hi " is 3 bytes and 👋 is 4, so the link starts at byte 12, not at character 9.
      expect(post.record.facets).toEqual([
        {
          index: { byteStart: 12, byteEnd: 37 },
          features: [{ $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/a?b=1' }],
        },
        {
          index: { byteStart: 43, byteEnd: 67 },
          features: [{ $type: 'app.bsky.richtext.facet#mention', did: mentioned.did }],
        },
        { index: { byteStart: 68, byteEnd: 75 }, features: [{ $type: 'app.bsky.richtext.facet#tag', tag: 'launch' }] },
      ]);
      const bytes = Buffer.from(caption, 'utf8');
      const covered = (post.record.facets as Array<{ index: { byteStart: number; byteEnd: number } }>).map(
        ({ index }) => bytes.subarray(index.byteStart, index.byteEnd).toString('utf8'),
      );
      expect(covered).toEqual(['https://example.com/a?b=1', `@${mentioned.handle}`, '#launch']);
      // The session from the connect serves the publish: no second sign-in.
      expect(world.bluesky.log.calls('createSession').filter((call) => call.status === 200)).toHaveLength(1);
    },
    SLOW,
  );

  it(
    'a link keeps the ) of its own (, a tag ends at a dash, and the keycap #️⃣ is no tag',
    async () => {
      const link = 'https://en.wikipedia.org/wiki/Rust_(programming_language)';
      const caption = `Rust (${link}). #launch— then press #️⃣`;
      const post = await expectPublishedOnce(await publishNow(world, 'bluesky', { caption }));
      const bytes = Buffer.from(caption, 'utf8');
      const facets = post.record.facets as Array<{
        index: { byteStart: number; byteEnd: number };
        features: unknown[];
      }>;
      expect(facets.map(({ index }) => bytes.subarray(index.byteStart, index.byteEnd).toString('utf8'))).toEqual([
        link,
        '#launch',
      ]);
      expect(facets.map((facet) => facet.features[0])).toEqual([
        { $type: 'app.bsky.richtext.facet#link', uri: link },
        { $type: 'app.bsky.richtext.facet#tag', tag: 'launch' },
      ]);
    },
    SLOW,
  );

  it(
    "langs: the item's platform_specific.bluesky.langs, else the workspace's default_language, else none",
    async () => {
      const unset = await expectPublishedOnce(await publishNow(world, 'bluesky', { caption: 'No language said' }));
      expect(unset.record).not.toHaveProperty('langs');

      const set = await world.api('PATCH', '/api/v1/me', { default_language: 'EN-us' });
      expect(set.status, JSON.stringify(set.json)).toBe(200);
      expect(set.json.default_language).toBe('en-US');
      const byDefault = await expectPublishedOnce(await publishNow(world, 'bluesky', { caption: 'In English' }));
      expect(byDefault.record.langs).toEqual(['en-US']);

      const own = await expectPublishedOnce(
        await publishNow(world, 'bluesky', {
          caption: 'Zweisprachig, bilingue',
          platform_specific: { bluesky: { langs: ['de', 'FR-ch'] } },
        }),
      );
      expect(own.record.langs).toEqual(['de', 'fr-CH']);
      const none = await expectPublishedOnce(
        await publishNow(world, 'bluesky', { caption: '🎉', platform_specific: { bluesky: { langs: [] } } }),
      );
      expect(none.record).not.toHaveProperty('langs');

      const cleared = await world.api('PATCH', '/api/v1/me', { default_language: null });
      expect(cleared.json.default_language).toBeNull();
    },
    SLOW,
  );

  it(
    'publishes two images, each uploaded once with its aspect ratio and alt text',
    async () => {
      const uploadsBefore = world.bluesky.log.calls('uploadBlob').length;
      const images = [
        await uploadMedia(world, jpeg(64, 32), 'wide.jpg'),
        await uploadMedia(world, png(30, 60), 'tall.png'),
      ];
      const post = await expectPublishedOnce(
        await publishNow(world, 'bluesky', { caption: 'Two pictures', content_type: 'slideshow', media_urls: images }),
      );
      expect(
        world.bluesky.log
          .calls('uploadBlob')
          .slice(uploadsBefore)
          .map((call) => call.headers['content-type']),
      ).toEqual(['image/jpeg', 'image/png']);
      expect(post.record.embed).toMatchObject({
        $type: 'app.bsky.embed.images',
        images: [
          { alt: '', aspectRatio: { width: 64, height: 32 }, image: { $type: 'blob', mimeType: 'image/jpeg' } },
          { alt: '', aspectRatio: { width: 30, height: 60 }, image: { $type: 'blob', mimeType: 'image/png' } },
        ],
      });
    },
    SLOW,
  );

  it(
    'refuses a 2,000,001-byte image before uploading it',
    async () => {
      // A whole JPEG, padded inside, exactly one byte over the limit.
      const tooLarge = jpegOfSize(2_000_001);
      expect(tooLarge.length).toBe(2_000_001);
      const url = await uploadMedia(world, tooLarge, 'large.jpg');
      const uploadsBefore = world.bluesky.log.calls('uploadBlob').length;
      const postsBefore = world.bluesky.posts.length;
      const item = await finished(
        world,
        await publishNow(world, 'bluesky', { caption: 'Too big', content_type: 'single_image', media_urls: [url] }),
      );
      expect(item.status).toBe('approved');
      expect(item.publish_results[0]).toMatchObject({
        platform: 'bluesky',
        success: false,
        error: expect.stringMatching(/2,000,000 bytes.*2,000,001/),
      });
      expect(world.bluesky.log.calls('uploadBlob')).toHaveLength(uploadsBefore);
      expect(world.bluesky.posts).toHaveLength(postsBefore);
    },
    SLOW,
  );

  it(
    'a create whose answer is dropped after the record was stored is looked up by its key: published, and the fake holds one post',
    async () => {
      world.bluesky.script.dropAfterStore();
      const postsBefore = world.bluesky.posts.length;
      const post = await expectPublishedOnce(await publishNow(world, 'bluesky', { caption: 'Lost answer, one post' }));
      expect(world.bluesky.posts).toHaveLength(postsBefore + 1);
      const creates = world.bluesky.log.calls('createRecord').filter((call) => (call.body as any).rkey === post.rkey);
      expect(creates).toHaveLength(1);
      expect(creates[0]!.dropped).toBe(true);
      expect(
        world.bluesky.log.calls('getRecord').filter((call) => call.query.rkey === post.rkey && call.status === 200),
      ).toHaveLength(1);
    },
    SLOW,
  );

  it(
    'refuses a post with a video in the preview, naming the problem',
    async () => {
      const created = await world.api('POST', '/api/v1/content', {
        caption: 'A clip',
        content_type: 'reel',
        media_urls: ['https://cdn.example.com/clip.mp4'],
        target_platforms: ['bluesky'],
      });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      const preview = await world.api('POST', `/api/v1/content/${created.json.id}/publish`, { dry_run: true });
      expect(preview.status, JSON.stringify(preview.json)).toBe(200);
      expect(JSON.stringify(preview.json)).toMatch(/video.*images only/);
    },
    SLOW,
  );

  it(
    'a refused refreshSession moves the account to needs_reconnect with one social_account.disconnected event',
    async () => {
      // Two hours on: the session's access token has expired, so the publish must renew it.
      world.bluesky.clock.advance(2 * 3_600_000 + 60_000);
      world.bluesky.script.refuseRefresh();
      const postsBefore = world.bluesky.posts.length;
      const item = await finished(world, await publishNow(world, 'bluesky', { caption: 'After the session ended' }));
      expect(item.status).toBe('approved');
      expect(item.publish_results[0]).toMatchObject({
        platform: 'bluesky',
        success: false,
        error: expect.stringMatching(/reconnect/i),
      });
      expect(world.bluesky.posts).toHaveLength(postsBefore);
      expect(world.bluesky.log.calls('refreshSession')).toHaveLength(1);
      // Never a new sign-in instead of the refresh.
      expect(world.bluesky.log.calls('createSession').filter((call) => call.status === 200)).toHaveLength(1);
      const [stored] = await liveAccounts(world, 'bluesky');
      expect(stored).toMatchObject({ status: 'needs_reconnect', is_active: false });
      await eventually(
        'the disconnected webhook arrived',
        () => webhookEvents('social_account.disconnected').length > 0,
      );
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const disconnected = webhookEvents('social_account.disconnected');
      expect(disconnected).toHaveLength(1);
      expect(disconnected[0].data).toMatchObject({ platform: 'bluesky', reason: 'reauthorization_required' });
      expect(world.logs()).not.toContain(account().appPassword);
    },
    SLOW,
  );
});
