import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeFacebook, type FakeFacebook } from '../../fakes/facebook.ts';
import { isoMedia, jpeg, png } from '../fixtures/media/files.ts';
import { startMediaUrlServer, type MediaUrlServer } from '../helpers/media-url-server.ts';

const NOW = Date.UTC(2026, 5, 15, 9);
const V = 'v24.0';
const REDIRECT_URI = 'http://127.0.0.1:9/callbacks/facebook/oauth';
const SCOPES = 'pages_show_list,pages_manage_posts,pages_read_engagement,publish_video';

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
let admin: string;
let pageId: string;
let pageToken: string;
beforeEach(async () => {
  fb = await startFakeFacebook({ now: () => NOW, accountsPageSize: 2 });
  served = {};
  media = await startMediaUrlServer(served);
  admin = fb.users[0]!.id;
  pageId = fb.users[0]!.pages[0]!.id;
  pageToken = fb.issueTokens(admin).pageTokens[pageId]!;
});
afterEach(async () => {
  await fb.close();
  await media.close();
});

async function graph(
  path: string,
  init: { method?: string; token?: string; form?: Record<string, string>; base?: string } = {},
) {
  const response = await fetch(`${init.base ?? fb.url}/${V}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token && { authorization: `Bearer ${init.token}` }),
      ...(init.form && { 'content-type': 'application/x-www-form-urlencoded' }),
    },
    ...(init.form && { body: new URLSearchParams(init.form).toString() }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
}

async function authorize(overrides: Record<string, string | undefined> = {}) {
  const url = new URL(`/${V}/dialog/oauth`, fb.url);
  const params = {
    client_id: fb.appId,
    redirect_uri: REDIRECT_URI,
    state: 'st-1',
    scope: SCOPES,
    response_type: 'code',
    ...overrides,
  };
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  const response = await fetch(url, { redirect: 'manual' });
  const location = response.headers.get('location');
  return { response, location: location ? new URL(location) : undefined };
}

const exchange = (query: Record<string, string>) =>
  graph(`/oauth/access_token?${new URLSearchParams(query).toString()}`);

async function login(): Promise<string> {
  const { location } = await authorize();
  const short = await exchange({
    client_id: fb.appId,
    redirect_uri: REDIRECT_URI,
    client_secret: fb.appSecret,
    code: location!.searchParams.get('code')!,
  });
  const long = await exchange({
    grant_type: 'fb_exchange_token',
    client_id: fb.appId,
    client_secret: fb.appSecret,
    fb_exchange_token: short.body.access_token,
  });
  return long.body.access_token as string;
}

describe('fake Facebook: login', () => {
  it('redirects with a code and the state, then trades it for a 2-hour token and that for a 60-day one', async () => {
    const { response, location } = await authorize();
    expect(response.status).toBe(302);
    expect(location!.origin + location!.pathname).toBe(REDIRECT_URI);
    expect(location!.searchParams.get('state')).toBe('st-1');
    const code = location!.searchParams.get('code')!;
    const short = await exchange({
      client_id: fb.appId,
      redirect_uri: REDIRECT_URI,
      client_secret: fb.appSecret,
      code,
    });
    expect(short.body).toMatchObject({ token_type: 'bearer', expires_in: 7200 });
    const long = await exchange({
      grant_type: 'fb_exchange_token',
      client_id: fb.appId,
      client_secret: fb.appSecret,
      fb_exchange_token: short.body.access_token,
    });
    expect(long.body.expires_in).toBe(60 * 86_400);
    expect(fb.log.calls('token')).toHaveLength(1);
    expect(fb.log.calls('token.exchange')).toHaveLength(1);

    const reused = await exchange({
      client_id: fb.appId,
      redirect_uri: REDIRECT_URI,
      client_secret: fb.appSecret,
      code,
    });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toMatchObject({ code: 100, error_subcode: 36009, type: 'OAuthException' });
    expect(reused.body.error.fbtrace_id).toEqual(expect.any(String));
  });

  it('refuses a wrong secret, a different redirect_uri, an unknown app and unknown scopes', async () => {
    const code = async () => (await authorize()).location!.searchParams.get('code')!;
    const wrongSecret = await exchange({
      client_id: fb.appId,
      redirect_uri: REDIRECT_URI,
      client_secret: 'nope',
      code: await code(),
    });
    expect(wrongSecret.body.error).toMatchObject({ code: 1, message: 'Error validating client secret.' });
    const otherRedirect = await exchange({
      client_id: fb.appId,
      redirect_uri: 'http://127.0.0.1:9/elsewhere',
      client_secret: fb.appSecret,
      code: await code(),
    });
    expect(otherRedirect.body.error).toMatchObject({ code: 100, error_subcode: 36008 });
    expect((await authorize({ client_id: '123' })).response.status).toBe(400);
    const badScope = await authorize({ scope: 'pages_show_list,manage_everything' });
    expect(badScope.response.status).toBe(400);
    expect(await badScope.response.text()).toContain('Invalid Scopes: manage_everything');
  });

  it('answers access_denied when the user cancels, and lists permissions the user declined', async () => {
    fb.script.denyConsent();
    const denied = (await authorize()).location!;
    expect(Object.fromEntries(denied.searchParams)).toMatchObject({
      error: 'access_denied',
      error_reason: 'user_denied',
      state: 'st-1',
    });
    fb.script.denyConsent(false);
    fb.script.declinePermissions(['pages_manage_posts']);
    const userToken = await login();
    const permissions = await graph('/me/permissions', { token: userToken });
    expect(permissions.body.data).toEqual(
      expect.arrayContaining([
        { permission: 'pages_show_list', status: 'granted' },
        { permission: 'pages_manage_posts', status: 'declined' },
      ]),
    );
  });

  it('lists Pages with Page tokens across paged answers; Page tokens from a long-lived token do not expire', async () => {
    fb.script.loginAs(fb.users[1]!.id);
    const userToken = await login();
    const first = await graph('/me/accounts?fields=id,name,access_token,tasks', { token: userToken });
    expect(first.body.data).toHaveLength(2);
    expect(first.body.data[0]).toMatchObject({
      id: '100000000000011',
      name: 'Agency One',
      tasks: expect.arrayContaining(['CREATE_CONTENT']),
    });
    const next = new URL(first.body.paging.next as string);
    expect(next.searchParams.get('access_token')).toBe(userToken);
    const second = await fetch(next).then((response) => response.json() as Promise<Record<string, any>>);
    expect(second.data.map((page: { name: string }) => page.name)).toEqual(['Agency Three']);
    expect(second.paging.next).toBeUndefined();

    const agencyToken = first.body.data[0].access_token as string;
    fb.clock.advance(61 * 86_400_000);
    expect((await graph('/me', { token: agencyToken })).body).toEqual({ id: '100000000000011', name: 'Agency One' });
    const expired = await graph('/me', { token: userToken });
    expect(expired.body.error).toMatchObject({ code: 190, error_subcode: 463 });
  });

  it('refuses a retired or malformed Graph version with code 2500', async () => {
    const response = await fetch(`${fb.url}/v12.0/me`, { headers: { authorization: `Bearer ${pageToken}` } });
    expect(((await response.json()) as any).error.code).toBe(2500);
  });
});

describe('fake Facebook: publishing as a Page', () => {
  it('creates a text post with a Page token only, and refuses the same text again with 506', async () => {
    const { accessToken: userToken } = fb.issueTokens(admin);
    const asUser = await graph(`/${pageId}/feed`, { method: 'POST', token: userToken, form: { message: 'Hi' } });
    expect(asUser.body.error.code).toBe(210);
    const otherPage = fb.issueTokens(fb.users[1]!.id).pageTokens['100000000000011']!;
    expect(
      (await graph(`/${pageId}/feed`, { method: 'POST', token: otherPage, form: { message: 'Hi' } })).body.error.code,
    ).toBe(200);

    const created = await graph(`/${pageId}/feed`, { method: 'POST', token: pageToken, form: { message: 'Hi' } });
    expect(created.body.id).toMatch(new RegExp(`^${pageId}_\\d+$`));
    expect(fb.posts).toMatchObject([{ pageId, kind: 'status', message: 'Hi' }]);
    const again = await graph(`/${pageId}/feed`, { method: 'POST', token: pageToken, form: { message: 'Hi' } });
    expect(again.body.error.code).toBe(506);
    expect(fb.log.creates()).toHaveLength(1);
    const empty = await graph(`/${pageId}/feed`, { method: 'POST', token: pageToken, form: {} });
    expect(empty.body.error).toMatchObject({ code: 100, message: '(#100) Missing message or attachment.' });

    const read = await graph(`/${created.body.id}?fields=permalink_url,message`, { token: pageToken });
    expect(read.body).toEqual({
      id: created.body.id,
      permalink_url: expect.stringMatching(/^https:\/\/www\.facebook\.com\//),
      message: 'Hi',
    });
    expect((await graph(`/${created.body.id}?fields=nope`, { token: pageToken })).body.error.code).toBe(100);
  });

  it('refuses posting without pages_manage_posts, and reading without pages_read_engagement', async () => {
    const token = fb.issueTokens(admin, ['pages_show_list', 'pages_read_engagement']).pageTokens[pageId]!;
    expect((await graph(`/${pageId}/feed`, { method: 'POST', token, form: { message: 'x' } })).body.error.code).toBe(
      200,
    );
    const readOnly = fb.issueTokens(admin, ['pages_show_list']).pageTokens[pageId]!;
    expect((await graph(`/${pageId}/feed`, { token: readOnly })).body.error.code).toBe(10);
  });

  it('downloads a photo from its url, and answers 324 when it cannot or when it is not an image', async () => {
    const url = files.add('/a.jpg', jpeg(4, 4), 'image/jpeg');
    const created = await graph(`/${pageId}/photos`, {
      method: 'POST',
      token: pageToken,
      form: { url, message: 'Look' },
    });
    expect(created.body).toEqual({ id: expect.any(String), post_id: expect.stringMatching(`^${pageId}_`) });
    expect(files.hits('/a.jpg')).toBe(1);
    expect(fb.mediaFetches).toEqual([{ url, status: 200, bytes: expect.any(Number) }]);

    const missing = await graph(`/${pageId}/photos`, {
      method: 'POST',
      token: pageToken,
      form: { url: `${files.url}/gone.jpg` },
    });
    expect(missing.body.error.code).toBe(324);
    const text = files.add('/not-image.jpg', Buffer.from('hello'));
    expect(
      (await graph(`/${pageId}/photos`, { method: 'POST', token: pageToken, form: { url: text } })).body.error.code,
    ).toBe(324);
    expect(fb.log.creates()).toHaveLength(1);
  });

  it('attaches unpublished photos to one feed post; unpublished uploads are not creates', async () => {
    const ids: string[] = [];
    for (const name of ['/1.png', '/2.png']) {
      const url = files.add(name, png(3, 3), 'image/png');
      const photo = await graph(`/${pageId}/photos`, {
        method: 'POST',
        token: pageToken,
        form: { url, published: 'false' },
      });
      expect(photo.body.post_id).toBeUndefined();
      ids.push(photo.body.id);
    }
    expect(fb.log.creates()).toHaveLength(0);
    const form: Record<string, string> = { message: 'Two' };
    ids.forEach((id, index) => (form[`attached_media[${index}]`] = JSON.stringify({ media_fbid: id })));
    const post = await graph(`/${pageId}/feed`, { method: 'POST', token: pageToken, form });
    expect(fb.posts.at(-1)).toMatchObject({ id: post.body.id, kind: 'album', photoIds: ids });
    const reuse = await graph(`/${pageId}/feed`, {
      method: 'POST',
      token: pageToken,
      form: { ...form, message: 'Again' },
    });
    expect(reuse.body.error.code).toBe(100);
    expect(fb.log.creates()).toHaveLength(1);
  });

  it('fetches a video by file_url and moves it through processing to a published post', async () => {
    fb.script.videoProcessing({ advance: 'poll', steps: 2 });
    const url = files.add('/v.mp4', isoMedia('isom', ['isom', 'mp41']), 'video/mp4');
    const created = await graph(`/${pageId}/videos`, {
      method: 'POST',
      token: pageToken,
      form: { file_url: url, description: 'Clip' },
    });
    const videoId = created.body.id as string;
    const status = async () =>
      (await graph(`/${videoId}?fields=status`, { token: pageToken })).body.status.video_status;
    expect([await status(), await status(), await status()]).toEqual(['processing', 'processing', 'ready']);
    expect(fb.log.calls('videos.status')).toHaveLength(3);
    const permalink = await graph(`/${videoId}?fields=permalink_url`, { token: pageToken });
    expect(permalink.body.permalink_url).toBe(`/${pageId}/videos/${videoId}/`);
    const feed = await graph(`/${pageId}/feed?fields=id,message`, { token: pageToken });
    expect(feed.body.data).toEqual([{ id: fb.videos.get(videoId)!.postId, message: 'Clip' }]);

    expect(
      (
        await graph(`/${pageId}/videos`, {
          method: 'POST',
          token: pageToken,
          form: { file_url: `${files.url}/none.mp4` },
        })
      ).body.error.code,
    ).toBe(389);
    const notVideo = files.add('/x.mp4', jpeg(2, 2));
    expect(
      (await graph(`/${pageId}/videos`, { method: 'POST', token: pageToken, form: { file_url: notVideo } })).body.error
        .code,
    ).toBe(352);
  });

  it('processes on the clock, and can end in error with its reason', async () => {
    fb.script.videoProcessing({ advance: 'clock', steps: 30, outcome: 'error' });
    const url = files.add('/v.mp4', isoMedia('isom', ['isom']), 'video/mp4');
    const { body } = await graph(`/${pageId}/videos`, { method: 'POST', token: pageToken, form: { file_url: url } });
    expect((await graph(`/${body.id}?fields=status`, { token: pageToken })).body.status.video_status).toBe(
      'processing',
    );
    fb.clock.advance(30_000);
    const failed = (await graph(`/${body.id}?fields=status`, { token: pageToken })).body.status;
    expect(failed.video_status).toBe('error');
    expect(failed.processing_phase.errors[0].code).toBe(6000);
  });

  it('serves video uploads on a separate graph-video origin when asked', async () => {
    const split = await startFakeFacebook({ now: () => NOW, separateVideoHost: true });
    try {
      const token = split.issueTokens(admin).pageTokens[pageId]!;
      const url = files.add('/v.mp4', isoMedia('isom', ['isom']), 'video/mp4');
      const onGraph = await graph(`/${pageId}/videos`, {
        base: split.url,
        method: 'POST',
        token,
        form: { file_url: url },
      });
      expect(onGraph.body.error.code).toBe(100);
      const onVideo = await graph(`/${pageId}/videos`, {
        base: split.videoUrl,
        method: 'POST',
        token,
        form: { file_url: url },
      });
      expect(onVideo.body.id).toEqual(expect.any(String));
      expect(split.videoUrl).not.toBe(split.url);
      expect(split.log.creates()).toHaveLength(1);
    } finally {
      await split.close();
    }
  });
});

describe('fake Facebook: scripts', () => {
  it('throttles with the usage header, fails transiently with code 2, and reports usage on every answer', async () => {
    fb.script.rateLimit('feed.create', 1, { code: 80001, regainMinutes: 3 });
    const limited = await graph(`/${pageId}/feed`, { method: 'POST', token: pageToken, form: { message: 'a' } });
    expect(limited.body.error.code).toBe(80001);
    const usage = JSON.parse(limited.headers.get('x-business-use-case-usage')!);
    expect(Object.values(usage)[0]).toEqual([
      expect.objectContaining({ call_count: 100, estimated_time_to_regain_access: 3 }),
    ]);

    fb.script.unavailable('feed.create', 1);
    const down = await graph(`/${pageId}/feed`, { method: 'POST', token: pageToken, form: { message: 'a' } });
    expect(down.status).toBe(500);
    expect(down.body.error).toMatchObject({ code: 2, is_transient: true });

    fb.script.usage({ app: 93 });
    const ok = await graph(`/${pageId}/feed`, { method: 'POST', token: pageToken, form: { message: 'a' } });
    expect(JSON.parse(ok.headers.get('x-app-usage')!)).toMatchObject({ call_count: 93 });
  });

  it('kills every token of a user who removes the app, and loses the answer of a stored post on request', async () => {
    fb.script.dropAfterStore('feed.create');
    await expect(
      graph(`/${pageId}/feed`, { method: 'POST', token: pageToken, form: { message: 'lost' } }),
    ).rejects.toThrow();
    expect(fb.posts).toHaveLength(1);
    expect(fb.log.creates()).toHaveLength(1);
    expect(fb.log.last('feed.create')).toMatchObject({ dropped: true });

    fb.script.revoke(admin);
    const revoked = await graph('/me', { token: pageToken });
    expect(revoked.body.error).toMatchObject({ code: 190, error_subcode: 458 });
  });
});
