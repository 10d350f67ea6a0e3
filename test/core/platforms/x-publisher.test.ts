import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeX, type FakeX } from '../../../fakes/x.ts';
import { PlatformError, type MediaFile } from '../../../src/core/platforms/platform-client.ts';
import { xAnswerError } from '../../../src/core/platforms/x/errors.ts';
import { isSameText, xPublisher } from '../../../src/core/platforms/x/publisher.ts';
import { gif, isoMedia, jpeg, png } from '../../fixtures/media/files.ts';
import { testSession, type TestSession, type TestSessionOptions } from '../../helpers/live-session.ts';

const SEGMENT_BYTES = 1024;
const START = Date.UTC(2026, 0, 5, 12);

let x: FakeX;
let accessToken: string;
/** Every PlatformError a test saw, to check none of them quotes the token. */
let seenErrors: PlatformError[];

beforeEach(async () => {
  x = await startFakeX({ now: () => START });
  accessToken = x.issueTokens(x.users[0]!.id).accessToken;
  seenErrors = [];
});
afterEach(async () => {
  for (const error of seenErrors) expect(error.message).not.toContain(accessToken);
  await x.close();
});

const publisher = () =>
  xPublisher({ apiBaseUrl: x.url }, { segmentBytes: SEGMENT_BYTES, now: () => new Date(x.clock.now()) });

const image = (bytes = png(3, 2)): Omit<MediaFile, 'url'> => ({ bytes, mimeType: 'image/png', kind: 'image' });
const video = (): Omit<MediaFile, 'url'> => ({
  bytes: isoMedia('isom', ['isom', 'iso2', 'avc1', 'mp41']),
  mimeType: 'video/mp4',
  kind: 'video',
});
const animated = (): Omit<MediaFile, 'url'> => ({ bytes: gif(), mimeType: 'image/gif', kind: 'gif' });

function session(options: Partial<TestSessionOptions> = {}): TestSession {
  const user = x.users[0]!;
  return testSession({
    platform: 'twitter',
    accessToken,
    account: { platformUserId: user.id, username: user.username },
    caption: 'Launch day',
    now: () => new Date(x.clock.now()),
    ...options,
  });
}

async function failure(promise: Promise<unknown>): Promise<PlatformError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PlatformError);
  seenErrors.push(error as PlatformError);
  return error as PlatformError;
}

/** The segment indexes appended, in order, as the fake logged them. */
const appendedSegments = () =>
  x.log
    .calls('media.append')
    .map((entry) => Number((entry.body as { fields: Record<string, string> }).fields.segment_index));

const storedBytes = (id: string) => Buffer.concat(x.media.get(id)!.segments);

