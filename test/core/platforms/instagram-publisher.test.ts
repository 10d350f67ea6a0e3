import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeInstagram, type FakeInstagram } from '../../../fakes/instagram.ts';
import { PlatformError, type MediaRef } from '../../../src/core/platforms/platform-client.ts';
import { instagramPublisher } from '../../../src/core/platforms/instagram/publisher.ts';
import { isoMedia, jpeg, png, webm } from '../../fixtures/media/files.ts';
import { startMediaUrlServer, type MediaUrlServer } from '../../helpers/media-url-server.ts';
import { testSession, type TestSession, type TestSessionOptions } from '../../helpers/live-session.ts';

const NOW = Date.UTC(2026, 5, 15, 9);
const HOUR = 3600_000;

let ig: FakeInstagram;
let files: MediaUrlServer;
let userId: string;
let token: string;
beforeEach(async () => {
  ig = await startFakeInstagram({ now: () => NOW, downloadTimeoutMs: 300 });
  files = await startMediaUrlServer({
    '/photo.jpg': { bytes: jpeg(40, 40), contentType: 'image/jpeg' },
    '/photo2.png': { bytes: png(30, 30), contentType: 'image/png' },
    '/clip.mp4': { bytes: isoMedia('isom', ['isom', 'mp41']), contentType: 'video/mp4' },
    '/clip.webm': { bytes: webm(), contentType: 'video/webm' },
  });
  userId = ig.users[0]!.userId;
  token = ig.issueTokens(userId).accessToken;
});
afterEach(async () => {
  await ig.close();
  await files.close();
});

const publisher = () =>
  instagramPublisher({ apiBaseUrl: ig.url }, { pollDelaysMs: [10], now: () => new Date(ig.clock.now()) });

const image = (path = '/photo.jpg'): MediaRef => ({ url: files.at(path), mimeType: 'image/jpeg', kind: 'image' });
const video = (path = '/clip.mp4'): MediaRef => ({ url: files.at(path), mimeType: 'video/mp4', kind: 'video' });

