/**
 * Crash safety of live publishing, black box: the server is SIGKILLed while a platform call hangs
 * (the fake logs it and never answers), then started again on the same database. What the dead
 * process finished is not done again, and a create call that went out is never sent a second time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.ts';
import { isoMedia, jpeg } from '../fixtures/media/files.ts';
import { connectThroughConsent, finished, publishNow, startLiveWorld, uploadMedia, type LiveWorld } from './harness.ts';

const SLOW = 120_000;

describe('live publishing survives a SIGKILL', () => {
  let world: LiveWorld;

  beforeAll(async () => {
    world = await startLiveWorld();
    await connectThroughConsent(world, 'twitter');
  }, SLOW);
  afterAll(async () => {
    await world?.close();
  });

  const hung = (route: 'media.append' | 'tweets.create') =>
    eventually(`the ${route} call is out`, () => world.x.log.calls(route).some((call) => call.status === null), 20_000);

  it(
    'killed during a video upload: the restart continues the same upload session and posts once',
    async () => {
      const x = world.x;
      const video = await uploadMedia(world, isoMedia('mp42', ['isom', 'mp42']), 'clip.mp4');
      x.script.stall('media.append');
      const id = await publishNow(world, 'twitter', {
        caption: 'A video that survives',
        content_type: 'reel',
        media_urls: [video],
      });
      await hung('media.append');
      await world.restart({ kill: true });

      const item = await finished(world, id, 60_000);
      expect(item.status, JSON.stringify(item.publish_results)).toBe('published');
      expect(x.log.calls('media.initialize')).toHaveLength(1);
      const appends = x.log.calls('media.append');
      expect(appends).toHaveLength(2);
      expect(new Set(appends.map((call) => call.path)).size).toBe(1);
      expect(x.log.creates()).toHaveLength(1);
    },
    SLOW,
  );

  it(
    'killed right after the create call went out: the outcome is unknown and the post is never sent again',
    async () => {
      const x = world.x;
      const createsBefore = x.log.calls('tweets.create').length;
      x.script.stall('tweets.create');
      const id = await publishNow(world, 'twitter', { caption: 'Sent into the void' });
      await hung('tweets.create');
      await world.restart({ kill: true });

      const item = await finished(world, id, 60_000);
      expect(item.status).toBe('approved');
      expect(item.publish_results[0]).toMatchObject({
        success: false,
        error: expect.stringMatching(/^outcome unknown/),
      });
      expect(x.log.calls('tweets.create')).toHaveLength(createsBefore + 1);
      // The new process looked for the post before giving up.
      expect(x.log.calls('users.tweets').length).toBeGreaterThan(0);
    },
    SLOW,
  );

  it(
    'a create whose answer is lost after X stored it is found by reconciliation: published once',
    async () => {
      const x = world.x;
      const createsBefore = x.log.creates().length;
      x.script.dropAfterStore();
      const item = await finished(world, await publishNow(world, 'twitter', { caption: 'Stored, answer lost' }));
      expect(item.status, JSON.stringify(item.publish_results)).toBe('published');
      expect(item.publish_results[0].url).toMatch(/^https:\/\/x\.com\/.+\/status\/\d+$/);
      expect(x.log.creates()).toHaveLength(createsBefore + 1);
    },
    SLOW,
  );

  it(
    'killed while an Instagram container is IN_PROGRESS: the restart polls that same container and publishes it once',
    async () => {
      const instagram = world.instagram;
      await connectThroughConsent(world, 'instagram');
      // Four status reads before the image is FINISHED: the kill lands after the first.
      instagram.script.containerProcessing({ advance: 'poll', imageSteps: 3 });
      const image = await uploadMedia(world, jpeg(32, 32), 'slow.jpg');
      const id = await publishNow(world, 'instagram', {
        caption: 'Processed across a crash',
        content_type: 'single_image',
        media_urls: [image],
      });
      await eventually(
        'the container was seen IN_PROGRESS',
        () =>
          instagram.log
            .calls('container.status')
            .some((call) => (call.responseBody as { status_code?: string } | undefined)?.status_code === 'IN_PROGRESS'),
        20_000,
      );
      await world.restart({ kill: true });
      const statusesBeforeKill = instagram.log
        .calls('container.status')
        .map((call) => (call.responseBody as { status_code?: string } | undefined)?.status_code);
      expect(statusesBeforeKill).not.toContain('FINISHED');
      expect(instagram.log.calls('media.publish')).toHaveLength(0);

      const item = await finished(world, id, 60_000);
      expect(item.status, JSON.stringify(item.publish_results)).toBe('published');
      // The new process went on polling until the container was FINISHED.
      expect(instagram.log.calls('container.status').length).toBeGreaterThan(statusesBeforeKill.length);
      expect(item.publish_results[0].url).toMatch(/^https:\/\/www\.instagram\.com\/p\/[^/]+\/$/);
      const created = instagram.log.calls('media.create');
      expect(created).toHaveLength(1);
      const containerId = (created[0]!.responseBody as { id: string }).id;
      const polled = new Set(instagram.log.calls('container.status').map((call) => call.path));
      expect([...polled]).toEqual([`/${containerId}`]);
      expect(instagram.log.calls('media.publish')).toHaveLength(1);
      expect(instagram.log.creates()).toHaveLength(1);
      expect(instagram.media.map((media) => media.containerId)).toEqual([containerId]);
    },
    SLOW,
  );
});
