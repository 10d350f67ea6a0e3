/**
 * Live publishing II, black box: Facebook Pages, Instagram and TikTok through the real server in its
 * own process, the real OAuth flows through the fakes' consent pages (with the Facebook Pages chooser),
 * and real publishing runs against the fakes, which download the media from the service's own media
 * URLs. The tests share one world and run in order; the last ones check what the earlier ones left
 * (a TikTok URL filled in late, and that no token or secret ever left the service).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { isoMedia, jpeg, png, webp } from '../fixtures/media/files.ts';
import type { Receiver } from '../helpers/webhook-receiver.ts';
import { confirmationPageOf } from '../helpers/connect-confirmation.ts';
import {
  confirmInBrowser,
  connectThroughConsent,
  consentCallback,
  FACEBOOK_MULTI_PAGE_USER,
  FACEBOOK_SINGLE_PAGE_USER,
  finished,
  liveAccounts,
  publishNow,
  uploadMedia,
  type LiveWorld,
  receivedEvents,
  startLiveWorldWatchingAccounts,
} from './harness.ts';

const SLOW = 120_000;

describe('live publishing II: Facebook Pages, Instagram and TikTok through the real server', () => {
  let world: LiveWorld;
  let receiver: Receiver;
  /** The TikTok item published before its public id existed, for the maintenance test. */
  let lateTikTokItem: string | undefined;

  beforeAll(async () => {
    // Thirty-odd uploads in a few seconds: more than the media bucket's default per minute.
    ({ world, receiver } = await startLiveWorldWatchingAccounts({ RATE_LIMIT_MEDIA: '200' }));
  }, SLOW);
  afterAll(async () => {
    await world?.close();
    await receiver?.close();
  });

  const webhookEvents = (type: string) => receivedEvents(receiver, type);

  /** Every publish result of the items, checked published with a URL of the pattern. */
  const expectPublished = async (ids: string[], platform: string, url: RegExp) => {
    for (const id of ids) {
      const item = await finished(world, id);
      expect(item.status, JSON.stringify(item.publish_results)).toBe('published');
      expect(item.publish_results).toEqual([
        expect.objectContaining({ platform, success: true, url: expect.stringMatching(url) }),
      ]);
    }
  };

  it(
    'Facebook: a login with several Pages gets the chooser; the two Pages chosen connect, and text, image and video publish once each',
    async () => {
      const facebook = world.facebook;
      facebook.script.loginAs(FACEBOOK_MULTI_PAGE_USER);
      const agencyPages = facebook.users.find((user) => user.id === FACEBOOK_MULTI_PAGE_USER)!.pages;

      const chooser = await consentCallback(world, 'facebook');
      expect(chooser.status, chooser.page).toBe(200);
      expect(chooser.headers.get('content-type')).toMatch(/text\/html/);
      expect(chooser.headers.get('x-frame-options')).toBe('DENY');
      const offered = confirmationPageOf({ ...chooser, body: chooser.page }).checkboxes;
      expect(offered.sort()).toEqual(agencyPages.map((page) => page.id).sort());
      // Nothing is connected until the person has chosen.
      expect(await liveAccounts(world, 'facebook')).toEqual([]);

      const chosen = [agencyPages[0]!.id, agencyPages[2]!.id];
      const { status, page } = await confirmInBrowser(world, chooser, chosen);
      expect(status, page).toBe(200);
      expect(page).toContain(agencyPages[0]!.name);
      expect(page).toContain(agencyPages[2]!.name);
      expect(page).toMatch(/Connected \S.* to /);

      const accounts = await liveAccounts(world, 'facebook');
      expect(accounts.map((account) => account.platform_user_id).sort()).toEqual([...chosen].sort());
      for (const account of accounts)
        expect(account).toMatchObject({ mode: 'live', status: 'active', is_active: true });
      // The same form cannot connect anything a second time.
      const replay = await confirmInBrowser(world, chooser, [agencyPages[1]!.id]);
      expect(replay.status).toBe(400);
      expect(await liveAccounts(world, 'facebook')).toHaveLength(2);

      const image = await uploadMedia(world, png(64, 64), 'photo.png');
      const video = await uploadMedia(world, isoMedia('mp42', ['isom', 'mp42']), 'clip.mp4');
      const ids = [
        await publishNow(world, 'facebook', { caption: 'Plain text on a Page' }),
        await publishNow(world, 'facebook', {
          caption: 'An image on a Page',
          content_type: 'single_image',
          media_urls: [image],
        }),
        await publishNow(world, 'facebook', {
          caption: 'A video on a Page',
          content_type: 'reel',
          media_urls: [video],
        }),
      ];
      await expectPublished(ids, 'facebook', /^https:\/\/www\.facebook\.com\/\S+$/);
      const creates = facebook.log.creates();
      expect(creates.map((call) => call.route).sort()).toEqual(['feed.create', 'photos.create', 'videos.create']);
      // All three went to one of the Pages chosen, with that Page's own token.
      const pagesUsed = new Set(facebook.posts.map((post) => post.pageId));
      expect(pagesUsed.size).toBe(1);
      expect(chosen).toContain([...pagesUsed][0]);
      expect(facebook.posts.map((post) => post.kind).sort()).toEqual(['photo', 'status', 'video']);
      // Facebook fetched the image and the video from the service's media URLs.
      expect(facebook.mediaFetches.map((fetched) => [fetched.url, fetched.status]).sort()).toEqual(
        [
          [image, 200],
          [video, 200],
        ].sort(),
      );
      await receiver.waitForRequests(2);
      const connected = webhookEvents('social_account.connected').filter(
        (event) => (event.data.platform ?? event.data.account?.platform) === 'facebook',
      );
      expect(connected).toHaveLength(2);
    },
    SLOW,
  );

  it(
    'Facebook: a login with a single Page asks to connect it, without the chooser',
    async () => {
      world.facebook.script.loginAs(FACEBOOK_SINGLE_PAGE_USER);
      const account = await connectThroughConsent(world, 'facebook');
      const single = world.facebook.users.find((user) => user.id === FACEBOOK_SINGLE_PAGE_USER)!.pages[0]!;
      expect(account).toMatchObject({ mode: 'live', status: 'active', platform_user_id: single.id });
      expect(await liveAccounts(world, 'facebook')).toHaveLength(3);
    },
    SLOW,
  );

  it(
    'Instagram: connects through consent, then an image, a reel and a carousel publish with one media_publish each',
    async () => {
      const instagram = world.instagram;
      const account = await connectThroughConsent(world, 'instagram');
      expect(account).toMatchObject({ mode: 'live', status: 'active', platform_user_id: instagram.users[0]!.userId });
      expect(account.token_expires_at).not.toBeNull();

      const image = await uploadMedia(world, jpeg(32, 32), 'square.jpg');
      const slides = [
        await uploadMedia(world, png(40, 40), 'slide-1.png'),
        await uploadMedia(world, jpeg(48, 48), 'slide-2.jpg'),
        await uploadMedia(world, png(56, 56), 'slide-3.png'),
      ];
      const video = await uploadMedia(world, isoMedia('mp42', ['isom', 'mp42']), 'reel.mp4');
      const ids = [
        await publishNow(world, 'instagram', {
          caption: 'An image on Instagram',
          content_type: 'single_image',
          media_urls: [image],
        }),
        await publishNow(world, 'instagram', { caption: 'A reel', content_type: 'reel', media_urls: [video] }),
        await publishNow(world, 'instagram', { caption: 'A carousel', content_type: 'carousel', media_urls: slides }),
      ];
      await expectPublished(ids, 'instagram', /^https:\/\/www\.instagram\.com\/(p|reel)\/[^/]+\/$/);
      expect(instagram.log.creates()).toHaveLength(3);
      expect(instagram.log.creates().every((call) => call.route === 'media.publish')).toBe(true);
      // One container each for the image and the reel; the carousel's three items and its parent.
      expect(instagram.log.calls('media.create').filter((call) => call.status === 200)).toHaveLength(6);
      expect(instagram.media.map((media) => `${media.mediaType} ${media.mediaProductType}`).sort()).toEqual([
        'CAROUSEL_ALBUM FEED',
        'IMAGE FEED',
        'VIDEO REELS',
      ]);
    },
    SLOW,
  );

  it(
    'TikTok: connects through consent, then a video (chunked upload) and a photo post publish once each',
    async () => {
      const tiktok = world.tiktok;
      const account = await connectThroughConsent(world, 'tiktok');
      expect(account).toMatchObject({ mode: 'live', status: 'active', platform_user_id: tiktok.users[0]!.open_id });

      const video = await uploadMedia(world, isoMedia('isom', ['isom', 'iso2', 'avc1', 'mp41']), 'clip.mp4');
      const photos = [await uploadMedia(world, jpeg(64, 64), 'one.jpg'), await uploadMedia(world, webp(), 'two.webp')];
      const ids = [
        await publishNow(world, 'tiktok', { caption: 'A video on TikTok', content_type: 'reel', media_urls: [video] }),
        await publishNow(world, 'tiktok', {
          caption: 'Photos on TikTok',
          content_type: 'carousel',
          media_urls: photos,
        }),
      ];
      const username = tiktok.users[0]!.username;
      const videoItem = await finished(world, ids[0]!);
      expect(videoItem.status, JSON.stringify(videoItem.publish_results)).toBe('published');
      expect(videoItem.publish_results[0].url).toMatch(
        new RegExp(`^https://www\\.tiktok\\.com/@${username}/video/\\d+$`),
      );
      const photoItem = await finished(world, ids[1]!);
      expect(photoItem.status, JSON.stringify(photoItem.publish_results)).toBe('published');
      expect(photoItem.publish_results[0].url).toMatch(
        new RegExp(`^https://www\\.tiktok\\.com/@${username}/photo/\\d+$`),
      );

      expect(
        tiktok.log
          .creates()
          .map((call) => call.route)
          .sort(),
      ).toEqual(['content.init', 'video.init']);
      expect(tiktok.log.calls('video.upload').filter((call) => call.status !== null && call.status < 300)).toHaveLength(
        1,
      );
      const photoPublish = [...tiktok.publishes.values()].find((publish) => publish.kind === 'photo')!;
      expect(photoPublish.photos!.map((photo) => photo.url)).toEqual(photos);
    },
    SLOW,
  );

  it(
    'TikTok: a post whose public id comes after PUBLISH_COMPLETE is published with url null',
    async () => {
      const tiktok = world.tiktok;
      // Moderation holds the public id until the test releases it.
      tiktok.script.publishProcessing({ publicIdAfter: null });
      const photo = await uploadMedia(world, jpeg(72, 72), 'late.jpg');
      const id = await publishNow(world, 'tiktok', {
        caption: 'Public later',
        content_type: 'single_image',
        media_urls: [photo],
      });
      const item = await finished(world, id);
      tiktok.script.publishProcessing({ publicIdAfter: 0 });
      expect(item.status, JSON.stringify(item.publish_results)).toBe('published');
      expect(item.publish_results[0]).toMatchObject({ platform: 'tiktok', success: true, url: null });
      const publish = [...tiktok.publishes.values()].at(-1)!;
      expect(publish.publicId).toBeUndefined();
      tiktok.script.makePublic(publish.publishId);
      lateTikTokItem = id;
    },
    SLOW,
  );

  it(
    'Facebook: error 190 (the app removed) makes the account needs_reconnect with one disconnected webhook',
    async () => {
      const facebook = world.facebook;
      const target = (await liveAccounts(world, 'facebook')).find(
        (account) => account.platform_user_id === facebook.users[0]!.pages[0]!.id,
      );
      expect(target).toBeDefined();
      const createsBefore = facebook.log.creates().length;
      facebook.script.revoke(FACEBOOK_SINGLE_PAGE_USER);

      const failed = await finished(world, await publishNow(world, 'facebook', { caption: 'Refused by Graph' }));
      expect(failed.status).toBe('approved');
      expect(failed.publish_results[0]).toMatchObject({
        platform: 'facebook',
        success: false,
        error: expect.stringMatching(/reconnect/i),
      });
      expect(facebook.log.creates()).toHaveLength(createsBefore);
      expect(facebook.log.last('feed.create')!.responseBody).toMatchObject({ error: { code: 190 } });

      const account = (await liveAccounts(world, 'facebook')).find((one) => one.id === target.id);
      expect(account).toMatchObject({ status: 'needs_reconnect', is_active: false });
      await eventually(
        'the disconnected webhook arrived',
        () => webhookEvents('social_account.disconnected').length > 0,
      );
      // Give a duplicate the chance to show before counting.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const disconnected = webhookEvents('social_account.disconnected');
      expect(disconnected).toHaveLength(1);
      expect(disconnected[0].data).toMatchObject({ platform: 'facebook', reason: 'reauthorization_required' });
    },
    SLOW,
  );

  it(
    "TikTok: a privacy level the unaudited app may not use is refused with TikTok's code, and nothing is initialized",
    async () => {
      const tiktok = world.tiktok;
      tiktok.script.audited(false);
      try {
        const createsBefore = tiktok.log.creates().length;
        const video = await uploadMedia(world, isoMedia('isom', ['isom', 'mp41']), 'public.mp4');
        const item = await finished(
          world,
          await publishNow(world, 'tiktok', {
            caption: 'Meant for everyone',
            content_type: 'reel',
            media_urls: [video],
            platform_specific: { tiktok: { privacy_level: 'PUBLIC_TO_EVERYONE' } },
          }),
        );
        expect(item.status).toBe('approved');
        expect(item.publish_results[0]).toMatchObject({
          platform: 'tiktok',
          success: false,
          error: expect.stringMatching(
            /privacy_level_option_mismatch|unaudited_client_can_only_post_to_private_accounts/,
          ),
        });
        expect(tiktok.log.creates()).toHaveLength(createsBefore);
      } finally {
        tiktok.script.audited(true);
      }
    },
    SLOW,
  );

  it(
    'Instagram: a carousel of 11 items is refused before any call to Instagram',
    async () => {
      const instagram = world.instagram;
      const slides: string[] = [];
      for (let index = 0; index < 11; index++)
        slides.push(await uploadMedia(world, png(20 + index, 20), `s${index}.png`));
      const requestsBefore = instagram.log.entries.length;
      const item = await finished(
        world,
        await publishNow(world, 'instagram', { caption: 'Too many', content_type: 'carousel', media_urls: slides }),
      );
      expect(item.status).toBe('approved');
      expect(item.publish_results[0]).toMatchObject({
        platform: 'instagram',
        success: false,
        error: expect.stringMatching(/11 media items; the limit is 10|2 to 10/),
      });
      expect(instagram.log.entries.slice(requestsBefore)).toEqual([]);
    },
    SLOW,
  );

  it(
    'TikTok: the maintenance pass (each minute) fills in the URL once the public id has appeared',
    async () => {
      expect(lateTikTokItem).toBeDefined();
      const username = world.tiktok.users[0]!.username;
      // The pass runs at each minute's start; the tests before have used part of that wait.
      let item: any;
      const deadline = Date.now() + 70_000;
      for (;;) {
        item = (await world.api('GET', `/api/v1/content/${lateTikTokItem}`)).json;
        if (item.publish_results[0].url !== null || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(item.status).toBe('published');
      expect(item.publish_results[0].url).toMatch(new RegExp(`^https://www\\.tiktok\\.com/@${username}/photo/\\d+$`));
    },
    SLOW,
  );

  it('never lets a Facebook, Instagram or TikTok token or secret out: no response body, no log line', () => {
    const secrets = new Set<string>([
      world.facebook.appSecret,
      world.instagram.clientSecret,
      world.tiktok.clientSecret,
    ]);
    const keep = (value: unknown) => {
      if (typeof value === 'string' && value.length > 8) secrets.add(value);
    };
    for (const fake of [world.facebook, world.instagram, world.tiktok]) {
      for (const call of fake.log.entries) {
        if (!['token', 'token.exchange', 'token.refresh', 'me.accounts'].includes(call.route ?? '')) continue;
        const answer = call.responseBody as Record<string, any> | undefined;
        keep(answer?.access_token);
        keep(answer?.refresh_token);
        for (const entry of Array.isArray(answer?.data) ? answer.data : []) keep(entry?.access_token);
      }
    }
    // App secrets, the Facebook user tokens and three Page tokens, Instagram's two, TikTok's pair.
    expect(secrets.size).toBeGreaterThanOrEqual(10);
    const logs = world.logs();
    expect(logs.length).toBeGreaterThan(1000);
    const seen = [...world.bodies, logs, ...receiver.requests.map((request) => request.body)].join('\n');
    for (const secret of secrets)
      expect(seen.includes(secret), `a secret starting ${secret.slice(0, 6)} leaked`).toBe(false);
  });
});