describe('X publisher: posts', () => {
  it('posts text and answers the id and the x.com URL', async () => {
    const live = session({ hashtags: ['ship'] });
    const post = await publisher().publish(live);
    const stored = x.posts[0]!;
    expect(post).toEqual({ platformPostId: stored.id, url: `https://x.com/fake_author/status/${stored.id}` });
    expect(stored.sentText).toBe('Launch day\n\n#ship');
    expect(x.log.last('tweets.create')!.body).toEqual({ text: 'Launch day\n\n#ship' });
    expect(x.log.last('tweets.create')!.headers.authorization).toBe(`Bearer ${accessToken}`);
    expect(x.log.creates()).toHaveLength(1);
    expect(live.calls).toEqual([{ label: 'tweets.create', create: true }]);
  });

  it('uploads one image in segments and attaches it', async () => {
    // A flat PNG compresses to ~100 bytes; trailing data (ignored by decoders) makes it span segments.
    const bytes = Buffer.concat([png(3, 2), randomBytes(3000)]);
    expect(bytes.length).toBeGreaterThan(SEGMENT_BYTES);
    const live = session({ media: [image(bytes)] });
    await publisher().publish(live);
    const [initialize] = x.log.calls('media.initialize');
    expect(initialize!.body).toEqual({
      media_type: 'image/png',
      total_bytes: bytes.length,
      media_category: 'tweet_image',
    });
    expect(appendedSegments()).toEqual([...Array(Math.ceil(bytes.length / SEGMENT_BYTES)).keys()]);
    expect(x.log.calls('media.status')).toHaveLength(0);
    const mediaIds = x.posts[0]!.mediaIds;
    expect(mediaIds).toHaveLength(1);
    expect(storedBytes(mediaIds[0]!).equals(bytes)).toBe(true);
    expect(x.log.last('tweets.create')!.body).toEqual({ text: 'Launch day', media: { media_ids: mediaIds } });
    expect(live.saved).toMatchObject({ media: [{ id: mediaIds[0] }], upload: null });
    expect(x.log.creates()).toHaveLength(1);
  });

  it('attaches four images in their order', async () => {
    const files = [image(png(3, 2)), { bytes: jpeg(20, 12), mimeType: 'image/jpeg', kind: 'image' as const }];
    files.push(image(png(5, 5)), image(png(7, 3)));
    await publisher().publish(session({ media: files, contentType: 'carousel' }));
    const initialized = x.log.calls('media.initialize').map((entry) => (entry.responseBody as any).data.id);
    expect(x.posts[0]!.mediaIds).toEqual(initialized);
    expect(initialized).toHaveLength(4);
    initialized.forEach((id: string, index: number) => expect(storedBytes(id).equals(files[index]!.bytes)).toBe(true));
    expect(x.log.creates()).toHaveLength(1);
  });

  it('waits check_after_secs between status polls while a video is processed', async () => {
    x.script.mediaProcessing({ states: ['pending', 'in_progress', 'in_progress', 'succeeded'], checkAfterSecs: 3 });
    const live = session({ media: [video()], contentType: 'reel' });
    const post = await publisher().publish(live);
    expect(x.log.last('media.initialize')!.body).toMatchObject({
      media_type: 'video/mp4',
      media_category: 'tweet_video',
    });
    expect(live.waits).toEqual([3000, 3000, 3000]);
    expect(x.log.calls('media.status').map((entry) => entry.query)).toEqual(
      Array(3).fill({ command: 'STATUS', media_id: x.posts[0]!.mediaIds[0] }),
    );
    expect(post.platformPostId).toBe(x.posts[0]!.id);
    expect(x.log.creates()).toHaveLength(1);
  });

  it('uploads a GIF as tweet_gif', async () => {
    await publisher().publish(session({ media: [animated()] }));
    expect(x.log.last('media.initialize')!.body).toMatchObject({
      media_type: 'image/gif',
      media_category: 'tweet_gif',
    });
    expect(x.posts[0]!.mediaIds).toHaveLength(1);
    expect(x.log.creates()).toHaveLength(1);
  });

  it('refuses more than 4 images, or a video with anything else, before uploading', async () => {
    const five = await failure(publisher().publish(session({ media: Array.from({ length: 5 }, () => image()) })));
    expect(five.kind).toBe('media_invalid');
    expect(five.message).toContain('5 images');
    const mixed = await failure(publisher().publish(session({ media: [video(), image()] })));
    expect(mixed.kind).toBe('media_invalid');
    expect(mixed.message).toContain('1 image, 1 video');
    const twoGifs = await failure(publisher().publish(session({ media: [animated(), animated()] })));
    expect(twoGifs.kind).toBe('media_invalid');
    expect(x.log.entries).toHaveLength(0);
  });

  it('answers media_invalid naming X’s error when processing fails, and posts nothing', async () => {
    x.script.mediaProcessing({ states: ['pending', 'failed'], checkAfterSecs: 2 });
    const error = await failure(publisher().publish(session({ media: [video()] })));
    expect(error.kind).toBe('media_invalid');
    expect(error.message).toContain('InvalidMedia: Unsupported video format');
    expect(x.log.creates()).toHaveLength(0);
  });

  it('answers media_invalid when X refuses a file at initialize', async () => {
    const error = await failure(
      publisher().publish(session({ media: [{ bytes: png(3, 2), mimeType: 'image/svg+xml', kind: 'image' }] })),
    );
    expect(error).toMatchObject({ kind: 'media_invalid', details: { status: 400 } });
    expect(error.message).toContain('X answered 400 "Invalid Request" (media_type image/svg+xml is not valid');
    expect(error.message).toContain('media 1 of 1 (image/svg+xml)');
    expect(x.log.calls('media.initialize')).toHaveLength(1);
  });
});

