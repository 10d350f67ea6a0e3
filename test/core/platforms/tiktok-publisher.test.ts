import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeTikTok, type FakeTikTok } from '../../../fakes/tiktok.ts';
import { PlatformError } from '../../../src/core/platforms/platform-client.ts';
import { tiktokPublisher } from '../../../src/core/platforms/tiktok/publisher.ts';
import { chunkPlan } from '../../../src/core/platforms/tiktok/upload.ts';
import { isoMedia, jpeg, png, webp } from '../../fixtures/media/files.ts';
import { testSession, type TestSession, type TestSessionOptions } from '../../helpers/live-session.ts';
import { startMediaServer, type MediaServer } from '../../helpers/media-server.ts';

const NOW = Date.UTC(2026, 5, 15, 9);
const MB = 1024 * 1024;

let tt: FakeTikTok;
let media: MediaServer;
let openId: string;
let token: string;
beforeEach(async () => {
  tt = await startFakeTikTok({ now: () => NOW });
  openId = tt.users[0]!.open_id;
  token = tt.issueTokens(openId).accessToken;
  media = await startMediaServer({
    '/one.jpg': { bytes: jpeg(20, 12), mimeType: 'image/jpeg' },
    '/two.webp': { bytes: webp(), mimeType: 'image/webp' },
    '/renamed.jpg': { bytes: png(3, 2), mimeType: 'image/jpeg' },
  });
});
afterEach(async () => {
  await tt.close();
  await media.close();
});

const publisher = (chunkBytes?: number) =>
  tiktokPublisher({ apiBaseUrl: tt.url }, { now: () => new Date(NOW), ...(chunkBytes && { chunkBytes }) });

function session(options: Partial<TestSessionOptions> = {}): TestSession {
  return testSession({
    platform: 'tiktok',
    accessToken: token,
    account: { platformUserId: openId, username: 'stale.name' },
    caption: 'Hello TikTok',
    hashtags: ['launch'],
    ...options,
  });
}

/** An MP4 of `size` bytes (an ftyp box, then padding). */
function video(size: number) {
  const head = isoMedia('isom', ['isom', 'mp41']);
  const bytes = Buffer.concat([head, Buffer.alloc(size - head.length, 7)]);
  return { bytes, mimeType: 'video/mp4', kind: 'video' as const };
}

