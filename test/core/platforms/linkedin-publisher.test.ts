import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLinkedIn, type FakeLinkedIn } from '../../../fakes/linkedin.ts';
import { PlatformError } from '../../../src/core/platforms/platform-client.ts';
import { linkedInCommentary } from '../../../src/core/platforms/linkedin/commentary.ts';
import { linkedInPublisher } from '../../../src/core/platforms/linkedin/publisher.ts';
import { isoMedia, jpeg, png } from '../../fixtures/media/files.ts';
import { testSession, type TestSession, type TestSessionOptions } from '../../helpers/live-session.ts';

const NOW = Date.UTC(2026, 5, 15, 9);
const VERSION = '202606';
const PART_SIZE = 1000;

let li: FakeLinkedIn;
let sub: string;
let token: string;
let member: string;
beforeEach(async () => {
  li = await startFakeLinkedIn({ now: () => NOW, videoPartSizeBytes: PART_SIZE });
  sub = li.members[0]!.sub;
  member = `urn:li:person:${sub}`;
  token = li.issueTokens(sub).accessToken;
});
afterEach(async () => {
  await li.close();
});

const publisher = (version = VERSION) => linkedInPublisher({ apiBaseUrl: li.url, version });

function session(options: Partial<TestSessionOptions> = {}): TestSession {
  return testSession({
    platform: 'linkedin',
    accessToken: token,
    account: { platformUserId: sub, username: 'Fake Member' },
    caption: 'Hello LinkedIn',
    ...options,
  });
}

const image = (width: number) => ({ bytes: png(width, 2), mimeType: 'image/png', kind: 'image' as const });
/** An MP4 of 4,000-odd bytes: five parts of PART_SIZE on the fake. */
const video = () => ({ bytes: isoMedia('isom', ['isom', 'mp41']), mimeType: 'video/mp4', kind: 'video' as const });

