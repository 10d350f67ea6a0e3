import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeInstagram, type FakeInstagram } from '../../fakes/instagram.ts';
import { isoMedia, jpeg, png } from '../fixtures/media/files.ts';
import { startMediaUrlServer, type MediaUrlServer } from '../helpers/media-url-server.ts';

const NOW = Date.UTC(2026, 5, 15, 9);
const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const SCOPES = 'instagram_business_basic,instagram_business_content_publish';

let ig: FakeInstagram;
let files: MediaUrlServer;
let userId: string;
let token: string;
beforeEach(async () => {
  ig = await startFakeInstagram({ now: () => NOW, downloadTimeoutMs: 300 });
  files = await startMediaUrlServer({
    '/a.jpg': { bytes: jpeg(20, 20), contentType: 'image/jpeg' },
    '/b.png': { bytes: png(20, 20), contentType: 'image/png' },
    '/c.mp4': { bytes: isoMedia('isom', ['isom']), contentType: 'video/mp4' },
    '/not-an-image.txt': { bytes: Buffer.from('hello there, not an image'), contentType: 'text/plain' },
  });
  userId = ig.users[0]!.userId;
  token = ig.issueTokens(userId).accessToken;
});
afterEach(async () => {
  await ig.close();
  await files.close();
});

function graph(path: string, init: RequestInit & { token?: string | null } = {}) {
  const { token: bearer = token, ...rest } = init;
  return fetch(new URL(path, ig.url), {
    ...rest,
    headers: { ...(bearer && { authorization: `Bearer ${bearer}` }), ...(rest.headers as Record<string, string>) },
  });
}

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

async function json(response: Response): Promise<any> {
  return response.json();
}

async function container(fields: Record<string, string>): Promise<string> {
  const response = await graph(`/${userId}/media`, form(fields));
  expect(response.status).toBe(200);
  return (await json(response)).id;
}

async function authorize(params: Record<string, string> = {}) {
  const url = new URL('/oauth/authorize', ig.url);
  const query = {
    client_id: ig.clientId,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: SCOPES,
    state: 's1',
    ...params,
  };
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return fetch(url, { redirect: 'manual' });
}

function tokenCall(fields: Record<string, string>) {
  return fetch(new URL('/oauth/access_token', ig.url), form(fields));
}

describe('fake Instagram: Instagram Login', () => {
  it('runs the flow: consent 302 with code and state, code → one-hour token, exchange once → 60-day token', async () => {
    const consent = await authorize();
    expect(consent.status).toBe(302);
    const location = new URL(consent.headers.get('location')!);
    expect(location.searchParams.get('state')).toBe('s1');
    const code = location.searchParams.get('code')!;

    const exchange = (fields: Record<string, string>) =>
      tokenCall({
        client_id: ig.clientId,
        client_secret: ig.clientSecret,
        grant_type: 'authorization_code',
        redirect_uri: REDIRECT_URI,
        code,
        ...fields,
      });
    const answered = await exchange({});
    expect(answered.status).toBe(200);
    const [short] = (await json(answered)).data;
    expect(short).toMatchObject({ user_id: userId, permissions: SCOPES });

    const again = await exchange({});
    expect(await json(again)).toMatchObject({
      error_type: 'OAuthException',
      error_message: 'Invalid authorization code',
    });

    const longUrl = `/access_token?grant_type=ig_exchange_token&client_secret=${ig.clientSecret}&access_token=${short.access_token}`;
    const long = await json(await graph(longUrl, { token: null }));
    expect(long).toMatchObject({ token_type: 'bearer', expires_in: 60 * 86_400 });
    const twice = await graph(longUrl, { token: null });
    expect(twice.status).toBe(400);
  });

  it('shows an error page for a wrong client or scope, and redirects access_denied when the user refuses', async () => {
    expect((await authorize({ client_id: '123' })).status).toBe(400);
    expect(await (await authorize({ scope: 'instagram_business_content_publish' })).text()).toContain(
      'instagram_business_basic is required',
    );
    expect(await (await authorize({ scope: 'user_profile' })).text()).toContain('Invalid Scopes');
    ig.script.denyConsent();
    const denied = new URL((await authorize()).headers.get('location')!);
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('error_reason')).toBe('user_denied');
  });

  it('refuses a wrong secret and another redirect_uri at the token endpoint', async () => {
    const code = new URL((await authorize()).headers.get('location')!).searchParams.get('code')!;
    const base = {
      client_id: ig.clientId,
      client_secret: ig.clientSecret,
      grant_type: 'authorization_code',
      redirect_uri: REDIRECT_URI,
      code,
    };
    expect(await json(await tokenCall({ ...base, client_secret: 'nope' }))).toMatchObject({
      error_message: 'Error validating client secret.',
    });
    const code2 = new URL((await authorize()).headers.get('location')!).searchParams.get('code')!;
    const other = await json(await tokenCall({ ...base, code: code2, redirect_uri: 'http://127.0.0.1:9/other' }));
    expect(other.error_message).toContain('redirect_uri');
  });

  it('refreshes a long-lived token only once it is 24 hours old', async () => {
    const refresh = () =>
      graph(`/refresh_access_token?grant_type=ig_refresh_token&access_token=${token}`, { token: null });
    const young = await refresh();
    expect(young.status).toBe(400);
    expect((await json(young)).error.message).toContain('24 hours');
    ig.clock.advance(24 * 3600_000);
    expect((await refresh()).status).toBe(200);
  });

  it('answers /me with the fields asked, and 190 for an unknown, expired or revoked token', async () => {
    const me = await json(await graph('/me?fields=user_id,username,account_type'));
    expect(me).toEqual({ user_id: userId, username: 'fake.brand', account_type: 'BUSINESS' });
    expect((await json(await graph('/me', { token: 'IGnope' }))).error.code).toBe(190);
    ig.script.revoke(userId);
    expect((await json(await graph('/me'))).error).toMatchObject({ code: 190, error_subcode: 460 });
  });
});

