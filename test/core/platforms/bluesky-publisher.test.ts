import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeBluesky, type FakeBluesky } from '../../../fakes/bluesky.ts';
import { blueskyPublisher } from '../../../src/core/platforms/bluesky/publisher.ts';
import { blueskySessions } from '../../../src/core/platforms/bluesky/sessions.ts';
import { PlatformError } from '../../../src/core/platforms/platform-client.ts';
import { isoMedia, jpeg, png } from '../../fixtures/media/files.ts';
import { testSession, type TestSessionOptions } from '../../helpers/live-session.ts';

let sky: FakeBluesky;
let token: string;
const clock = { now: () => new Date() };
beforeEach(async () => {
  sky = await startFakeBluesky();
  const account = sky.accounts[0]!;
  const signedIn = await blueskySessions({ apiBaseUrl: sky.url }, 5_000, clock).signIn({
    identifier: account.handle,
    secret: account.appPassword,
  });
  token = signedIn.grant.accessToken;
});
afterEach(async () => {
  await sky.close();
});

const publisher = () => blueskyPublisher({ apiBaseUrl: sky.url }, clock);
const session = (options: Partial<TestSessionOptions> = {}) =>
  testSession({
    platform: 'bluesky',
    accessToken: token,
    account: { platformUserId: sky.accounts[0]!.did, username: sky.accounts[0]!.handle },
    caption: 'Hello Bluesky',
    ...options,
  });

async function refusal(publishing: Promise<unknown>): Promise<PlatformError> {
  const error = await publishing.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

describe('Bluesky publisher', () => {
  it('saves the record key before the one create call, and the URL names the handle and the key', async () => {
    const one = session();
    const post = await publisher().publish(one);
    const [stored] = sky.posts;
    expect(sky.posts).toHaveLength(1);
    expect(one.saved.rkey).toBe(stored!.rkey);
    expect(one.calls).toEqual([{ label: 'createRecord', create: true }]);
    expect(post).toEqual({
      platformPostId: stored!.uri,
      url: `https://bsky.app/profile/${sky.accounts[0]!.handle}/post/${stored!.rkey}`,
    });
  });

  it('after a create that never reached the server, reconcile creates the same record at the saved key, once', async () => {
    const rkey = '3m6ahq2xyzab2';
    const createdAt = '2026-11-27T09:00:00.000Z';
    const resumed = session({ checkpoint: { rkey, createdAt }, createSentAt: new Date() });
    const post = await publisher().reconcile!(resumed);
    expect(post?.url).toMatch(new RegExp(`/post/${rkey}$`));
    expect(sky.posts.map((stored) => [stored.rkey, stored.record.createdAt])).toEqual([[rkey, createdAt]]);
    // Asked again (another resume): the key is found, nothing is created.
    expect(await publisher().reconcile!(session({ checkpoint: { rkey, createdAt } }))).toEqual(post);
    expect(sky.posts).toHaveLength(1);
    expect(sky.log.calls('createRecord')).toHaveLength(1);
  });

  it('a repeated key is a plain 500 on the server, so a resumed publish looks the key up before sending', async () => {
    const first = session();
    await publisher().publish(first);
    // The same attempt resumed with its checkpoint: found by getRecord, no second create.
    const again = await publisher().publish(session({ checkpoint: { ...first.saved } }));
    expect(again.url).toMatch(new RegExp(`/post/${first.saved.rkey as string}$`));
    expect(sky.log.calls('createRecord')).toHaveLength(1);
    expect(sky.posts).toHaveLength(1);
  });

  it('uploads only the images a resumed publish has not uploaded yet', async () => {
    const media = [
      { bytes: jpeg(20, 10), mimeType: 'image/jpeg', kind: 'image' as const },
      { bytes: png(10, 20), mimeType: 'image/png', kind: 'image' as const },
    ];
    const crashed = session({ media, contentType: 'slideshow' });
    sky.script.unavailable('createRecord');
    await refusal(publisher().publish(crashed));
    expect(sky.log.calls('uploadBlob')).toHaveLength(2);
    const resumed = session({ media, contentType: 'slideshow', checkpoint: { blobs: crashed.saved.blobs } });
    await publisher().publish(resumed);
    expect(sky.log.calls('uploadBlob')).toHaveLength(2);
    expect((sky.posts[0]!.record.embed as { images: unknown[] }).images).toHaveLength(2);
  });

  it('refuses a video and a fifth image before any upload', async () => {
    const video = await refusal(
      publisher().publish(
        session({ media: [{ bytes: isoMedia('isom', ['isom', 'mp41']), mimeType: 'video/mp4', kind: 'video' }] }),
      ),
    );
    expect(video.kind).toBe('media_invalid');
    expect(video.message).toMatch(/images only/);
    const five = Array.from({ length: 5 }, () => ({
      bytes: jpeg(8, 8),
      mimeType: 'image/jpeg',
      kind: 'image' as const,
    }));
    expect((await refusal(publisher().publish(session({ media: five })))).kind).toBe('media_invalid');
    expect(sky.log.calls('uploadBlob')).toHaveLength(0);
  });

  it('a mention of a handle that names no account stays plain text', async () => {
    await publisher().publish(session({ caption: 'Thanks @nobody.example.com and @other-skyer.bsky.social' }));
    expect(sky.posts[0]!.record.facets).toEqual([
      {
        index: { byteStart: 31, byteEnd: 55 },
        features: [{ $type: 'app.bsky.richtext.facet#mention', did: sky.accounts[1]!.did }],
      },
    ]);
  });

  it('a refused sign-in says what to do and never carries the password', async () => {
    const sessions = blueskySessions({ apiBaseUrl: sky.url }, 5_000, clock);
    const error = await refusal(
      sessions.signIn({ identifier: sky.accounts[0]!.handle, secret: 'nope-nope-nope-nope' }),
    );
    expect(error.kind).toBe('reauth_required');
    expect(error.message).toMatch(/app password/);
    expect(error.message).not.toContain('nope-nope-nope-nope');
  });
});