const photo = (path: string, mimeType = 'image/jpeg') => ({
  url: `${media.url}${path}`,
  mimeType,
  kind: 'image' as const,
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

const checkpointOf = (live: TestSession) => live.saved.tiktok as Record<string, any>;

describe('TikTok chunk plan', () => {
  it('follows TikTok rules: whole under 5 MB, chunks rounded down with the trailing bytes in the last, at least two over 64 MB', () => {
    expect(chunkPlan(3 * MB)).toEqual({ videoSize: 3 * MB, chunkSize: 3 * MB, totalChunks: 1 });
    expect(chunkPlan(12 * MB, 5 * MB)).toEqual({ videoSize: 12 * MB, chunkSize: 5 * MB, totalChunks: 2 });
    expect(chunkPlan(12 * MB, 1)).toEqual({ videoSize: 12 * MB, chunkSize: 5 * MB, totalChunks: 2 });
    expect(chunkPlan(8 * MB)).toEqual({ videoSize: 8 * MB, chunkSize: 8 * MB, totalChunks: 1 });
    expect(chunkPlan(100 * MB, 64 * MB)).toEqual({ videoSize: 100 * MB, chunkSize: 50 * MB, totalChunks: 2 });
    expect(chunkPlan(20_000 * MB, 5 * MB).totalChunks).toBeLessThanOrEqual(1000);
  });
});

describe('TikTok publisher: video', () => {
  it('queries the creator, inits once with FILE_UPLOAD, PUTs one chunk under 5 MB, polls, and answers the URL', async () => {
    const file = video(6000);
    const live = session({ media: [file] });
    const post = await publisher().publish(live);

    const [published] = [...tt.publishes.values()];
    expect(published!.video).toEqual(file.bytes);
    expect(post).toEqual({
      platformPostId: published!.publicId,
      url: `https://www.tiktok.com/@fake.creator/video/${published!.publicId}`,
    });
    expect(tt.log.last('video.init')!.body).toEqual({
      post_info: {
        title: 'Hello TikTok\n\n#launch',
        privacy_level: 'PUBLIC_TO_EVERYONE',
        disable_comment: false,
        disable_duet: false,
        disable_stitch: false,
      },
      source_info: { source: 'FILE_UPLOAD', video_size: 6000, chunk_size: 6000, total_chunk_count: 1 },
    });
    const upload = tt.log.last('video.upload')!;
    expect(upload.headers['content-range']).toBe('bytes 0-5999/6000');
    expect(upload.headers['content-type']).toBe('video/mp4');
    expect(upload.headers.authorization).toBeUndefined();
    expect(tt.log.creates()).toHaveLength(1);
    expect(live.calls.map((call) => `${call.label}${call.create ? '!' : ''}`)).toEqual([
      'creator_info.query',
      'video.init!',
      'video.upload',
      'status.fetch',
      'status.fetch',
    ]);
    expect(checkpointOf(live)).toMatchObject({
      publishId: published!.publishId,
      mode: 'video',
      username: 'fake.creator',
      upload: { videoSize: 6000, chunksDone: 1, totalChunks: 1 },
    });
  });

  it('sends a 12 MB video as a 5 MB chunk then a 7 MB last chunk, in order, checkpointing each', async () => {
    const file = video(12 * MB);
    const live = session({ media: [file] });
    await publisher(5 * MB).publish(live);

    const ranges = tt.log.calls('video.upload').map((entry) => entry.headers['content-range']);
    expect(ranges).toEqual([`bytes 0-${5 * MB - 1}/${12 * MB}`, `bytes ${5 * MB}-${12 * MB - 1}/${12 * MB}`]);
    // Buffer.equals: a deep toEqual over 12 MB takes minutes.
    expect([...tt.publishes.values()][0]!.video!.equals(file.bytes)).toBe(true);
    expect(checkpointOf(live).upload).toMatchObject({ chunkSize: 5 * MB, totalChunks: 2, chunksDone: 2 });
  });

  it('resumes from the checkpoint after a failed chunk: the same publish, only the chunks not done', async () => {
    const file = video(12 * MB);
    const first = session({ media: [file] });
    tt.script.unavailable('video.upload', 1);
    tt.script.publishProcessing({ steps: 0 });
    // The first chunk fails on TikTok's side (no retry in the test session): the post is under way.
    const lost = await refusal(publisher(5 * MB).publish(first));
    expect(lost.kind).toBe('unknown_outcome');
    expect(lost.message).toContain(checkpointOf(first).publishId);

    const resumed = session({ media: [file], checkpoint: { ...first.saved } });
    const post = await publisher(5 * MB).reconcile!(resumed);
    expect(post?.url).toMatch(/^https:\/\/www\.tiktok\.com\/@fake\.creator\/video\/\d{19}$/);
    expect(tt.log.calls('video.init')).toHaveLength(1);
    expect(tt.log.creates()).toHaveLength(1);
    // Buffer.equals: a deep toEqual over 12 MB takes minutes.
    expect([...tt.publishes.values()][0]!.video!.equals(file.bytes)).toBe(true);
  });

  it('on a resume trusts TikTok uploaded_bytes over a checkpoint that missed a chunk', async () => {
    const file = video(12 * MB);
    const first = session({ media: [file] });
    await publisher(5 * MB).publish(first);
    // Rewind the checkpoint as if the process died before saving the first chunk done: TikTok holds it.
    const publish = [...tt.publishes.values()][0]!;
    publish.upload!.chunks.pop();
    publish.uploadedBytes = 5 * MB;
    publish.mediaReadyAt = undefined;
    publish.processing.completedAt = undefined;
    publish.processing.polls = 0;
    const checkpoint = { tiktok: { ...checkpointOf(first), upload: { ...checkpointOf(first).upload, chunksDone: 0 } } };
    tt.log.clear();

    const post = await publisher(5 * MB).reconcile!(session({ media: [file], checkpoint }));
    expect(post?.platformPostId).toBe(publish.publicId);
    expect(tt.log.calls('video.upload').map((entry) => entry.headers['content-range'])).toEqual([
      `bytes ${5 * MB}-${12 * MB - 1}/${12 * MB}`,
    ]);
    expect(tt.log.calls('video.init')).toHaveLength(0);
  });

  it('reconcile without a saved publish id answers null without a call', async () => {
    const live = session({ media: [video(6000)] });
    expect(await publisher().reconcile!(live)).toBeNull();
    expect(tt.log.entries).toHaveLength(0);
  });

  it('a lost init answer leaves no publish id to reconcile from', async () => {
    tt.script.dropAfterStore(1, 'video.init');
    const live = session({ media: [video(6000)] });
    const lost = await refusal(publisher().publish(live));
    expect(lost.kind).toBe('transient');
    expect(tt.log.creates()).toHaveLength(1);
    expect(live.saved.tiktok).toBeUndefined();
    expect(await publisher().reconcile!(live)).toBeNull();
  });

  it('a status look-up failing after the init is an unknown outcome, reconciled later from the checkpoint', async () => {
    tt.script.unavailable('status.fetch', 1);
    const live = session({ media: [video(6000)] });
    const lost = await refusal(publisher().publish(live));
    expect(lost.kind).toBe('unknown_outcome');
    const post = await publisher().reconcile!(session({ media: [video(6000)], checkpoint: { ...live.saved } }));
    expect(post?.url).toContain('/video/');
    expect(tt.log.creates()).toHaveLength(1);
  });

  it('a file that is not a video fails TikTok format check: media_invalid naming the fail_reason', async () => {
    const notVideo = { bytes: Buffer.alloc(3000, 1), mimeType: 'video/mp4', kind: 'video' as const };
    const failed = await refusal(publisher().publish(session({ media: [notVideo] })));
    expect(failed.kind).toBe('media_invalid');
    expect(failed.message).toContain('file_format_check_failed');
  });
});

describe('TikTok publisher: photos', () => {
  it('inits once with PULL_FROM_URL; the fake downloads every photo; the URL is a /photo/ URL', async () => {
    const live = session({
      caption:
        'A very first line that is rather long and goes on past the ninety characters TikTok allows in a title\nSecond line',
      mediaRefs: [photo('/one.jpg'), photo('/two.webp', 'image/webp')],
    });
    const post = await publisher().publish(live);

    const [published] = [...tt.publishes.values()];
    expect(published!.photos!.map((entry) => entry.bytes)).toEqual([jpeg(20, 12), webp()]);
    expect(media.requests).toEqual(['/one.jpg', '/two.webp']);
    const body = tt.log.last('content.init')!.body as any;
    expect(body).toMatchObject({
      media_type: 'PHOTO',
      post_mode: 'DIRECT_POST',
      source_info: {
        source: 'PULL_FROM_URL',
        photo_cover_index: 0,
        photo_images: [`${media.url}/one.jpg`, `${media.url}/two.webp`],
      },
      post_info: { privacy_level: 'PUBLIC_TO_EVERYONE', description: live.post.text, auto_add_music: true },
    });
    expect(body.post_info.title.length).toBeLessThanOrEqual(90);
    expect(live.post.caption.startsWith(body.post_info.title)).toBe(true);
    expect(post.url).toBe(`https://www.tiktok.com/@fake.creator/photo/${published!.publicId}`);
    expect(tt.log.creates()).toHaveLength(1);
  });

  it('a photo TikTok cannot download fails the publish with photo_pull_failed (media_invalid)', async () => {
    const failed = await refusal(publisher().publish(session({ mediaRefs: [photo('/one.jpg'), photo('/gone.jpg')] })));
    expect(failed.kind).toBe('media_invalid');
    expect(failed.message).toContain('photo_pull_failed');
  });

  it('a photo whose bytes are not JPEG or WebP fails with file_format_check_failed', async () => {
    const failed = await refusal(publisher().publish(session({ mediaRefs: [photo('/renamed.jpg')] })));
    expect(failed.kind).toBe('media_invalid');
    expect(failed.message).toContain('file_format_check_failed');
  });

  it('refuses before any call: no media, a video with other media, PNG or GIF photos, over 35 photos', async () => {
    const cases: Array<[Partial<TestSessionOptions>, string, string]> = [
      [{}, 'content_rejected', 'no text-only posts'],
      [
        { media: [video(6000), { bytes: jpeg(2, 2), mimeType: 'image/jpeg', kind: 'image' }] },
        'content_rejected',
        'one video',
      ],
      [{ mediaRefs: [photo('/a.png', 'image/png')] }, 'media_invalid', 'JPEG or WebP'],
      [
        { mediaRefs: [{ url: `${media.url}/a.gif`, mimeType: 'image/gif', kind: 'gif' }] },
        'media_invalid',
        'JPEG or WebP',
      ],
      [{ mediaRefs: Array.from({ length: 36 }, () => photo('/one.jpg')) }, 'content_rejected', 'at most 35'],
      [{ media: [video(6000)], caption: 'x'.repeat(2300) }, 'content_rejected', '2200 characters'],
    ];
    for (const [options, kind, words] of cases) {
      const failed = await refusal(publisher().publish(session(options)));
      expect(failed.kind).toBe(kind);
      expect(failed.message).toContain(words);
    }
    expect(tt.log.entries).toHaveLength(0);
  });

  it('refuses photos up front when PUBLIC_BASE_URL is local and TikTok is not', async () => {
    const remote = tiktokPublisher({ apiBaseUrl: 'https://open.tiktokapis.example' });
    const failed = await refusal(
      remote.publish(
        session({
          publicBaseUrl: 'http://127.0.0.1:3000',
          // The service's own file: TikTok would have to fetch it from a loopback address.
          mediaRefs: [
            { url: `http://127.0.0.1:3000/media/${'a'.repeat(32)}.jpg`, mimeType: 'image/jpeg', kind: 'image' },
          ],
        }),
      ),
    );
    expect(failed.kind).toBe('content_rejected');
    expect(failed.message).toContain('PUBLIC_BASE_URL');
    expect(media.requests).toHaveLength(0);
  });
});

describe('TikTok publisher: privacy level and outcomes', () => {
  it('uses the privacy level asked for when TikTok offers it', async () => {
    const live = session({ media: [video(6000)] });
    live.post.privacyLevel = 'MUTUAL_FOLLOW_FRIENDS';
    await publisher().publish(live);
    expect((tt.log.last('video.init')!.body as any).post_info.privacy_level).toBe('MUTUAL_FOLLOW_FRIENDS');
  });

  it('refuses a level TikTok does not offer with privacy_level_option_mismatch, before any init', async () => {
    tt.script.audited(false);
    const live = session({ media: [video(6000)] });
    live.post.privacyLevel = 'PUBLIC_TO_EVERYONE';
    const failed = await refusal(publisher().publish(live));
    expect(failed.kind).toBe('content_rejected');
    expect(failed.message).toContain('privacy_level_option_mismatch');
    expect(failed.message).toContain('SELF_ONLY');
    expect(tt.log.calls('video.init')).toHaveLength(0);
  });

  it('an unaudited app posts as SELF_ONLY by default, and the notice says so', async () => {
    tt.script.audited(false);
    const post = await publisher().publish(session({ media: [video(6000)] }));
    expect((tt.log.last('video.init')!.body as any).post_info.privacy_level).toBe('SELF_ONLY');
    expect(post.notice).toContain('SELF_ONLY');
    expect(post.notice).toContain('audit');
    expect(post.url).not.toBeNull();
  });

  it('a post sent to the inbox is published without a URL, with a notice', async () => {
    tt.script.inbox();
    const post = await publisher().publish(session({ mediaRefs: [photo('/one.jpg')] }));
    const [published] = [...tt.publishes.values()];
    expect(post).toEqual({ platformPostId: published!.publishId, url: null, notice: expect.stringContaining('inbox') });
  });

  it('a public id that arrives after PUBLISH_COMPLETE: url null now, lateUrl finds it later with every digit', async () => {
    tt.script.publishProcessing({ publicIdAfter: null });
    const live = session({ media: [video(6000)] });
    const post = await publisher().publish(live);
    const [published] = [...tt.publishes.values()];
    expect(post).toEqual({ platformPostId: published!.publishId, url: null });

    const request = {
      account: { id: 'acct_test', platformUserId: openId, username: 'fake.creator' },
      platformPostId: post.platformPostId,
      accessToken: async () => token,
      requestTimeoutMs: 5_000,
    };
    expect(await publisher().lateUrl!(request)).toBeNull();
    const id = tt.script.makePublic(published!.publishId);
    expect(await publisher().lateUrl!(request)).toBe(`https://www.tiktok.com/@fake.creator/video/${id}`);
  });

  it('lateUrl tells a photo post by its publish id and answers its /photo/ URL', async () => {
    tt.script.publishProcessing({ publicIdAfter: null });
    const post = await publisher().publish(session({ mediaRefs: [photo('/one.jpg')] }));
    expect(post.platformPostId).toMatch(/^p_pub_url~/);
    const id = tt.script.makePublic(post.platformPostId);
    const url = await publisher().lateUrl!({
      account: { id: 'acct_test', platformUserId: openId, username: 'fake.creator' },
      platformPostId: post.platformPostId,
      accessToken: async () => token,
      requestTimeoutMs: 5_000,
    });
    expect(url).toBe(`https://www.tiktok.com/@fake.creator/photo/${id}`);
  });

  it('a FAILED publish for a policy reason is content_rejected naming it', async () => {
    tt.script.publishProcessing({ outcome: 'FAILED', failReason: 'spam_risk_text' });
    const failed = await refusal(publisher().publish(session({ media: [video(6000)] })));
    expect(failed.kind).toBe('content_rejected');
    expect(failed.message).toContain('spam_risk_text');
  });

  it('polls through processing with growing waits until the outcome', async () => {
    tt.script.publishProcessing({ steps: 3 });
    const live = session({ media: [video(6000)] });
    await publisher().publish(live);
    expect(live.waits).toEqual([2000, 3000, 4500]);
  });
});

describe('TikTok publisher: errors sorted into kinds', () => {
  const cases: Array<[string, () => void, string, string]> = [
    [
      'access_token_invalid',
      () => tt.script.failWith('creator_info.query', 'access_token_invalid'),
      'reauth_required',
      'access_token_invalid',
    ],
    [
      'scope_not_authorized',
      () => tt.script.failWith('video.init', 'scope_not_authorized'),
      'reauth_required',
      'scope_not_authorized',
    ],
    ['rate_limit_exceeded', () => tt.script.rateLimit('video.init', 1), 'rate_limited', 'rate_limit_exceeded'],
    [
      'spam_risk_too_many_posts',
      () => tt.script.failWith('video.init', 'spam_risk_too_many_posts'),
      'content_rejected',
      'spam_risk_too_many_posts',
    ],
    [
      'spam_risk_user_banned_from_posting',
      () => tt.script.failWith('creator_info.query', 'spam_risk_user_banned_from_posting'),
      'content_rejected',
      'spam_risk_user_banned_from_posting',
    ],
    [
      'unaudited_client_can_only_post_to_private_accounts',
      () => tt.script.failWith('video.init', 'unaudited_client_can_only_post_to_private_accounts'),
      'content_rejected',
      'unaudited_client_can_only_post_to_private_accounts',
    ],
    [
      'privacy_level_option_mismatch',
      () => tt.script.failWith('video.init', 'privacy_level_option_mismatch'),
      'content_rejected',
      'privacy_level_option_mismatch',
    ],
    [
      'duration_check_failed',
      () => tt.script.failWith('video.init', 'duration_check_failed', 1),
      'media_invalid',
      'duration_check_failed',
    ],
    ['a 5xx', () => tt.script.unavailable('creator_info.query', 1), 'transient', 'internal_error'],
  ];
  for (const [name, script, kind, words] of cases) {
    it(`${name} is ${kind}`, async () => {
      script();
      const failed = await refusal(publisher().publish(session({ media: [video(6000)] })));
      expect(failed.kind).toBe(kind);
      expect(failed.message).toContain(words);
      expect(failed.message).toContain('log_id');
      // TikTok names no reset: no guessed retryAt, so the framework's shared backoff (5 s, doubling) applies.
      if (kind === 'rate_limited') expect(failed.details.retryAt).toBeUndefined();
    });
  }

  it('a revoked token is reauth_required, and the message carries no token', async () => {
    tt.script.revoke(openId);
    const failed = await refusal(publisher().publish(session({ media: [video(6000)] })));
    expect(failed.kind).toBe('reauth_required');
    expect(failed.details.status).toBe(401);
  });
});
