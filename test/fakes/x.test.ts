import { createHash, randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startFakeX, type FakeX } from '../../fakes/x.ts';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const ALL_SCOPES = 'tweet.read tweet.write users.read media.write offline.access';

let x: FakeX;
beforeEach(async () => {
  x = await startFakeX({ now: () => Date.UTC(2026, 0, 5, 12) });
});
afterEach(async () => {
  await x.close();
});

function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeUrl(params: Record<string, string | undefined>) {
  const url = new URL('/i/oauth2/authorize', x.url);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url;
}

async function authorize(overrides: Record<string, string | undefined> = {}) {
  const { verifier, challenge } = pkcePair();
  const response = await fetch(
    authorizeUrl({
      response_type: 'code',
      client_id: x.clientId,
      redirect_uri: REDIRECT_URI,
      scope: ALL_SCOPES,
      state: 'state-123',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...overrides,
    }),
    { redirect: 'manual' },
  );
  const location = response.headers.get('location');
  return { response, verifier, location: location ? new URL(location) : undefined };
}

function basic(id = x.clientId, secret = x.clientSecret) {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

/** `authorization: null` sends no Authorization header at all. */
function tokenCall(form: Record<string, string>, authorization: string | null = basic()) {
  return fetch(new URL('/2/oauth2/token', x.url), {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(authorization && { authorization }),
    },
    body: new URLSearchParams(form),
  });
}

async function connect(scope = ALL_SCOPES) {
  const { location, verifier } = await authorize({ scope });
  const response = await tokenCall({
    grant_type: 'authorization_code',
    code: location!.searchParams.get('code')!,
    redirect_uri: REDIRECT_URI,
    code_verifier: verifier,
  });
  expect(response.status).toBe(200);
  return (await response.json()) as any;
}

function api(path: string, token: string, init: RequestInit = {}) {
  return fetch(new URL(path, x.url), {
    ...init,
    headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) },
  });
}

function postTweet(token: string, body: unknown) {
  return api('/2/tweets', token, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function uploadMedia(token: string, bytes: Buffer, mediaType: string, category: string, segmentSize = 4) {
  const init = await api('/2/media/upload/initialize', token, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ media_type: mediaType, total_bytes: bytes.length, media_category: category }),
  });
  expect(init.status).toBe(200);
  const { data } = (await init.json()) as any;
  for (let index = 0, offset = 0; offset < bytes.length; index++, offset += segmentSize) {
    const appended = await appendSegment(token, data.id, index, bytes.subarray(offset, offset + segmentSize));
    expect(appended.status).toBe(200);
  }
  const finalized = await api(`/2/media/upload/${data.id}/finalize`, token, { method: 'POST' });
  return { id: data.id as string, mediaKey: data.media_key as string, finalized: (await finalized.json()) as any };
}

function appendSegment(token: string, id: string, index: number, bytes: Buffer) {
  const form = new FormData();
  form.set('segment_index', String(index));
  form.set('media', new Blob([bytes]), 'blob');
  return api(`/2/media/upload/${id}/append`, token, { method: 'POST', body: form });
}

function mediaStatus(token: string, id: string) {
  return api(`/2/media/upload?command=STATUS&media_id=${id}`, token);
}