describe('X publisher: refusals', () => {
  it('answers duplicate on X’s 403 duplicate content', async () => {
    await publisher().publish(session());
    const error = await failure(publisher().publish(session()));
    expect(error).toMatchObject({ kind: 'duplicate', details: { status: 403 } });
    expect(error.message).toContain(
      'X answered 403 "Forbidden" (You are not allowed to create a Tweet with duplicate content)',
    );
    expect(x.log.creates()).toHaveLength(1);
  });

  it('answers content_rejected for a text X finds too long', async () => {
    const error = await failure(publisher().publish(session({ caption: 'a'.repeat(281) })));
    expect(error).toMatchObject({ kind: 'content_rejected', details: { status: 403 } });
    expect(error.message).toContain('Your Tweet text is too long');
  });

  it('answers reauth_required when the token lacks a scope X requires', async () => {
    accessToken = x.issueTokens(x.users[0]!.id, ['tweet.read', 'users.read']).accessToken;
    const error = await failure(publisher().publish(session()));
    expect(error).toMatchObject({ kind: 'reauth_required', details: { status: 403 } });
    expect(error.message).toContain('Missing required scopes: tweet.write');
  });

  it('answers rate_limited with retryAt from x-rate-limit-reset', async () => {
    const resetAtSecs = Math.floor(START / 1000) + 600;
    x.script.rateLimit('tweets.create', 1, { resetAtSecs });
    const error = await failure(publisher().publish(session()));
    expect(error.kind).toBe('rate_limited');
    expect(error.details).toEqual({ status: 429, retryAt: new Date(resetAtSecs * 1000) });
    expect(error.message).toContain('X answered 429 "Too Many Requests"');
    expect(x.log.creates()).toHaveLength(0);
  });

  it('answers transient with the status on a 503, from the post or a media call', async () => {
    x.script.unavailable('tweets.create', 1);
    const create = await failure(publisher().publish(session()));
    expect(create).toMatchObject({ kind: 'transient', details: { status: 503 } });
    x.script.unavailable('media.append', 1);
    const append = await failure(publisher().publish(session({ media: [image()] })));
    expect(append).toMatchObject({ kind: 'transient', details: { status: 503 } });
    expect(append.message).toContain('X answered 503 "Service Unavailable" to media 1 of 1 (image/png)');
  });

  it('answers reauth_required on a 401, without quoting the token', async () => {
    x.script.revoke(x.users[0]!.id);
    const error = await failure(publisher().publish(session()));
    expect(error).toMatchObject({ kind: 'reauth_required', details: { status: 401 } });
    expect(error.message).toContain('X answered 401 "Unauthorized"');
  });

  it('answers transient when X cannot be reached', async () => {
    const closed = xPublisher({ apiBaseUrl: 'http://127.0.0.1:9' });
    const error = await failure(closed.publish(session()));
    expect(error.kind).toBe('transient');
    expect(error.details.status).toBeUndefined();
  });
});

