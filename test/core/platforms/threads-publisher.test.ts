import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeThreads, type FakeThreads } from '../../../fakes/threads.ts';
import { PlatformError, type MediaRef } from '../../../src/core/platforms/platform-client.ts';
import { threadsPublisher } from '../../../src/core/platforms/threads/publisher.ts';
import { isoMedia, jpeg, png } from '../../fixtures/media/files.ts';
import { startMediaUrlServer, type MediaUrlServer } from '../../helpers/media-url-server.ts';
import { testSession, type TestSession, type TestSessionOptions } from '../../helpers/live-session.ts';

const NOW = Date.UTC(2026, 10, 27, 9);

let th: FakeThreads;
let files: MediaUrlServer;
let userId: string;
let token: string;
beforeEach(async () => {
  th = await startFakeThreads({ now: () => NOW });
  files = await startMediaUrlServer({
    '/photo.jpg': { bytes: jpeg(40, 40), contentType: 'image/jpeg' },
    '/photo2.png': { bytes: png(30, 30), contentType: 'image/png' },
    '/clip.mp4': { bytes: isoMedia('isom', ['isom', 'mp41']), contentType: 'video/mp4' },
  });
  userId = th.users[0]!.id;
  token = th.issueTokens(userId).accessToken;
});
afterEach(async () => {
  await th.close();
  await files.close();
});

const publisher = () =>
  threadsPublisher({ apiBaseUrl: th.url }, { pollDelaysMs: [10], now: () => new Date(th.clock.now()) });
const image = (path = '/photo.jpg'): MediaRef => ({ url: files.at(path), mimeType: 'image/jpeg', kind: 'image' });
const video = (): MediaRef => ({ url: files.at('/clip.mp4'), mimeType: 'video/mp4', kind: 'video' });

function session(options: Partial<TestSessionOptions> = {}): TestSession {
  return testSession({
    platform: 'threads',
    accessToken: token,
    account: { platformUserId: userId, username: 'fake.threader' },
    caption: 'Hello Threads',
    mediaRefs: [],
    now: () => new Date(th.clock.now()),
    ...options,
  });
}

async function refusal(publishing: Promise<unknown>): Promise<PlatformError> {
  const error = await publishing.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

describe('Threads publisher', () => {
  it('publishes text: quota, a TEXT container, its status, threads_publish once, the permalink', async () => {
    const live = session();
    const post = await publisher().publish(live);
    expect(live.calls).toEqual([
      { label: 'threads.publishing_limit', create: false },
      { label: 'threads.create', create: false },
      { label: 'container.status', create: false },
      { label: 'threads.publish', create: true },
      { label: 'threads.get', create: false },
    ]);
    expect(th.posts).toHaveLength(1);
    expect(th.posts[0]).toMatchObject({ mediaType: 'TEXT', text: 'Hello Threads', mediaUrls: [] });
    expect(post).toEqual({ platformPostId: th.posts[0]!.id, url: th.posts[0]!.permalink });
    expect(post.url).toMatch(/^https:\/\/www\.threads\.net\/@fake\.threader\/post\/\S+$/);
    expect(th.log.creates()).toHaveLength(1);
    // The token travels as the access_token parameter and is never part of what the publisher saved.
    expect(JSON.stringify(live.saved)).not.toContain(token);
  });

  it('publishes one image, which Threads downloads from its URL', async () => {
    const live = session({ mediaRefs: [image()] });
    await publisher().publish(live);
    expect(th.posts[0]).toMatchObject({ mediaType: 'IMAGE', mediaUrls: [files.at('/photo.jpg')] });
    expect(th.mediaFetches).toEqual([{ url: files.at('/photo.jpg'), status: 200 }]);
  });

  it('publishes a carousel of 3 (an image, a PNG and a video): each item once, then the parent, then one publish', async () => {
    const refs = [image(), image('/photo2.png'), video()];
    const live = session({ mediaRefs: refs });
    const post = await publisher().publish(live);
    expect(th.posts).toHaveLength(1);
    expect(th.posts[0]).toMatchObject({ mediaType: 'CAROUSEL', mediaUrls: refs.map((ref) => ref.url) });
    expect(th.containers.filter((c) => c.isCarouselItem).map((c) => c.mediaType)).toEqual(['IMAGE', 'IMAGE', 'VIDEO']);
    expect(th.log.calls('threads.create').filter((call) => call.status === 200)).toHaveLength(4);
    expect(th.log.creates()).toHaveLength(1);
    expect(post.url).toBe(th.posts[0]!.permalink);
  });

  it('waits out a container that stays IN_PROGRESS for two polls, then publishes it', async () => {
    th.script.inProgressPolls(2);
    const live = session();
    await publisher().publish(live);
    expect(live.calls.filter((call) => call.label === 'container.status')).toHaveLength(3);
    expect(live.waits).toEqual([10, 10]);
    expect(th.log.creates()).toHaveLength(1);
    expect(th.posts).toHaveLength(1);
  });

  it('resumes from the checkpoint: a saved container is polled, not made again', async () => {
    const first = session();
    const call = first.call.bind(first);
    first.call = async (label, request, options) => {
      if (label === 'threads.publish') throw new Error('process killed');
      return call(label, request, options);
    };
    await expect(publisher().publish(first)).rejects.toThrow('process killed');
    const resumed = session({ checkpoint: first.saved });
    await publisher().publish(resumed);
    expect(th.log.calls('threads.create')).toHaveLength(1);
    expect(th.posts).toHaveLength(1);
  });

  it('after a publish whose answer was lost, reconcile finds the post instead of publishing again', async () => {
    th.script.dropAfterStore();
    const live = session();
    // No answer to the create call (the framework turns this into unknown_outcome; see live-connector tests).
    const lost = await refusal(publisher().publish(live));
    expect(lost.message).toContain('could not be reached');
    expect(live.calls.at(-1)).toEqual({ label: 'threads.publish', create: true });
    const again = session({ checkpoint: live.saved, createSentAt: live.createSentAt });
    const found = await publisher().reconcile!(again);
    expect(found).toEqual({ platformPostId: th.posts[0]!.id, url: th.posts[0]!.permalink });
    expect(th.posts).toHaveLength(1);
  });

  it('refuses before making anything when the 24-hour quota is used', async () => {
    th.script.usedQuota(userId, 250);
    const failed = await refusal(publisher().publish(session()));
    expect(failed.kind).toBe('content_rejected');
    expect(failed.message).toContain('threads_publishing_limit');
    expect(th.log.calls('threads.create')).toHaveLength(0);
  });

  it('a text the platform refuses (501 characters) is content_rejected with its words', async () => {
    const failed = await refusal(publisher().publish(session({ caption: 'a'.repeat(501) })));
    expect(failed.kind).toBe('content_rejected');
    expect(failed.message).toContain('longer than 500');
    expect(th.posts).toHaveLength(0);
  });

  it('media Threads cannot download is transient (nothing made); a revoked token is reauth_required without the token', async () => {
    const missing = await refusal(publisher().publish(session({ mediaRefs: [image('/missing.jpg')] })));
    expect(missing.kind).toBe('transient');
    expect(missing.message).toContain('2207052');
    th.script.revoke(userId);
    const revoked = await refusal(publisher().publish(session()));
    expect(revoked.kind).toBe('reauth_required');
    expect(revoked.message).not.toContain(token);
    expect(th.posts).toHaveLength(0);
  });

  it('a 429 is rate_limited', async () => {
    th.script.rateLimit('threads.create');
    const failed = await refusal(publisher().publish(session()));
    expect(failed.kind).toBe('rate_limited');
  });
});
