import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeFacebook, type FakeFacebook } from '../../../fakes/facebook.ts';
import { facebookError } from '../../../src/core/platforms/facebook/errors.ts';
import { facebookPublisher, type FacebookCheckpoint } from '../../../src/core/platforms/facebook/publisher.ts';
import { readUsage } from '../../../src/core/platforms/meta/usage.ts';
import { PlatformError, type MediaRef } from '../../../src/core/platforms/platform-client.ts';
import { isoMedia, jpeg, png } from '../../fixtures/media/files.ts';
import { testSession, type TestSession, type TestSessionOptions } from '../../helpers/live-session.ts';
import { startMediaUrlServer, type MediaUrlServer } from '../../helpers/media-url-server.ts';

const NOW = Date.UTC(2026, 5, 15, 9);
const V = 'v24.0';

let fb: FakeFacebook;
let media: MediaUrlServer;
let served: Record<string, { bytes: Buffer; contentType: string }>;
/** What the media server answers, by path; the fake downloads from it. */
const files = {
  add(path: string, bytes: Buffer, contentType = 'application/octet-stream'): string {
    served[path] = { bytes, contentType };
    return media.at(path);
  },
  hits: (path: string) => media.requested.filter((requested) => requested === path).length,
  get url() {
    return media.url;
  },
};
let pageId: string;
let token: string;
beforeEach(async () => {
  fb = await startFakeFacebook({ now: () => NOW, separateVideoHost: true });
  served = {};
  media = await startMediaUrlServer(served);
  pageId = fb.users[0]!.pages[0]!.id;
  token = fb.issueTokens(fb.users[0]!.id).pageTokens[pageId]!;
});
afterEach(async () => {
  await fb.close();
  await media.close();
});

const publisher = () =>
  facebookPublisher(
    { apiBaseUrl: fb.url, graphVideoBaseUrl: fb.videoUrl, graphVersion: V },
    { now: () => new Date(NOW) },
  );

function session(options: Partial<TestSessionOptions> = {}): TestSession {
  return testSession({
    platform: 'facebook',
    accessToken: token,
    account: { platformUserId: pageId, username: 'Fake Bakery' },
    caption: 'Fresh bread today',
    ...options,
  });
}

const image = (name: string): MediaRef => ({
  url: files.add(name, jpeg(4, 4), 'image/jpeg'),
  mimeType: 'image/jpeg',
  kind: 'image',
});
const pngImage = (name: string): MediaRef => ({
  url: files.add(name, png(3, 3), 'image/png'),
  mimeType: 'image/png',
  kind: 'image',
});
const video = (name = '/clip.mp4'): MediaRef => ({
  url: files.add(name, isoMedia('isom', ['isom', 'mp41']), 'video/mp4'),
  mimeType: 'video/mp4',
  kind: 'video',
});

async function refusal(publishing: Promise<unknown>): Promise<PlatformError> {
  const error = await publishing.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PlatformError);
  expect((error as Error).message).not.toContain(token);
  return error as PlatformError;
}