describe('X publisher: resuming from a checkpoint', () => {
  /** A session whose process "dies" when `label` is called for the `nth` time: the call never goes out. */
  function dyingAt(label: string, nth: number, options: Partial<TestSessionOptions>): TestSession {
    const live = session(options);
    const send = live.call.bind(live);
    let seen = 0;
    live.call = (callLabel, request, callOptions) => {
      if (callLabel === label && ++seen === nth) return Promise.reject(new Error('SIGKILL'));
      return send(callLabel, request, callOptions);
    };
    return live;
  }

  it('continues the same video upload at the next segment after a crash mid-way', async () => {
    const file = video();
    const segments = Math.ceil(file.bytes.length / SEGMENT_BYTES);
    expect(segments).toBeGreaterThan(3);
    const first = dyingAt('media.append', 3, { media: [file], contentType: 'reel' });
    await expect(publisher().publish(first)).rejects.toThrow('SIGKILL');
    expect(first.saved.upload).toMatchObject({ nextSegment: 2, finalized: false });

    const resumed = session({ media: [file], contentType: 'reel', checkpoint: first.saved });
    await publisher().publish(resumed);
    expect(x.log.calls('media.initialize')).toHaveLength(1);
    expect(appendedSegments()).toEqual([...Array(segments).keys()]);
    expect(resumed.calls.map((call) => call.label).slice(0, 2)).toEqual(['media.append', 'media.append']);
    const [id] = x.posts[0]!.mediaIds;
    expect(id).toBe((first.saved.upload as { id: string }).id);
    expect(storedBytes(id!).equals(file.bytes)).toBe(true);
    expect(x.log.creates()).toHaveLength(1);
  });

  it('after a crash during processing, only polls the status again', async () => {
    const first = dyingAt('media.status', 1, { media: [video()] });
    await expect(publisher().publish(first)).rejects.toThrow('SIGKILL');
    const before = x.log.entries.length;
    const resumed = session({ media: [video()], checkpoint: first.saved });
    await publisher().publish(resumed);
    expect(x.log.entries.slice(before).map((entry) => entry.route)).toEqual([
      'media.status',
      'media.status',
      'tweets.create',
    ]);
    expect(x.log.creates()).toHaveLength(1);
  });

  it('skips the images already uploaded and uploads the rest', async () => {
    const files = [image(png(3, 2)), image(png(4, 4)), image(png(6, 2))];
    const first = dyingAt('media.initialize', 3, { media: files, contentType: 'carousel' });
    await expect(publisher().publish(first)).rejects.toThrow('SIGKILL');
    expect(first.saved.media).toHaveLength(2);
    await publisher().publish(session({ media: files, contentType: 'carousel', checkpoint: first.saved }));
    expect(x.log.calls('media.initialize').filter((entry) => entry.status === 200)).toHaveLength(3);
    const ids = (first.saved.media as { id: string }[]).map((media) => media.id);
    expect(x.posts[0]!.mediaIds.slice(0, 2)).toEqual(ids);
    expect(x.posts[0]!.mediaIds).toHaveLength(3);
  });

  it('starts the file again when X no longer knows the saved upload (404)', async () => {
    const file = video();
    const first = dyingAt('media.append', 2, { media: [file] });
    await expect(publisher().publish(first)).rejects.toThrow('SIGKILL');
    x.media.clear();
    await publisher().publish(session({ media: [file], checkpoint: first.saved }));
    expect(x.log.calls('media.append').find((entry) => entry.status === 404)).toBeDefined();
    expect(x.log.calls('media.initialize')).toHaveLength(2);
    expect(storedBytes(x.posts[0]!.mediaIds[0]!).equals(file.bytes)).toBe(true);
    expect(x.log.creates()).toHaveLength(1);
  });

  it('starts the file again once when X already holds a segment whose answer was lost', async () => {
    const file = video();
    const live = session({ media: [file] });
    const send = live.call.bind(live);
    let appends = 0;
    // The framework's retry after a lost answer: the segment reached X, so the same index goes twice.
    live.call = async (label, request, options) => {
      if (label === 'media.append' && ++appends === 2) await send(label, request, options);
      return send(label, request, options);
    };
    await publisher().publish(live);
    expect(x.log.calls('media.append').filter((entry) => entry.status === 400)).toHaveLength(1);
    expect(x.log.calls('media.initialize')).toHaveLength(2);
    expect(storedBytes(x.posts[0]!.mediaIds[0]!).equals(file.bytes)).toBe(true);
    expect(x.log.creates()).toHaveLength(1);
  });

  it('starts the file again, without trying the old id, once its expiry has passed', async () => {
    const file = video();
    const first = dyingAt('media.append', 2, { media: [file] });
    await expect(publisher().publish(first)).rejects.toThrow('SIGKILL');
    x.clock.advance(25 * 3600_000);
    accessToken = x.issueTokens(x.users[0]!.id).accessToken; // the old one lived 2 hours
    const before = x.log.entries.length;
    await publisher().publish(session({ media: [file], checkpoint: first.saved }));
    expect(x.log.entries[before]!.route).toBe('media.initialize');
    expect(x.log.calls('media.append').every((entry) => entry.status === 200)).toBe(true);
    expect(x.log.creates()).toHaveLength(1);
  });
});