const UNAUTHORIZED = { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' };

describe('fake X: OAuth 2.0 with PKCE', () => {
  it('runs the whole flow: authorize, 302 with code and state, token exchange, profile', async () => {
    const { response, location } = await authorize();
    expect(response.status).toBe(302);
    expect(location!.origin + location!.pathname).toBe(REDIRECT_URI);
    expect(location!.searchParams.get('state')).toBe('state-123');
    const tokens = await connect();
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 7200, scope: ALL_SCOPES });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const me = await api('/2/users/me', tokens.access_token);
    expect(await me.json()).toEqual({ data: x.users[0] });
  });

  it('gives no refresh token without offline.access, and logs in as the scripted user', async () => {
    x.script.loginAs(x.users[1]!.id);
    const tokens = await connect('tweet.read users.read');
    expect(tokens.refresh_token).toBeUndefined();
    const me = (await (await api('/2/users/me', tokens.access_token)).json()) as any;
    expect(me.data.username).toBe('other_author');
  });

  it('redirects with access_denied when the user refuses', async () => {
    x.script.denyConsent();
    const { location } = await authorize();
    expect(location!.searchParams.get('error')).toBe('access_denied');
    expect(location!.searchParams.get('state')).toBe('state-123');
    expect(location!.searchParams.has('code')).toBe(false);
  });

  it('refuses an authorize request without S256 PKCE, or with an unknown client or scope', async () => {
    expect((await authorize({ code_challenge_method: 'plain' })).location!.searchParams.get('error')).toBe(
      'invalid_request',
    );
    expect((await authorize({ code_challenge: undefined })).location!.searchParams.get('error')).toBe(
      'invalid_request',
    );
    expect((await authorize({ scope: 'tweet.read tweet.everything' })).location!.searchParams.get('error')).toBe(
      'invalid_scope',
    );
    const unknownClient = await authorize({ client_id: 'someone-else' });
    expect(unknownClient.response.status).toBe(400);
    expect(unknownClient.location).toBeUndefined();
  });

  it('refuses a wrong PKCE verifier, and the code is spent by the attempt', async () => {
    const { location, verifier } = await authorize();
    const code = location!.searchParams.get('code')!;
    const wrong = await tokenCall({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: pkcePair().verifier,
    });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as any).error).toBe('invalid_request');
    const retry = await tokenCall({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
    });
    expect(retry.status).toBe(400);
    expect(x.log.calls('token').map((entry) => entry.status)).toEqual([400, 400]);
  });

  it('refuses the token call without HTTP Basic client credentials', async () => {
    const { location, verifier } = await authorize();
    const form = {
      grant_type: 'authorization_code',
      code: location!.searchParams.get('code')!,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      client_id: x.clientId,
    };
    const missing = await tokenCall(form, null);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({
      error: 'unauthorized_client',
      error_description: 'Missing valid authorization header',
    });
    expect((await tokenCall(form, basic(x.clientId, 'wrong-secret'))).status).toBe(401);
  });

  it('refuses a redirect_uri other than the authorize one, and a code past its 30 seconds', async () => {
    const first = await authorize();
    const mismatch = await tokenCall({
      grant_type: 'authorization_code',
      code: first.location!.searchParams.get('code')!,
      redirect_uri: 'http://127.0.0.1:9/other',
      code_verifier: first.verifier,
    });
    expect(mismatch.status).toBe(400);
    const second = await authorize();
    x.clock.advance(31_000);
    const late = await tokenCall({
      grant_type: 'authorization_code',
      code: second.location!.searchParams.get('code')!,
      redirect_uri: REDIRECT_URI,
      code_verifier: second.verifier,
    });
    expect(late.status).toBe(400);
  });

  it('rotates refresh tokens: the new pair works, the old refresh token is refused', async () => {
    const first = await connect();
    const refreshed = await tokenCall({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(refreshed.status).toBe(200);
    const second = (await refreshed.json()) as any;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await api('/2/users/me', second.access_token)).status).toBe(200);
    const reused = await tokenCall({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(reused.status).toBe(400);
    expect(await reused.json()).toEqual({
      error: 'invalid_request',
      error_description: 'Value passed for the token was invalid.',
    });
  });

  it('expires access tokens after two hours on the injected clock', async () => {
    const tokens = await connect();
    x.clock.advance(7199_000);
    expect((await api('/2/users/me', tokens.access_token)).status).toBe(200);
    x.clock.advance(1000);
    const expired = await api('/2/users/me', tokens.access_token);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('content-type')).toBe('application/problem+json');
    expect(await expired.json()).toEqual(UNAUTHORIZED);
    expect((await tokenCall({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).status).toBe(200);
  });

  it('revokes: the next API call is a 401 and the refresh token is dead', async () => {
    const tokens = await connect();
    x.script.revoke(x.users[0]!.id);
    const revoked = await api('/2/users/me', tokens.access_token);
    expect(revoked.status).toBe(401);
    expect(await revoked.json()).toEqual(UNAUTHORIZED);
    expect((await tokenCall({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token })).status).toBe(400);
  });

  it('revokes one token at the revoke endpoint, with client credentials in Basic', async () => {
    const tokens = await connect();
    const revoke = (authorization: string | null) =>
      fetch(new URL('/2/oauth2/revoke', x.url), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization && { authorization }) },
        body: new URLSearchParams({ token: tokens.access_token, token_type_hint: 'access_token' }),
      });
    expect((await revoke(null)).status).toBe(401);
    expect((await api('/2/users/me', tokens.access_token)).status).toBe(200);
    expect(await (await revoke(basic())).json()).toEqual({ revoked: true });
    expect((await api('/2/users/me', tokens.access_token)).status).toBe(401);
  });

  it('answers 401 without a bearer token and 403 when a scope is missing', async () => {
    expect((await fetch(new URL('/2/users/me', x.url))).status).toBe(401);
    const readOnly = x.issueTokens(x.users[0]!.id, ['tweet.read', 'users.read']);
    expect((await postTweet(readOnly.accessToken, { text: 'hello' })).status).toBe(403);
  });
});