async function refusal(publishing: Promise<unknown>): Promise<PlatformError> {
  const error = await publishing.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

describe('LinkedIn commentary (little text)', () => {
  it('escapes every reserved character and keeps #tag words as hashtag templates', () => {
    expect(linkedInCommentary('a\\b <c> ~d_ |e| [f] *g* (h) {i} @j')).toBe(
      'a\\\\b \\<c\\> \\~d\\_ \\|e\\| \\[f\\] \\*g\\* \\(h\\) \\{i\\} \\@j',
    );
    expect(linkedInCommentary('Launch (beta)\n\n#launch #dev_ops #café')).toBe(
      'Launch \\(beta\\)\n\n{hashtag|\\#|launch} {hashtag|\\#|dev\\_ops} {hashtag|\\#|café}',
    );
  });

  it('leaves a # that does not start a word as an escaped plain #', () => {
    expect(linkedInCommentary('C# and issue#4 and # alone')).toBe('C\\# and issue\\#4 and \\# alone');
  });
});

describe('LinkedIn publisher: posts', () => {
  it('creates a text post once, with the protocol headers and escaped commentary, and answers its URN and URL', async () => {
    const live = session({ caption: 'Ship it (today) @team', hashtags: ['launch', 'ai'] });
    const post = await publisher().publish(live);

    expect(li.posts).toHaveLength(1);
    const stored = li.posts[0]!;
    expect(stored.commentary).toBe('Ship it \\(today\\) \\@team\n\n{hashtag|\\#|launch} {hashtag|\\#|ai}');
    expect(stored.author).toBe(member);
    expect(stored.body).toEqual({
      author: member,
      commentary: stored.commentary,
      visibility: 'PUBLIC',
      distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
      lifecycleState: 'PUBLISHED',
      isReshareDisabledByAuthor: false,
    });
    expect(post).toEqual({ platformPostId: stored.urn, url: `https://www.linkedin.com/feed/update/${stored.urn}` });
    expect(li.log.last('posts.create')!.headers).toMatchObject({
      authorization: `Bearer ${token}`,
      'linkedin-version': VERSION,
      'x-restli-protocol-version': '2.0.0',
    });
    expect(li.log.creates()).toHaveLength(1);
    expect(live.calls).toEqual([{ label: 'posts.create', create: true }]);
  });

  it('posts one image as content.media after uploading its bytes with the bearer token', async () => {
    const live = session({ media: [image(3)] });
    await publisher().publish(live);

    const [urn] = [...li.images.keys()];
    expect(li.images.get(urn!)!.bytes).toEqual(png(3, 2));
    expect(li.posts[0]!.body.content).toEqual({ media: { id: urn } });
    expect(li.log.last('images.initialize')!.body).toEqual({ initializeUploadRequest: { owner: member } });
    expect(li.log.last('images.upload')!.headers.authorization).toBe(`Bearer ${token}`);
    expect(live.saved.imageUrns).toEqual([urn]);
    expect(li.log.creates()).toHaveLength(1);
  });

  it('posts several images as content.multiImage, in order', async () => {
    const files = [image(3), { bytes: jpeg(20, 12), mimeType: 'image/jpeg', kind: 'image' as const }, image(5)];
    await publisher().publish(session({ contentType: 'slideshow', media: files }));

    const urns = [...li.images.keys()];
    expect(urns.map((urn) => li.images.get(urn)!.bytes)).toEqual(files.map((file) => file.bytes));
    expect(li.posts[0]!.body.content).toEqual({ multiImage: { images: urns.map((id) => ({ id })) } });
    expect(li.log.creates()).toHaveLength(1);
  });

  it('refuses more than 20 images, or a video with other media, before any call', async () => {
    const many = await refusal(publisher().publish(session({ media: Array.from({ length: 21 }, () => image(2)) })));
    expect(many.kind).toBe('content_rejected');
    expect(many.message).toContain('at most 20 images');
    const mixed = await refusal(publisher().publish(session({ media: [video(), image(2)] })));
    expect(mixed.kind).toBe('content_rejected');
    expect(li.log.entries).toHaveLength(0);
  });

  it('resumes an image post from its checkpoint, uploading only the images not yet saved', async () => {
    const first = session({ media: [image(3), image(4)] });
    first.call = failOn(first, 'images.initializeUpload', 2);
    await expect(publisher().publish(first)).rejects.toThrow('process killed');
    expect(first.saved.imageUrns).toEqual([expect.stringMatching(/^urn:li:image:/), null]);

    const resumed = session({ media: [image(3), image(4)], checkpoint: first.saved });
    await publisher().publish(resumed);
    expect(li.log.calls('images.initialize')).toHaveLength(2);
    const urns = [...li.images.keys()];
    expect(li.posts[0]!.body.content).toEqual({ multiImage: { images: urns.map((id) => ({ id })) } });
  });
});

describe('LinkedIn publisher: video', () => {
  it('uploads a video in parts, finalizes with the ETags, polls until AVAILABLE, then posts it', async () => {
    li.script.videoProcessing({ advance: 'poll', steps: 2 });
    const file = video();
    const live = session({ contentType: 'reel', media: [file] });
    await publisher().publish(live);

    const [stored] = [...li.videos.values()];
    expect(stored!.fileSizeBytes).toBe(file.bytes.length);
    expect(stored!.parts.length).toBeGreaterThan(1);
    expect(li.log.last('videos.initialize')!.body).toEqual({
      initializeUploadRequest: {
        owner: member,
        fileSizeBytes: file.bytes.length,
        uploadCaptions: false,
        uploadThumbnail: false,
      },
    });
    expect(li.log.calls('videos.upload').map((entry) => entry.status)).toEqual(stored!.parts.map(() => 200));
    expect(li.log.calls('videos.upload').every((entry) => entry.headers.authorization === undefined)).toBe(true);
    expect(li.log.last('videos.finalize')!.body).toEqual({
      finalizeUploadRequest: {
        video: stored!.urn,
        uploadToken: stored!.uploadToken,
        uploadedPartIds: stored!.parts.map((part) => part.etag),
      },
    });
    expect(li.log.calls('videos.get').map((entry) => entry.path)).toEqual([
      `/rest/videos/${encodeURIComponent(stored!.urn)}`,
      `/rest/videos/${encodeURIComponent(stored!.urn)}`,
      `/rest/videos/${encodeURIComponent(stored!.urn)}`,
    ]);
    expect(live.waits).toHaveLength(2);
    expect(li.posts[0]!.body.content).toEqual({ media: { id: stored!.urn } });
    expect(li.log.creates()).toHaveLength(1);
  });

  it('resumes after a crash mid-upload: no second upload session, only the missing parts are PUT', async () => {
    const file = video();
    const crashed = session({ contentType: 'reel', media: [file] });
    crashed.call = failOn(crashed, 'videos.uploadPart', 3);
    await expect(publisher().publish(crashed)).rejects.toThrow('process killed');
    expect(li.log.calls('videos.upload')).toHaveLength(2);

    const resumed = session({ contentType: 'reel', media: [file], checkpoint: crashed.saved });
    await publisher().publish(resumed);

    const [stored] = [...li.videos.values()];
    expect(li.videos.size).toBe(1);
    expect(li.log.calls('videos.initialize')).toHaveLength(1);
    const uploadedParts = li.log.calls('videos.upload').map((entry) => entry.path);
    expect(uploadedParts).toHaveLength(stored!.parts.length);
    expect(new Set(uploadedParts).size).toBe(stored!.parts.length);
    expect(li.log.calls('videos.finalize').map((entry) => entry.status)).toEqual([200]);
    expect(li.posts[0]!.body.content).toEqual({ media: { id: stored!.urn } });
    expect(li.log.creates()).toHaveLength(1);
  });

  it('resumes after a crash during processing without uploading or finalizing again', async () => {
    li.script.videoProcessing({ advance: 'poll', steps: 3 });
    const file = video();
    const crashed = session({ contentType: 'reel', media: [file] });
    crashed.call = failOn(crashed, 'videos.get', 2);
    await expect(publisher().publish(crashed)).rejects.toThrow('process killed');
    const uploads = li.log.calls('videos.upload').length;

    await publisher().publish(session({ contentType: 'reel', media: [file], checkpoint: crashed.saved }));
    expect(li.log.calls('videos.initialize')).toHaveLength(1);
    expect(li.log.calls('videos.upload')).toHaveLength(uploads);
    expect(li.log.calls('videos.finalize')).toHaveLength(1);
    expect(li.log.creates()).toHaveLength(1);
  });

  it('resumes after a crash between the finalize and its checkpoint: the refused second finalize is taken as done', async () => {
    const file = video();
    const crashed = session({ contentType: 'reel', media: [file] });
    const call = crashed.call;
    crashed.call = (async (label, request, options) => {
      const answer = await call(label, request, options);
      if (label === 'videos.finalizeUpload') throw new Error('process killed');
      return answer;
    }) as TestSession['call'];
    await expect(publisher().publish(crashed)).rejects.toThrow('process killed');

    await publisher().publish(session({ contentType: 'reel', media: [file], checkpoint: crashed.saved }));
    expect(li.log.calls('videos.finalize').map((entry) => entry.status)).toEqual([200, 400]);
    expect(li.log.calls('videos.initialize')).toHaveLength(1);
    expect(li.log.creates()).toHaveLength(1);
  });

  it('refuses a video LinkedIn failed to process as media_invalid, naming the reason, and posts nothing', async () => {
    li.script.videoProcessing({ advance: 'poll', steps: 1, outcome: 'PROCESSING_FAILED' });
    const error = await refusal(publisher().publish(session({ contentType: 'reel', media: [video()] })));
    expect(error.kind).toBe('media_invalid');
    expect(error.message).toContain('PROCESSING_FAILED: Video format is not supported');
    expect(li.log.creates()).toHaveLength(0);
  });
});

describe('LinkedIn publisher: refusals', () => {
  it('answers duplicate for the same text twice, with LinkedIn code and the existing URN', async () => {
    await publisher().publish(session({ caption: 'Same words' }));
    const error = await refusal(publisher().publish(session({ caption: 'Same words' })));
    expect(error.kind).toBe('duplicate');
    expect(error.message).toContain('DUPLICATE_POST');
    expect(error.message).toContain(li.posts[0]!.urn);
    expect(li.log.creates()).toHaveLength(1);
  });

  it('answers rate_limited for a 429 without headers, with no reset time', async () => {
    li.script.rateLimit('posts.create', 1);
    const error = await refusal(publisher().publish(session()));
    expect(error.kind).toBe('rate_limited');
    expect(error.details).toEqual({ status: 429 });
    expect(error.message).toContain('LinkedIn answered 429');
  });

  it('answers transient with the status for a 503, on a media call too', async () => {
    li.script.unavailable('posts.create', 1);
    const onCreate = await refusal(publisher().publish(session()));
    expect(onCreate).toMatchObject({ kind: 'transient', details: { status: 503 } });
    li.script.unavailable('images.initialize', 1);
    const onMedia = await refusal(publisher().publish(session({ media: [image(2)] })));
    expect(onMedia).toMatchObject({ kind: 'transient', details: { status: 503 } });
    expect(li.log.creates()).toHaveLength(0);
  });

  it('answers reauth_required for a revoked token, naming 65601, and for a token without w_member_social', async () => {
    li.script.revoke(sub);
    const revoked = await refusal(publisher().publish(session()));
    expect(revoked.kind).toBe('reauth_required');
    expect(revoked.message).toContain('65601');
    expect(revoked.message).toContain('REVOKED_ACCESS_TOKEN');
    expect(revoked.message).toContain('Reconnect the LinkedIn account');

    token = li.issueTokens(li.members[1]!.sub, ['openid', 'profile']).accessToken;
    const live = testSession({
      platform: 'linkedin',
      accessToken: token,
      account: { platformUserId: li.members[1]!.sub, username: 'Other Member' },
      caption: 'no scope',
    });
    const unscoped = await refusal(publisher().publish(live));
    expect(unscoped.kind).toBe('reauth_required');
    expect(unscoped.message).toContain('w_member_social');
    expect(unscoped.message).toContain('ACCESS_DENIED');
  });

  it('answers content_rejected naming LINKEDIN_VERSION when the version is retired', async () => {
    const error = await refusal(publisher('202404').publish(session()));
    expect(error.kind).toBe('content_rejected');
    expect(error.details.status).toBe(426);
    expect(error.message).toContain('NONEXISTENT_VERSION');
    expect(error.message).toContain('Requested version 20240401 is not active');
    expect(error.message).toContain('LINKEDIN_VERSION');
    expect(li.posts).toHaveLength(0);
  });

  it('answers content_rejected for text LinkedIn refuses, naming the field', async () => {
    const error = await refusal(publisher().publish(session({ caption: 'x'.repeat(3_001) })));
    expect(error.kind).toBe('content_rejected');
    expect(error.details.status).toBe(422);
    expect(error.message).toContain('/commentary');
  });

  it('never puts the access token in an error message', async () => {
    const errors: PlatformError[] = [];
    li.script.rateLimit('posts.create', 1);
    errors.push(await refusal(publisher().publish(session())));
    li.script.unavailable('images.upload', 1);
    errors.push(await refusal(publisher().publish(session({ media: [image(2)] }))));
    errors.push(await refusal(publisher('202404').publish(session())));
    li.script.revoke(sub);
    errors.push(await refusal(publisher().publish(session())));
    expect(errors.map((error) => error.kind)).toEqual([
      'rate_limited',
      'transient',
      'content_rejected',
      'reauth_required',
    ]);
    for (const error of errors) expect(error.message).not.toContain(token);
  });
});

/**
 * `session.call` that dies like a killed process on the `nth` call labelled `label`: the request is
 * never sent, and nothing after it runs. What was checkpointed before stays in `session.saved`.
 */
function failOn(live: TestSession, label: string, nth: number): TestSession['call'] {
  const call = live.call;
  let seen = 0;
  return (async (callLabel, request, options) => {
    if (callLabel === label && ++seen === nth) throw new Error('process killed');
    return call(callLabel, request, options);
  }) as TestSession['call'];
}