describe('X publisher: reconcile', () => {
  it('finds a post whose answer was lost, with the t.co link X appends for media', async () => {
    const live = session({ media: [image()] });
    x.script.dropAfterStore();
    await failure(publisher().publish(live));
    expect(x.log.creates()).toHaveLength(1);
    const stored = x.posts[0]!;
    expect(stored.text).not.toBe(stored.sentText);
    expect(await publisher().reconcile!(live)).toEqual({
      platformPostId: stored.id,
      url: `https://x.com/fake_author/status/${stored.id}`,
    });
    expect(x.log.last('users.tweets')!.path).toBe(`/2/users/${x.users[0]!.id}/tweets`);
  });

  it('never takes an older post with the same text for this one: it looks only since the create call', async () => {
    await publisher().publish(session({ caption: 'Happy Monday' }));
    expect(x.posts).toHaveLength(1);
    // A week on, the same text is sent again and its answer is lost before X stored it.
    x.clock.advance(7 * 24 * 3600 * 1000);
    const again = session({ caption: 'Happy Monday', accessToken: x.issueTokens(x.users[0]!.id).accessToken });
    again.createSentAt = new Date(x.clock.now());
    expect(await publisher().reconcile!(again)).toBeNull();
    expect(x.log.last('users.tweets')!.query).toMatchObject({ start_time: expect.stringMatching(/Z$/) });
  });

  it('answers null when no recent post has the text', async () => {
    await publisher().publish(session({ caption: 'Something else' }));
    expect(await publisher().reconcile!(session())).toBeNull();
  });

  it('answers null for an account with no posts at all', async () => {
    expect(await publisher().reconcile!(session())).toBeNull();
  });

  it('compares texts as X stores them: t.co links, escaped entities, an appended media link', () => {
    expect(isSameText('Read https://example.com/a?b=1 now', 'Read https://t.co/abc now')).toBe(true);
    expect(isSameText('Tom & Jerry <3', 'Tom &amp; Jerry &lt;3')).toBe(true);
    expect(isSameText('Launch day', 'Launch day https://t.co/xyz')).toBe(true);
    expect(isSameText('Launch day', 'Launch day, again')).toBe(false);
    expect(isSameText('Launch', 'Launch day')).toBe(false);
  });
});

describe('X answers sorted into kinds', () => {
  const answer = (status: number, body: unknown) =>
    xAnswerError({ status, headers: new Headers() }, body, 'tweet', 'the post');

  it('tells an app past its usage cap from an account that must reconnect', () => {
    const capped = answer(403, {
      title: 'UsageCapExceeded',
      detail: 'Usage cap exceeded: Monthly product cap',
      type: 'https://api.twitter.com/2/problems/usage-capped',
    });
    expect(capped.kind).toBe('content_rejected');
    expect(capped.message).toMatch(/403 "UsageCapExceeded".*usage cap for the period is reached/);
    const suspended = answer(403, {
      title: 'Forbidden',
      detail: 'Your account is suspended and is not permitted to access this feature.',
    });
    expect(suspended.kind).toBe('reauth_required');
  });
});