function session(options: Partial<TestSessionOptions> = {}): TestSession {
  return testSession({
    platform: 'instagram',
    accessToken: token,
    account: { platformUserId: userId, username: 'fake.brand' },
    caption: 'Hello Instagram',
    hashtags: ['launch'],
    mediaRefs: [image()],
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

/** A session whose `label` call throws, as a process killed there would leave it. */
function killedAt(live: TestSession, label: string): TestSession {
  const call = live.call.bind(live);
  live.call = async (callLabel, request, options) => {
    if (callLabel === label) throw new Error('process killed');
    return call(callLabel, request, options);
  };
  return live;
}

describe('Instagram publisher: posts', () => {
  it('publishes an image: quota, container from the URL, status, media_publish once, permalink', async () => {
    const live = session();
    const post = await publisher().publish(live);

    expect(live.calls).toEqual([
      { label: 'publishing_limit', create: false },
      { label: 'media.create', create: false },
      { label: 'container.status', create: false },
      { label: 'media.publish', create: true },
      { label: 'media.get', create: false },
    ]);
    const [container] = [...ig.containers.values()];
    expect(container).toMatchObject({
      kind: 'IMAGE',
      caption: 'Hello Instagram\n\n#launch',
      mediaUrl: files.at('/photo.jpg'),
    });
    expect(container!.fetched).toEqual({ bytes: jpeg(40, 40).length, contentType: 'image/jpeg' });
    expect(files.requested).toEqual(['/photo.jpg']);
    expect(ig.media).toHaveLength(1);
    expect(post).toEqual({ platformPostId: ig.media[0]!.id, url: ig.media[0]!.permalink });
    expect(live.saved).toMatchObject({ containerId: container!.id, mediaId: ig.media[0]!.id });
    expect(ig.log.creates()).toHaveLength(1);
    // The token travels in the header only, never in a URL.
    for (const entry of ig.log.entries) {
      expect(entry.headers.authorization).toBe(`Bearer ${token}`);
      expect(JSON.stringify(entry.query)).not.toContain(token);
    }
  });

  it('publishes a reel: REELS with video_url, polling while the container is IN_PROGRESS', async () => {
    ig.script.containerProcessing({ videoSteps: 2 });
    const live = session({ mediaRefs: [video()] });
    const post = await publisher().publish(live);

    const [container] = [...ig.containers.values()];
    expect(container).toMatchObject({ kind: 'REELS', mediaUrl: files.at('/clip.mp4') });
    expect(ig.log.calls('container.status')).toHaveLength(3);
    expect(live.waits).toEqual([10, 10]);
    expect(post.url).toMatch(/^https:\/\/www\.instagram\.com\/reel\//);
    expect(ig.log.creates()).toHaveLength(1);
  });

  it('publishes a carousel: each child with is_carousel_item, saved as made, then the parent with the children in order', async () => {
    const live = session({ mediaRefs: [image(), image('/photo2.png'), video()] });
    await publisher().publish(live);

    const created = ig.log.calls('media.create').map((entry) => entry.body as Record<string, string>);
    expect(created.slice(0, 3)).toEqual([
      { image_url: files.at('/photo.jpg'), is_carousel_item: 'true' },
      { image_url: files.at('/photo2.png'), is_carousel_item: 'true' },
      { media_type: 'VIDEO', video_url: files.at('/clip.mp4'), is_carousel_item: 'true' },
    ]);
    const children = live.saved.children as string[];
    expect(children).toHaveLength(3);
    expect(created[3]).toEqual({
      media_type: 'CAROUSEL',
      children: children.join(','),
      caption: 'Hello Instagram\n\n#launch',
    });
    expect(ig.media[0]).toMatchObject({ mediaType: 'CAROUSEL_ALBUM', children });
    expect(ig.log.creates()).toHaveLength(1);
  });
});

describe('Instagram publisher: refused before any call', () => {
  it('refuses a post without media, naming why', async () => {
    const error = await refusal(publisher().publish(session({ mediaRefs: [] })));
    expect(error.kind).toBe('content_rejected');
    expect(error.message).toContain('no text-only posts');
    expect(ig.log.entries).toHaveLength(0);
  });

  it('refuses a carousel of 11', async () => {
    const error = await refusal(publisher().publish(session({ mediaRefs: Array.from({ length: 11 }, () => image()) })));
    expect(error.kind).toBe('content_rejected');
    expect(error.message).toContain('2 to 10');
    expect(ig.log.entries).toHaveLength(0);
  });

  it('refuses own media on a loopback PUBLIC_BASE_URL when the Graph host is public', async () => {
    const ownMedia: MediaRef = { url: 'http://127.0.0.1:3000/media/abc.jpg', mimeType: 'image/jpeg', kind: 'image' };
    const live = session({ mediaRefs: [ownMedia], publicBaseUrl: 'http://127.0.0.1:3000' });
    const error = await refusal(instagramPublisher({ apiBaseUrl: 'https://graph.instagram.example' }).publish(live));
    expect(error.kind).toBe('content_rejected');
    expect(error.message).toContain('Instagram fetches media from a public URL');
    expect(error.message).toContain('PUBLIC_BASE_URL');
    expect(live.calls).toEqual([]);
  });

  it('refuses when the daily publishing quota is used up, with the figures, making no container', async () => {
    ig.script.publishingQuota({ total: 25, used: 25 });
    const error = await refusal(publisher().publish(session()));
    expect(error.kind).toBe('content_rejected');
    expect(error.message).toContain('25 of 25 posts in the last 24 hours');
    expect(ig.containers.size).toBe(0);
  });
});

describe('Instagram publisher: resuming from the checkpoint', () => {
  it('after a crash while the container is IN_PROGRESS, polls and publishes that same container', async () => {
    ig.script.containerProcessing({ videoSteps: 3 });
    const first = killedAt(session({ mediaRefs: [video()] }), 'container.status');
    await expect(publisher().publish(first)).rejects.toThrow('process killed');
    expect(first.saved.containerId).toBeDefined();

    const resumed = session({ mediaRefs: [video()], checkpoint: first.saved });
    const post = await publisher().publish(resumed);
    expect(ig.containers.size).toBe(1);
    expect(ig.log.calls('media.create')).toHaveLength(1);
    expect(ig.log.calls('media.publish')).toHaveLength(1);
    expect(ig.media[0]!.containerId).toBe(first.saved.containerId);
    expect(post.platformPostId).toBe(ig.media[0]!.id);
  });

  it('resumes a carousel with only the missing children made', async () => {
    const first = session({ mediaRefs: [image(), image('/photo2.png')] });
    let creates = 0;
    const call = first.call.bind(first);
    first.call = async (label, request, options) => {
      if (label === 'media.create' && ++creates === 2) throw new Error('process killed');
      return call(label, request, options);
    };
    await expect(publisher().publish(first)).rejects.toThrow('process killed');
    expect(first.saved.children).toEqual([expect.any(String), null]);

    await publisher().publish(session({ mediaRefs: [image(), image('/photo2.png')], checkpoint: first.saved }));
    expect(ig.log.calls('media.create')).toHaveLength(3); // two children, one parent
    expect(ig.media).toHaveLength(1);
  });

  it('makes an expired container again, once, and publishes the new one', async () => {
    const first = killedAt(session(), 'media.publish');
    await expect(publisher().publish(first)).rejects.toThrow('process killed');
    ig.clock.advance(25 * HOUR);

    const resumed = session({ checkpoint: first.saved });
    await publisher().publish(resumed);
    expect(ig.containers.size).toBe(2);
    expect(resumed.saved.recreated).toBe(true);
    expect(ig.media[0]!.containerId).toBe(resumed.saved.containerId);
    expect(ig.media[0]!.containerId).not.toBe(first.saved.containerId);
  });

  it('makes a new container when media_publish answers 2207020 (expired), and polls again on 9007 (not ready)', async () => {
    ig.script.failNext('media.publish', 1, 'expired');
    await publisher().publish(session());
    expect(ig.containers.size).toBe(2);
    expect(ig.media).toHaveLength(1);

    ig.script.failNext('media.publish', 1, 'notReady');
    const live = session({ caption: 'Second' });
    await publisher().publish(live);
    expect(ig.log.calls('media.publish')).toHaveLength(4);
    expect(ig.media).toHaveLength(2);
    expect(live.calls.filter((call) => call.label === 'container.status')).toHaveLength(2);
  });
});

describe('Instagram publisher: errors sorted into kinds', () => {
  it('a video Instagram could not download ends in ERROR: media_invalid with its status, nothing published', async () => {
    const error = await refusal(publisher().publish(session({ mediaRefs: [video('/missing')] })));
    expect(error.kind).toBe('media_invalid');
    expect(error.message).toContain('2207052');
    expect(ig.log.calls('media.publish')).toHaveLength(0);
    const webmError = await refusal(publisher().publish(session({ mediaRefs: [video('/clip.webm')] })));
    expect(webmError.message).toContain('2207026');
  });

  it('an image Instagram could not fetch (2207052) or fetch in time (2207003) is transient', async () => {
    const missing = await refusal(publisher().publish(session({ mediaRefs: [image('/missing')] })));
    expect(missing.kind).toBe('transient');
    expect(missing.message).toContain('subcode 2207052');
    const slow = await refusal(publisher().publish(session({ mediaRefs: [image('/hang')] })));
    expect(slow.kind).toBe('transient');
    expect(slow.message).toContain('subcode 2207003');
    expect(ig.containers.size).toBe(0);
  });

  it('maps 190 to reauth_required, and a token without the publish permission too', async () => {
    ig.script.revoke(userId);
    const revoked = await refusal(publisher().publish(session()));
    expect(revoked.kind).toBe('reauth_required');
    expect(revoked.message).toContain('code 190');

    token = ig.issueTokens(ig.users[1]!.userId, ['instagram_business_basic']).accessToken;
    const live = session({ account: { platformUserId: ig.users[1]!.userId, username: 'other.creator' } });
    const missing = await refusal(publisher().publish(live));
    expect(missing.kind).toBe('reauth_required');
    expect(missing.message).toContain('instagram_business_content_publish');
  });

  it('maps throttling to rate_limited with the regain time, and a 503 to transient', async () => {
    ig.script.rateLimit('media.create', 1, { regainMinutes: 7 });
    const limited = await refusal(publisher().publish(session()));
    expect(limited.kind).toBe('rate_limited');
    expect(limited.details.retryAt).toBeInstanceOf(Date);
    expect(limited.details.retryAt!.getTime() - NOW).toBe(7 * 60_000);

    ig.script.unavailable('publishing_limit', 1);
    const down = await refusal(publisher().publish(session()));
    expect(down).toMatchObject({ kind: 'transient', details: { status: 503 } });
  });

  it('maps spam (2207001) and a restricted account (2207050) to content_rejected, the quota (2207042) with a clear message', async () => {
    for (const [name, code] of [
      ['spam', '2207001'],
      ['restricted', '2207050'],
      ['quota', '2207042'],
    ] as const) {
      ig.script.failNext('media.publish', 1, name);
      const error = await refusal(publisher().publish(session({ caption: `Post ${name}` })));
      expect(error.kind).toBe('content_rejected');
      expect(error.message).toContain(code);
    }
    expect(ig.media).toHaveLength(0);
  });

  it('never puts the access token in an error message', async () => {
    const errors: PlatformError[] = [];
    ig.script.rateLimit('media.create', 1);
    errors.push(await refusal(publisher().publish(session())));
    ig.script.failNext('media.publish', 1, 'spam');
    errors.push(await refusal(publisher().publish(session())));
    ig.script.revoke(userId);
    errors.push(await refusal(publisher().publish(session())));
    for (const error of errors) expect(error.message).not.toContain(token);
  });
});

describe('Instagram publisher: reconcile', () => {
  it('finds a post whose publish answer was lost, through the container PUBLISHED and the latest media', async () => {
    ig.script.dropAfterStore();
    const first = session();
    await expect(publisher().publish(first)).rejects.toThrow(PlatformError);
    expect(ig.media).toHaveLength(1);
    expect(first.saved.mediaId).toBeUndefined();

    const after = session({ checkpoint: first.saved });
    const found = await publisher().reconcile!(after);
    expect(found).toEqual({ platformPostId: ig.media[0]!.id, url: ig.media[0]!.permalink });
    expect(after.saved.mediaId).toBe(ig.media[0]!.id);
    expect(ig.log.creates()).toHaveLength(1);
  });

  it('finishes from a saved media id with the permalink', async () => {
    ig.script.unavailable('media.get', 1);
    const first = session();
    // The permalink read failing leaves the post published with no URL yet.
    expect((await publisher().publish(first)).url).toBeNull();
    const found = await publisher().reconcile!(session({ checkpoint: first.saved }));
    expect(found).toEqual({ platformPostId: ig.media[0]!.id, url: ig.media[0]!.permalink });
  });

  it('answers null when the container was never published, or there is no container', async () => {
    const first = killedAt(session(), 'media.publish');
    await expect(publisher().publish(first)).rejects.toThrow('process killed');
    expect(await publisher().reconcile!(session({ checkpoint: first.saved }))).toBeNull();
    expect(await publisher().reconcile!(session())).toBeNull();
    expect(ig.media).toHaveLength(0);
  });

  it('reads a late URL from the permalink', async () => {
    const post = await publisher().publish(session());
    const url = await publisher().lateUrl!({
      account: { id: 'acct', platformUserId: userId, username: 'fake.brand' },
      platformPostId: post.platformPostId,
      accessToken: async () => token,
      requestTimeoutMs: 5_000,
    });
    expect(url).toBe(ig.media[0]!.permalink);
  });
});