describe('fake Instagram: content publishing', () => {
  it('downloads the image for a container, then image → FINISHED → media_publish → permalink', async () => {
    const id = await container({ image_url: files.at('/a.jpg'), caption: 'Hi' });
    expect(files.requested).toEqual(['/a.jpg']);
    expect(await json(await graph(`/${id}?fields=status_code,status`))).toMatchObject({ status_code: 'FINISHED' });
    const published = await graph(`/${userId}/media_publish`, form({ creation_id: id }));
    const { id: mediaId } = await json(published);
    expect(ig.log.creates()).toHaveLength(1);
    expect((await json(await graph(`/${mediaId}?fields=permalink`))).permalink).toMatch(
      /^https:\/\/www\.instagram\.com\/p\//,
    );
    expect((await json(await graph(`/${id}?fields=status_code`))).status_code).toBe('PUBLISHED');
    expect((await json(await graph(`/${userId}/media?fields=id,caption`))).data).toEqual([
      { id: mediaId, caption: 'Hi' },
    ]);
  });

  it('accepts the token as an access_token parameter too, as Graph does', async () => {
    const response = await graph(`/me?fields=user_id&access_token=${token}`, { token: null });
    expect(await json(response)).toEqual({ user_id: userId });
  });

  it('refuses another account in the path (100/33), and publishing without instagram_business_content_publish (10)', async () => {
    const other = await json(await graph(`/${ig.users[1]!.userId}/media`, form({ image_url: files.at('/a.jpg') })));
    expect(other.error).toMatchObject({ code: 100, error_subcode: 33 });
    token = ig.issueTokens(userId, ['instagram_business_basic']).accessToken;
    const denied = await graph(`/${userId}/media`, form({ image_url: files.at('/a.jpg') }));
    expect(denied.status).toBe(403);
    expect((await json(denied)).error.code).toBe(10);
  });

  it('answers 2207052 for an image it cannot fetch, 2207003 when it hangs, 2207005 for a non-image', async () => {
    const code = async (url: string) =>
      (await json(await graph(`/${userId}/media`, form({ image_url: url })))).error.error_subcode;
    expect(await code(files.at('/missing'))).toBe(2207052);
    expect(await code(files.at('/hang'))).toBe(2207003);
    expect(await code(files.at('/not-an-image.txt'))).toBe(2207005);
    expect(ig.containers.size).toBe(0);
  });

  it('moves a reel IN_PROGRESS → FINISHED on polls, refuses to publish it before (9007), and ends a failed fetch in ERROR', async () => {
    ig.script.containerProcessing({ videoSteps: 1 });
    const id = await container({ media_type: 'REELS', video_url: files.at('/c.mp4') });
    expect((await json(await graph(`/${userId}/media_publish`, form({ creation_id: id })))).error).toMatchObject({
      code: 9007,
      error_subcode: 2207027,
    });
    expect((await json(await graph(`/${id}?fields=status_code`))).status_code).toBe('IN_PROGRESS');
    expect((await json(await graph(`/${id}?fields=status_code`))).status_code).toBe('FINISHED');

    const broken = await container({ media_type: 'REELS', video_url: files.at('/missing') });
    expect(await json(await graph(`/${broken}?fields=status_code,status`))).toMatchObject({
      status_code: 'ERROR',
      status: expect.stringContaining('2207052'),
    });
    expect(
      (await json(await graph(`/${userId}/media`, form({ media_type: 'VIDEO', video_url: files.at('/c.mp4') })))).error
        .code,
    ).toBe(100);
  });

  it('checks carousels: 2 to 10 items made with is_carousel_item, each used once', async () => {
    const a = await container({ image_url: files.at('/a.jpg'), is_carousel_item: 'true' });
    const b = await container({ image_url: files.at('/b.png'), is_carousel_item: 'true' });
    const single = await container({ image_url: files.at('/a.jpg') });
    const refused = async (children: string) =>
      (await json(await graph(`/${userId}/media`, form({ media_type: 'CAROUSEL', children })))).error?.message;
    expect(await refused(a)).toContain('between 2 and 10');
    expect(await refused(`${a},${single}`)).toContain('is_carousel_item');
    const parent = await container({ media_type: 'CAROUSEL', children: `${a},${b}`, caption: 'Two' });
    expect(await refused(`${a},${b}`)).toContain('already part of a carousel');
    expect((await json(await graph(`/${userId}/media_publish`, form({ creation_id: a })))).error.message).toContain(
      'carousel item',
    );
    await graph(`/${userId}/media_publish`, form({ creation_id: parent }));
    expect(ig.media[0]).toMatchObject({ mediaType: 'CAROUSEL_ALBUM', children: [a, b], caption: 'Two' });
  });

  it('expires an unpublished container after 24 hours (2207020)', async () => {
    const id = await container({ image_url: files.at('/a.jpg') });
    ig.clock.advance(24 * 3600_000);
    expect((await json(await graph(`/${id}?fields=status_code`))).status_code).toBe('EXPIRED');
    expect((await json(await graph(`/${userId}/media_publish`, form({ creation_id: id })))).error.error_subcode).toBe(
      2207020,
    );
  });

  it('counts the rolling 24-hour quota in content_publishing_limit and refuses past it (2207042)', async () => {
    ig.script.publishingQuota({ total: 2, used: 1 });
    const limit = () => graph(`/${userId}/content_publishing_limit?fields=quota_usage,config`).then(json);
    expect((await limit()).data[0]).toEqual({ quota_usage: 1, config: { quota_total: 2, quota_duration: 86_400 } });
    await graph(`/${userId}/media_publish`, form({ creation_id: await container({ image_url: files.at('/a.jpg') }) }));
    expect((await limit()).data[0].quota_usage).toBe(2);
    const over = await graph(
      `/${userId}/media_publish`,
      form({ creation_id: await container({ image_url: files.at('/a.jpg') }) }),
    );
    expect((await json(over)).error.error_subcode).toBe(2207042);
    ig.clock.advance(24 * 3600_000 + 1);
    expect((await limit()).data[0].quota_usage).toBe(0);
  });

  it('scripts throttling with the usage header, and a publish stored then dropped', async () => {
    ig.script.rateLimit('media.create', 1, { regainMinutes: 3 });
    const throttled = await graph(`/${userId}/media`, form({ image_url: files.at('/a.jpg') }));
    expect((await json(throttled)).error.code).toBe(4);
    const usage = JSON.parse(throttled.headers.get('x-business-use-case-usage')!);
    expect(usage[userId][0].estimated_time_to_regain_access).toBe(3);

    ig.script.dropAfterStore();
    const id = await container({ image_url: files.at('/a.jpg') });
    await expect(graph(`/${userId}/media_publish`, form({ creation_id: id }))).rejects.toThrow();
    expect(ig.media).toHaveLength(1);
    expect(ig.log.creates()).toHaveLength(1);
    expect(ig.log.last('media.publish')!.dropped).toBe(true);
  });
});