describe('Facebook publisher: posts', () => {
  it('posts text to the Page feed once, as the create call, and answers the post id and permalink', async () => {
    const live = session({ hashtags: ['bakery'] });
    const post = await publisher().publish(live);

    expect(fb.posts).toEqual([
      expect.objectContaining({ pageId, kind: 'status', message: 'Fresh bread today\n\n#bakery' }),
    ]);
    expect(post).toEqual({
      platformPostId: fb.posts[0]!.id,
      url: `https://www.facebook.com/${pageId}/posts/${fb.posts[0]!.id.split('_')[1]}`,
    });
    expect(live.calls).toEqual([
      { label: 'feed.create', create: true },
      { label: 'object.get', create: false },
    ]);
    expect(fb.log.last('feed.create')!.headers.authorization).toBe(`Bearer ${token}`);
    expect(fb.log.last('feed.create')!.query).toEqual({});
    expect((live.saved as FacebookCheckpoint).created).toEqual({ kind: 'feed', id: post.platformPostId });
    expect(fb.log.creates()).toHaveLength(1);
  });

  it('refuses a post with neither text nor media before any call', async () => {
    const live = session({ caption: '' });
    expect((await refusal(publisher().publish(live))).kind).toBe('content_rejected');
    expect(fb.log.entries).toHaveLength(0);
  });

  it('publishes one photo with /photos, which Facebook downloads from its URL', async () => {
    const ref = image('/one.jpg');
    const live = session({ mediaRefs: [ref] });
    const post = await publisher().publish(live);

    expect(files.hits('/one.jpg')).toBe(1);
    const photo = [...fb.photos.values()][0]!;
    expect(photo).toMatchObject({ url: ref.url, message: 'Fresh bread today', published: true });
    expect(post.platformPostId).toBe(photo.postId);
    expect(post.url).toMatch(new RegExp(`^https://www\\.facebook\\.com/${pageId}/posts/`));
    expect(live.calls[0]).toEqual({ label: 'photos.create', create: true });
    expect(fb.log.creates()).toHaveLength(1);
  });

  it('uploads several photos unpublished, checkpointing each, then creates one feed post with attached_media', async () => {
    const refs = [image('/a.jpg'), pngImage('/b.png'), image('/c.jpg')];
    const live = session({ mediaRefs: refs });
    const post = await publisher().publish(live);

    const saved = live.saved as FacebookCheckpoint;
    expect(saved.photos).toHaveLength(3);
    expect(fb.posts).toEqual([
      expect.objectContaining({ id: post.platformPostId, kind: 'album', photoIds: saved.photos }),
    ]);
    expect(live.calls.map((call) => `${call.label}${call.create ? '!' : ''}`)).toEqual([
      'photos.upload',
      'photos.upload',
      'photos.upload',
      'feed.create!',
      'object.get',
    ]);
    expect(fb.log.creates()).toHaveLength(1);
  });

  it('resumes a multi-photo post from the checkpoint without uploading the saved photos again', async () => {
    const first = image('/a.jpg');
    const second: MediaRef = { url: `${files.url}/b.jpg`, mimeType: 'image/jpeg', kind: 'image' };
    const live = session({ mediaRefs: [first, second] });
    // The second file is not served yet: Facebook answers 324, and the first photo's id is kept.
    expect((await refusal(publisher().publish(live))).kind).toBe('media_invalid');
    expect((live.saved as FacebookCheckpoint).photos).toHaveLength(1);

    files.add('/b.jpg', jpeg(4, 4), 'image/jpeg');
    const resumed = session({ mediaRefs: [first, second], checkpoint: live.saved });
    await publisher().publish(resumed);
    expect(resumed.calls.filter((call) => call.label === 'photos.upload')).toHaveLength(1);
    expect(files.hits('/a.jpg')).toBe(1);
    expect(fb.posts[0]!.photoIds).toEqual([(live.saved as FacebookCheckpoint).photos![0], expect.any(String)]);
    expect(fb.log.creates()).toHaveLength(1);
  });

  it('skips photos the checkpoint already holds', async () => {
    const refs = [image('/a.jpg'), image('/b.jpg')];
    const firstUpload = await fetch(`${fb.url}/${V}/${pageId}/photos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ url: refs[0]!.url, published: 'false' }),
    }).then((response) => response.json() as Promise<{ id: string }>);
    const live = session({ mediaRefs: refs, checkpoint: { photos: [firstUpload.id] } });
    await publisher().publish(live);

    expect(live.calls.filter((call) => call.label === 'photos.upload')).toHaveLength(1);
    expect(files.hits('/a.jpg')).toBe(1);
    expect(fb.posts[0]!.photoIds[0]).toBe(firstUpload.id);
  });

  it('refuses a video with photos, and media on a local PUBLIC_BASE_URL for a public Graph host, before any call', async () => {
    const mixed = session({ mediaRefs: [video(), image('/a.jpg')] });
    expect((await refusal(publisher().publish(mixed))).kind).toBe('media_invalid');

    const local = session({
      publicBaseUrl: 'http://127.0.0.1:3000',
      mediaRefs: [{ url: 'http://127.0.0.1:3000/media/abc.jpg', mimeType: 'image/jpeg', kind: 'image' }],
    });
    const publicGraph = facebookPublisher({
      apiBaseUrl: 'https://graph.facebook.example',
      graphVideoBaseUrl: 'https://graph-video.facebook.example',
      graphVersion: V,
    });
    const refused = await refusal(publicGraph.publish(local));
    expect(refused.message).toContain('Facebook fetches media from a public URL');
    expect(refused.message).toContain('PUBLIC_BASE_URL');
    expect(local.calls).toHaveLength(0);
    expect(fb.log.entries).toHaveLength(0);
  });

  it('falls back to the post id URL when the permalink read fails: the post is published all the same', async () => {
    fb.script.unavailable('object.get', 1);
    const post = await publisher().publish(session());
    expect(post.url).toBe(`https://www.facebook.com/${post.platformPostId}`);
  });
});

describe('Facebook publisher: video', () => {
  it('creates the video on the graph-video host with file_url, polls its status, and answers its permalink', async () => {
    fb.script.videoProcessing({ advance: 'poll', steps: 2 });
    const ref = video();
    const live = session({ mediaRefs: [ref] });
    const post = await publisher().publish(live);

    const stored = [...fb.videos.values()][0]!;
    expect(stored).toMatchObject({ fileUrl: ref.url, description: 'Fresh bread today' });
    expect(files.hits('/clip.mp4')).toBe(1);
    expect(post).toEqual({ platformPostId: stored.id, url: `https://www.facebook.com/${pageId}/videos/${stored.id}/` });
    expect(live.calls.map((call) => `${call.label}${call.create ? '!' : ''}`)).toEqual([
      'videos.create!',
      'videos.status',
      'videos.status',
      'videos.status',
      'object.get',
    ]);
    expect(live.waits).toEqual([2_000, 3_000]);
    expect((live.saved as FacebookCheckpoint).created).toEqual({ kind: 'video', id: stored.id });
    expect(fb.log.creates()).toHaveLength(1);
    expect(fb.log.last('videos.create')!.headers.host).toBe(new URL(fb.videoUrl).host);
  });

  it('fails with media_invalid and Facebook reason when processing ends in error', async () => {
    fb.script.videoProcessing({ advance: 'poll', steps: 1, outcome: 'error' });
    const error = await refusal(publisher().publish(session({ mediaRefs: [video()] })));
    expect(error.kind).toBe('media_invalid');
    expect(error.message).toContain('#6000');
  });

  it('answers unknown_outcome when processing cannot be followed after the video was handed over', async () => {
    fb.script.videoProcessing({ advance: 'clock', steps: 3600 });
    const live = session({ mediaRefs: [video()] });
    live.wait = () => Promise.reject(new PlatformError('transient', 'past the retry window'));
    const error = await refusal(publisher().publish(live));
    expect(error.kind).toBe('unknown_outcome');
    expect((live.saved as FacebookCheckpoint).created?.kind).toBe('video');
  });

  it('answers 389 from Facebook as media_invalid when the video cannot be fetched', async () => {
    const live = session({ mediaRefs: [{ url: `${files.url}/missing.mp4`, mimeType: 'video/mp4', kind: 'video' }] });
    const error = await refusal(publisher().publish(live));
    expect(error.kind).toBe('media_invalid');
    expect(error.message).toContain('(#389)');
  });
});

describe('Facebook publisher: reconcile', () => {
  it('finds a text post whose create answer was lost, by its text, without posting again', async () => {
    fb.script.dropAfterStore('feed.create');
    const live = session();
    await refusal(publisher().publish(live));
    expect((live.saved as FacebookCheckpoint).sending).toEqual({ kind: 'feed', at: new Date(NOW).toISOString() });

    const found = await publisher().reconcile!(session({ checkpoint: live.saved }));
    expect(found).toEqual({ platformPostId: fb.posts[0]!.id, url: expect.stringContaining(`/${pageId}/posts/`) });
    expect(fb.log.creates()).toHaveLength(1);
  });

  it('finds a lost video by its description, then follows its processing', async () => {
    fb.script.dropAfterStore('videos.create');
    const live = session({ mediaRefs: [video()] });
    await refusal(publisher().publish(live));

    const again = session({ mediaRefs: [video()], checkpoint: live.saved });
    const found = await publisher().reconcile!(again);
    const stored = [...fb.videos.values()][0]!;
    expect(found).toEqual({
      platformPostId: stored.id,
      url: `https://www.facebook.com/${pageId}/videos/${stored.id}/`,
    });
    expect(again.calls.map((call) => call.label)).toEqual([
      'videos.list',
      'videos.status',
      'videos.status',
      'object.get',
    ]);
    expect(fb.log.creates()).toHaveLength(1);
  });

  it('finishes from a saved video id, and answers null when the create was never marked sent', async () => {
    const upload = await fetch(`${fb.videoUrl}/${V}/${pageId}/videos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ file_url: video().url }),
    }).then((response) => response.json() as Promise<{ id: string }>);
    const live = session({ checkpoint: { created: { kind: 'video', id: upload.id } } });
    const found = await publisher().reconcile!(live);
    expect(found?.platformPostId).toBe(upload.id);
    expect(live.calls.some((call) => call.create)).toBe(false);

    expect(await publisher().reconcile!(session())).toBeNull();
  });

  it('answers null when no post with the text was created since the call was sent', async () => {
    await publisher().publish(session({ caption: 'Something else' }));
    const sending = { sending: { kind: 'feed', at: new Date(NOW).toISOString() } };
    expect(await publisher().reconcile!(session({ checkpoint: sending }))).toBeNull();

    // The same text posted an hour before the create call went is another post.
    await publisher().publish(session());
    const later = session({ checkpoint: sending, createSentAt: new Date(NOW + 3600_000) });
    expect(await publisher().reconcile!(later)).toBeNull();
    expect(await publisher().reconcile!(session({ checkpoint: sending, createSentAt: new Date(NOW) }))).not.toBeNull();
  });
});

describe('Facebook publisher: errors and usage', () => {
  it('sorts the fake Facebook refusals into kinds, never quoting the token', async () => {
    fb.script.rateLimit('feed.create', 1, { code: 80001, regainMinutes: 3 });
    const limited = await refusal(publisher().publish(session()));
    expect(limited.kind).toBe('rate_limited');
    expect(limited.details.retryAt).toEqual(new Date(NOW + 3 * 60_000));
    expect(limited.message).toContain('(#80001)');

    fb.script.unavailable('feed.create', 1);
    expect((await refusal(publisher().publish(session()))).kind).toBe('transient');

    const withoutPosting = fb.issueTokens(fb.users[0]!.id, ['pages_show_list', 'pages_read_engagement']).pageTokens[
      pageId
    ]!;
    const denied = await refusal(publisher().publish(session({ accessToken: withoutPosting })));
    expect(denied.kind).toBe('reauth_required');
    expect(denied.message).toContain('(#200)');

    await publisher().publish(session({ caption: 'Twice' }));
    const duplicate = await refusal(publisher().publish(session({ caption: 'Twice' })));
    expect(duplicate.kind).toBe('duplicate');

    const photo = await refusal(
      publisher().publish(
        session({ mediaRefs: [{ url: `${files.url}/none.jpg`, mimeType: 'image/jpeg', kind: 'image' }] }),
      ),
    );
    expect(photo.kind).toBe('media_invalid');
    expect(photo.message).toContain('(#324)');

    fb.script.revoke(fb.users[0]!.id);
    const revoked = await refusal(publisher().publish(session()));
    expect(revoked.kind).toBe('reauth_required');
    expect(revoked.message).toContain('(#190/458)');
  });

  it('maps every documented Graph code to its kind', () => {
    const kindOf = (code: number, subcode?: number, status = 400, context: 'post' | 'media' | 'read' = 'post') =>
      facebookError(
        { status, headers: new Headers() },
        {
          error: {
            message: 'm',
            type: 'OAuthException',
            code,
            ...(subcode && { error_subcode: subcode }),
            fbtrace_id: 't',
          },
        },
        context,
        'the post',
        new Date(NOW),
      ).kind;
    for (const code of [190, 102]) expect(kindOf(code)).toBe('reauth_required');
    expect(kindOf(100, 1404078)).toBe('reauth_required');
    expect(kindOf(190, 460)).toBe('reauth_required');
    expect(kindOf(506)).toBe('duplicate');
    expect(kindOf(100, 1366051)).toBe('duplicate');
    expect(kindOf(368)).toBe('content_rejected');
    expect(kindOf(100, 1346003)).toBe('content_rejected');
    expect(kindOf(100, 1404102)).toBe('content_rejected');
    for (const code of [4, 17, 32, 613, 80001, 80007, 80014]) expect(kindOf(code)).toBe('rate_limited');
    expect(kindOf(80015)).toBe('content_rejected');
    for (const code of [10, 200, 210, 299]) expect(kindOf(code, undefined, 403)).toBe('reauth_required');
    expect(kindOf(2, undefined, 500)).toBe('transient');
    expect(kindOf(1)).toBe('transient');
    expect(kindOf(324)).toBe('media_invalid');
    expect(kindOf(100, undefined, 400, 'media')).toBe('media_invalid');
    expect(kindOf(100, undefined, 400, 'read')).toBe('transient');
    expect(kindOf(100)).toBe('content_rejected');
  });

  it('reads the usage headers, and slows down at 90 % or more', async () => {
    expect(
      readUsage(
        new Headers({
          'x-app-usage': '{"call_count":12,"total_cputime":91,"total_time":3}',
          'x-business-use-case-usage':
            '{"1":[{"type":"pages","call_count":40,"total_cputime":2,"total_time":95,"estimated_time_to_regain_access":0}]}',
        }),
      ),
    ).toEqual({ app: 91, page: 95 });
    expect(readUsage(new Headers({ 'x-app-usage': 'not json' }))).toEqual({});

    const paced = publisher();
    fb.script.usage({ app: 95 });
    const first = session({ caption: 'one' });
    await paced.publish(first);
    // The create answered at 95 %: the permalink read waited before it went.
    expect(first.waits).toEqual([30_000]);

    fb.script.usage({ page: 92, regainMinutes: 2 });
    const second = session({ caption: 'two' });
    await paced.publish(second);
    expect(second.waits).toEqual([30_000, 120_000]);

    fb.script.usage({ app: 10, page: 10 });
    const third = session({ caption: 'three' });
    await paced.publish(third);
    const fourth = session({ caption: 'four' });
    await paced.publish(fourth);
    expect(fourth.waits).toEqual([]);
  });

  it('turns a usage pause longer than the retry window into rate_limited with the moment it ends', async () => {
    const paced = publisher();
    fb.script.usage({ page: 100, regainMinutes: 60 });
    const live = session({ caption: 'one' });
    live.wait = () => Promise.reject(new PlatformError('transient', 'past the retry window'));
    // The permalink read is the call that waits; its failure falls back to the post id URL.
    await paced.publish(live);
    const next = session({ caption: 'two' });
    next.wait = live.wait;
    const error = await refusal(paced.publish(next));
    expect(error.kind).toBe('rate_limited');
    expect(error.details.retryAt).toEqual(new Date(NOW + 60 * 60_000));
    expect(error.message).toContain('100 %');
    expect(error.message).toMatch(/^Facebook reports this app's or Page's API usage/);
  });
});
