import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeTikTok, type FakeTikTok } from '../../fakes/tiktok.ts';
import { isoMedia, jpeg } from '../fixtures/media/files.ts';
import { startMediaServer, type MediaServer } from '../helpers/media-server.ts';

const REDIRECT_URI = 'http://127.0.0.1:9/tiktok/callback';
const NOW = Date.UTC(2026, 5, 15, 9);
const MB = 1024 * 1024;

let tt: FakeTikTok;
let media: MediaServer;
let token: string;
beforeEach(async () => {
  tt = await startFakeTikTok({ now: () => NOW });
  token = tt.issueTokens(tt.users[0]!.open_id).accessToken;
  media = await startMediaServer({ '/a.jpg': { bytes: jpeg(4, 4), mimeType: 'image/jpeg' } });
});
afterEach(async () => {
  await tt.close();
  await media.close();
});

function api(path: string, body?: unknown, options: { token?: string; method?: string; contentType?: string } = {}) {
  return fetch(new URL(path, tt.url), {
    method: options.method ?? 'POST',
    headers: {
      authorization: `Bearer ${options.token ?? token}`,
      'content-type': options.contentType ?? 'application/json; charset=UTF-8',
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
}

async function answer(response: Response) {
  return { status: response.status, body: (await response.json()) as any };
}

const postInfo = (privacy_level = 'PUBLIC_TO_EVERYONE') => ({ title: 'hi', privacy_level });
const fileUpload = (video_size: number, chunk_size: number, total_chunk_count: number) => ({
  post_info: postInfo(),
  source_info: { source: 'FILE_UPLOAD', video_size, chunk_size, total_chunk_count },
});

describe('fake TikTok: Login Kit', () => {
  async function authorize(overrides: Record<string, string> = {}) {
    const url = new URL('/v2/auth/authorize/', tt.url);
    const params = {
      client_key: tt.clientKey,
      scope: 'user.info.basic,video.publish',
      response_type: 'code',
      redirect_uri: REDIRECT_URI,
      state: 's1',
      ...overrides,
    };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    const response = await fetch(url, { redirect: 'manual' });
    return {
      response,
      location: response.headers.get('location') ? new URL(response.headers.get('location')!) : undefined,
    };
  }

  it('refuses an unknown client_key with a page, and space-separated scopes as invalid_scope', async () => {
    expect((await authorize({ client_key: 'nope' })).response.status).toBe(400);
    const spaced = await authorize({ scope: 'user.info.basic video.publish' });
    expect(spaced.location!.searchParams.get('error')).toBe('invalid_scope');
  });

  it('answers OAuth errors with log_id: a JSON body, a wrong secret, a reused code', async () => {
    const json = await fetch(new URL('/v2/oauth/token/', tt.url), {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(await answer(json)).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', log_id: expect.any(String) },
    });

    const code = (await authorize()).location!.searchParams.get('code')!;
    const form = {
      client_key: tt.clientKey,
      client_secret: tt.clientSecret,
      code,
      grant_type: 'authorization_code',
      redirect_uri: REDIRECT_URI,
    };
    const token = (form: Record<string, string>) =>
      fetch(new URL('/v2/oauth/token/', tt.url), { method: 'POST', body: new URLSearchParams(form) });
    expect((await answer(await token({ ...form, client_secret: 'x' }))).body.error).toBe('invalid_client');
    const first = await answer(await token(form));
    expect(first.body).toMatchObject({
      open_id: tt.users[0]!.open_id,
      scope: 'user.info.basic,video.publish',
      token_type: 'Bearer',
    });
    expect(first.body.refresh_expires_in).toBe(180 * 86_400);
    expect((await answer(await token(form))).body.error).toBe('invalid_grant');
  });
});

describe('fake TikTok: API checks', () => {
  it('wraps every answer in the error envelope, code ok on success', async () => {
    const { body } = await answer(await api('/v2/post/publish/creator_info/query/', {}));
    expect(body.error).toEqual({ code: 'ok', message: '', log_id: expect.any(String) });
    expect(body.data.privacy_level_options).toEqual(['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY']);
  });

  it('user info: username needs user.info.profile, an unknown token is access_token_invalid, the trailing slash matters', async () => {
    const get = (path: string, bearer = token) =>
      fetch(new URL(path, tt.url), { headers: { authorization: `Bearer ${bearer}` } });
    expect(await answer(await get('/v2/user/info/?fields=open_id,username'))).toMatchObject({
      status: 401,
      body: { error: { code: 'scope_not_authorized' } },
    });
    expect((await answer(await get('/v2/user/info/?fields=open_id', 'act-nope'))).body.error.code).toBe(
      'access_token_invalid',
    );
    expect((await get('/v2/user/info?fields=open_id')).status).toBe(404);
    expect((await answer(await get('/v2/user/info/?fields=open_id,display_name'))).body.data.user).toEqual({
      open_id: tt.users[0]!.open_id,
      display_name: tt.users[0]!.display_name,
    });
  });

  it('an unaudited app is offered SELF_ONLY alone and refused any other level; a private account gets FOLLOWER_OF_CREATOR', async () => {
    tt.script.audited(false);
    expect(
      (await answer(await api('/v2/post/publish/creator_info/query/', {}))).body.data.privacy_level_options,
    ).toEqual(['SELF_ONLY']);
    const refused = await answer(await api('/v2/post/publish/video/init/', fileUpload(1000, 1000, 1)));
    expect(refused).toMatchObject({
      status: 403,
      body: { error: { code: 'unaudited_client_can_only_post_to_private_accounts' } },
    });

    tt.script.audited(true);
    const other = tt.issueTokens(tt.users[1]!.open_id).accessToken;
    const options = (await answer(await api('/v2/post/publish/creator_info/query/', {}, { token: other }))).body.data
      .privacy_level_options;
    expect(options).toEqual(['FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY']);
    const mismatch = await answer(
      await api(
        '/v2/post/publish/video/init/',
        { ...fileUpload(1000, 1000, 1), post_info: postInfo() },
        { token: other },
      ),
    );
    expect(mismatch.body.error.code).toBe('privacy_level_option_mismatch');
  });

  it('enforces the chunk rules at init', async () => {
    const refusedSizes: Array<[number, number, number]> = [
      [4 * MB, 2 * MB, 2], // under 5 MB goes whole
      [12 * MB, 4 * MB, 3], // chunks of at least 5 MB
      [200 * MB, 65 * MB, 3], // at most 64 MB
      [12 * MB, 5 * MB, 3], // count is rounded down: 2
      [100 * MB, 100 * MB, 1], // over 64 MB in several chunks
    ];
    for (const sizes of refusedSizes) {
      const { status, body } = await answer(await api('/v2/post/publish/video/init/', fileUpload(...sizes)));
      expect([status, body.error.code]).toEqual([400, 'invalid_params']);
    }
    expect(tt.publishes.size).toBe(0);
  });

  it('takes chunks only in order, with the right Content-Range, type and size; 206 then 201', async () => {
    const video = Buffer.concat([isoMedia('isom', ['isom']), Buffer.alloc(11 * MB)]);
    const init = await answer(await api('/v2/post/publish/video/init/', fileUpload(video.length, 5 * MB, 2)));
    const uploadUrl = init.body.data.upload_url as string;
    const put = (first: number, end: number, range = `bytes ${first}-${end - 1}/${video.length}`, type = 'video/mp4') =>
      fetch(uploadUrl, {
        method: 'PUT',
        headers: { 'content-type': type, 'content-range': range },
        body: video.subarray(first, end),
      });

    expect((await put(5 * MB, video.length)).status).toBe(416); // out of order
    expect((await put(0, 5 * MB, `bytes 0-${5 * MB - 1}/${video.length + 1}`)).status).toBe(416); // wrong total
    expect((await put(0, 5 * MB, undefined, 'application/octet-stream')).status).toBe(400);
    expect((await put(0, 4 * MB, `bytes 0-${5 * MB - 1}/${video.length}`)).status).toBe(400); // body shorter than the range
    expect((await put(0, 5 * MB)).status).toBe(206);
    expect((await put(0, 5 * MB)).status).toBe(416); // the same chunk again
    expect((await put(5 * MB, video.length)).status).toBe(201);
    expect((await put(5 * MB, video.length)).status).toBe(416);
    const publish = tt.publishes.get(init.body.data.publish_id)!;
    expect(publish.video!.equals(video)).toBe(true);
  });

  it('an upload URL expires after an hour', async () => {
    const init = await answer(await api('/v2/post/publish/video/init/', fileUpload(1000, 1000, 1)));
    tt.clock.advance(3600 * 1000);
    const response = await fetch(init.body.data.upload_url, {
      method: 'PUT',
      headers: { 'content-type': 'video/mp4', 'content-range': 'bytes 0-999/1000' },
      body: Buffer.alloc(1000),
    });
    expect(response.status).toBe(403);
  });

  it('allows 6 inits a minute per user, then rate_limit_exceeded until the minute has passed', async () => {
    for (let i = 0; i < 6; i++)
      expect((await api('/v2/post/publish/video/init/', fileUpload(1000, 1000, 1))).status).toBe(200);
    expect(await answer(await api('/v2/post/publish/video/init/', fileUpload(1000, 1000, 1)))).toMatchObject({
      status: 429,
      body: { error: { code: 'rate_limit_exceeded' } },
    });
    tt.clock.advance(60_000);
    expect((await api('/v2/post/publish/video/init/', fileUpload(1000, 1000, 1))).status).toBe(200);
    expect(tt.log.creates()).toHaveLength(7);
  });

  it('photos: refuses an unverified URL prefix; downloads the photos; moves through statuses on the clock; the public id arrives later', async () => {
    await tt.close();
    tt = await startFakeTikTok({
      now: () => NOW,
      verifiedUrlPrefixes: [`${media.url}/`],
      publishProcessing: { advance: 'clock', steps: 5, publicIdAfter: 60 },
    });
    token = tt.issueTokens(tt.users[0]!.open_id).accessToken;
    const photos = (urls: string[]) => ({
      post_info: postInfo(),
      source_info: { source: 'PULL_FROM_URL', photo_cover_index: 0, photo_images: urls },
      post_mode: 'DIRECT_POST',
      media_type: 'PHOTO',
    });
    const unverified = await answer(
      await api('/v2/post/publish/content/init/', photos(['https://elsewhere.invalid/a.jpg'])),
    );
    expect(unverified).toMatchObject({ status: 403, body: { error: { code: 'url_ownership_unverified' } } });
    expect(
      await answer(
        await api('/v2/post/publish/content/init/', { ...photos([`${media.url}/a.jpg`]), media_type: 'VIDEO' }),
      ),
    ).toMatchObject({
      status: 400,
    });

    const init = await answer(await api('/v2/post/publish/content/init/', photos([`${media.url}/a.jpg`])));
    const publishId = init.body.data.publish_id as string;
    expect(media.requests).toEqual(['/a.jpg']);
    const status = async () => {
      const response = await api('/v2/post/publish/status/fetch/', { publish_id: publishId });
      const raw = await response.text();
      return { raw, data: JSON.parse(raw).data };
    };
    expect((await status()).data).toMatchObject({ status: 'PROCESSING_DOWNLOAD', downloaded_bytes: jpeg(4, 4).length });
    tt.clock.advance(5_000);
    const complete = await status();
    expect(complete.data).toMatchObject({ status: 'PUBLISH_COMPLETE', publicaly_available_post_id: [] });
    tt.clock.advance(60_000);
    const later = await status();
    // Sent as a JSON number with every one of its 19 digits, as TikTok sends its int64 ids.
    expect(later.raw).toMatch(/"publicaly_available_post_id":\[\d{19}\]/);

    const other = tt.issueTokens(tt.users[1]!.open_id).accessToken;
    const foreign = await answer(
      await api('/v2/post/publish/status/fetch/', { publish_id: publishId }, { token: other }),
    );
    expect(foreign.body.error.code).toBe('token_not_authorized_for_specified_publish_id');
  });

  it('scripted errors answer TikTok codes with their statuses', async () => {
    tt.script.failWith('video.init', 'spam_risk_too_many_posts');
    tt.script.failWith('creator_info.query', 'access_token_invalid');
    expect(await answer(await api('/v2/post/publish/video/init/', fileUpload(1000, 1000, 1)))).toMatchObject({
      status: 403,
      body: { error: { code: 'spam_risk_too_many_posts' } },
    });
    expect((await api('/v2/post/publish/creator_info/query/', {})).status).toBe(401);
    expect(tt.log.creates()).toHaveLength(0);
  });
});