describe('fake X: posts', () => {
  let token: string;
  beforeEach(() => {
    token = x.issueTokens(x.users[0]!.id).accessToken;
  });

  it('creates a text post, 201 with data, listed in the recent posts', async () => {
    const created = await postTweet(token, { text: 'Hello <world> & friends' });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as any;
    expect(data).toMatchObject({ id: expect.stringMatching(/^\d{19}$/), text: 'Hello <world> & friends' });
    expect(created.headers.get('x-rate-limit-remaining')).toBe('99');
    expect(x.posts).toHaveLength(1);
    expect(x.log.creates()).toHaveLength(1);
    const recent = (await (await api(`/2/users/${x.users[0]!.id}/tweets`, token)).json()) as any;
    expect(recent.data).toEqual([{ id: data.id, text: 'Hello <world> & friends', edit_history_tweet_ids: [data.id] }]);
  });

  it('refuses a duplicate text from the same user with X 403', async () => {
    expect((await postTweet(token, { text: 'same words' })).status).toBe(201);
    const duplicate = await postTweet(token, { text: 'same words' });
    expect(duplicate.status).toBe(403);
    expect(((await duplicate.json()) as any).detail).toBe(
      'You are not allowed to create a Tweet with duplicate content.',
    );
    const other = x.issueTokens(x.users[1]!.id).accessToken;
    expect((await postTweet(other, { text: 'same words' })).status).toBe(201);
    expect(x.log.creates()).toHaveLength(2);
  });

  it('refuses malformed bodies: unknown field, non-JSON, over-long text', async () => {
    expect((await postTweet(token, { text: 'hi', status: 'x' })).status).toBe(400);
    const form = await api('/2/tweets', token, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'text=hi',
    });
    expect(form.status).toBe(400);
    expect((await postTweet(token, { text: 'a'.repeat(281) })).status).toBe(403);
    expect((await postTweet(token, { text: 'a'.repeat(280) })).status).toBe(201);
  });

  it('answers 429 with the rate-limit headers for the next N calls, then serves again', async () => {
    const resetAtSecs = Math.floor(x.clock.now() / 1000) + 600;
    x.script.rateLimit('tweets.create', 2, { resetAtSecs });
    for (const text of ['one', 'two']) {
      const limited = await postTweet(token, { text });
      expect(limited.status).toBe(429);
      expect(limited.headers.get('x-rate-limit-limit')).toBe('100');
      expect(limited.headers.get('x-rate-limit-remaining')).toBe('0');
      expect(limited.headers.get('x-rate-limit-reset')).toBe(String(resetAtSecs));
      expect(limited.headers.get('retry-after')).toBeNull();
    }
    expect((await postTweet(token, { text: 'three' })).status).toBe(201);
    expect(x.posts.map((post) => post.text)).toEqual(['three']);
  });

  it('answers 503 for the next N calls, then succeeds', async () => {
    x.script.unavailable('tweets.create', 1);
    expect((await postTweet(token, { text: 'retry me' })).status).toBe(503);
    expect((await postTweet(token, { text: 'retry me' })).status).toBe(201);
    expect(x.log.creates()).toHaveLength(1);
  });

  it('holds a stalled call open without an answer, and answers the next one', async () => {
    x.script.stall('tweets.create');
    const stalled = fetch(`${x.url}/2/tweets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hung' }),
      signal: AbortSignal.timeout(300),
    });
    await expect(stalled).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(x.log.calls('tweets.create')).toEqual([expect.objectContaining({ status: null, dropped: false })]);
    expect(x.posts).toEqual([]);
    expect((await postTweet(token, { text: 'answered' })).status).toBe(201);
  });

  it('holds a call without an answer until released, then handles it as usual', async () => {
    const held = x.script.hold('tweets.create');
    const answer = postTweet(token, { text: 'slow answer' });
    await vi.waitFor(() => expect(x.log.calls('tweets.create')).toEqual([expect.objectContaining({ status: null })]));
    expect(x.posts).toEqual([]);
    held.release();
    expect((await answer).status).toBe(201);
    expect(x.posts.map((post) => post.text)).toEqual(['slow answer']);
    expect(x.log.creates()).toHaveLength(1);
  });

  it('stores the post, then drops the connection without an answer', async () => {
    x.script.dropAfterStore();
    await expect(postTweet(token, { text: 'lost answer' })).rejects.toMatchObject({
      message: 'fetch failed',
      cause: { code: 'UND_ERR_SOCKET' },
    });
    expect(x.posts.map((post) => post.text)).toEqual(['lost answer']);
    const [entry] = x.log.creates();
    expect(entry).toMatchObject({ route: 'tweets.create', dropped: true, status: null, body: { text: 'lost answer' } });
    const again = await postTweet(token, { text: 'lost answer' });
    expect(again.status).toBe(403);
  });
});

describe('fake X: chunked media', () => {
  let token: string;
  beforeEach(() => {
    token = x.issueTokens(x.users[0]!.id).accessToken;
  });

  it('uploads images in segments and posts four of them, refusing a fifth', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const image = await uploadMedia(token, randomBytes(10), 'image/png', 'tweet_image');
      expect(image.mediaKey).toBe(`3_${image.id}`);
      expect(image.finalized.data.processing_info).toBeUndefined();
      ids.push(image.id);
    }
    expect((await postTweet(token, { text: 'five', media: { media_ids: ids } })).status).toBe(400);
    const four = await postTweet(token, { text: 'four', media: { media_ids: ids.slice(0, 4) } });
    expect(four.status).toBe(201);
    expect(((await four.json()) as any).data.text).toMatch(/^four https:\/\/t\.co\/\w+$/);
    expect(x.media.get(ids[0]!)!.segments.map((segment) => segment.length)).toEqual([4, 4, 2]);
  });

  it('moves a video through pending, in_progress, succeeded, one state per STATUS poll', async () => {
    const video = await uploadMedia(token, randomBytes(9), 'video/mp4', 'tweet_video');
    expect(video.finalized.data.processing_info).toEqual({
      state: 'pending',
      check_after_secs: 1,
      progress_percent: 0,
    });
    expect((await postTweet(token, { text: 'too soon', media: { media_ids: [video.id] } })).status).toBe(400);
    const first = (await (await mediaStatus(token, video.id)).json()) as any;
    expect(first.data.processing_info.state).toBe('in_progress');
    const second = (await (await mediaStatus(token, video.id)).json()) as any;
    expect(second.data.processing_info).toEqual({ state: 'succeeded', progress_percent: 100 });
    expect((await postTweet(token, { text: 'ready', media: { media_ids: [video.id] } })).status).toBe(201);
  });

  it('advances processing on the clock when scripted so, and can fail', async () => {
    x.script.mediaProcessing({ advance: 'clock', checkAfterSecs: 5, states: ['pending', 'in_progress', 'failed'] });
    const video = await uploadMedia(token, randomBytes(8), 'video/mp4', 'amplify_video');
    expect(video.finalized.data.processing_info.check_after_secs).toBe(5);
    expect(((await (await mediaStatus(token, video.id)).json()) as any).data.processing_info.state).toBe('pending');
    x.clock.advance(5000);
    expect(((await (await mediaStatus(token, video.id)).json()) as any).data.processing_info.state).toBe('in_progress');
    x.clock.advance(5000);
    const failed = (await (await mediaStatus(token, video.id)).json()) as any;
    expect(failed.data.processing_info).toMatchObject({ state: 'failed', error: { name: 'InvalidMedia' } });
    expect((await postTweet(token, { text: 'broken', media: { media_ids: [video.id] } })).status).toBe(400);
  });

  it('refuses an out-of-order segment and a finalize short of total_bytes', async () => {
    const init = await api('/2/media/upload/initialize', token, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ media_type: 'image/jpeg', total_bytes: 8, media_category: 'tweet_image' }),
    });
    const { data } = (await init.json()) as any;
    expect((await appendSegment(token, data.id, 1, randomBytes(4))).status).toBe(400);
    expect((await appendSegment(token, data.id, 0, randomBytes(4))).status).toBe(200);
    const short = await api(`/2/media/upload/${data.id}/finalize`, token, { method: 'POST' });
    expect(short.status).toBe(400);
    expect(((await short.json()) as any).errors[0].message).toMatch(/File size mismatch/);
  });

  it("refuses another user's media and a video mixed with images", async () => {
    const mine = await uploadMedia(token, randomBytes(4), 'image/png', 'tweet_image');
    const other = x.issueTokens(x.users[1]!.id).accessToken;
    expect((await postTweet(other, { text: 'theirs', media: { media_ids: [mine.id] } })).status).toBe(400);
    x.script.mediaProcessing({ states: ['succeeded'] });
    const video = await uploadMedia(token, randomBytes(4), 'video/mp4', 'tweet_video');
    expect((await postTweet(token, { text: 'mix', media: { media_ids: [mine.id, video.id] } })).status).toBe(400);
  });
});
