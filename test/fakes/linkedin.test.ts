import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLinkedIn, type FakeLinkedIn } from '../../fakes/linkedin.ts';

const REDIRECT_URI = 'http://127.0.0.1:9/linkedin/callback';
const NOW = Date.UTC(2026, 5, 15, 9);
const VERSION = '202606';

let li: FakeLinkedIn;
let member: string;
beforeEach(async () => {
  li = await startFakeLinkedIn({ now: () => NOW, videoPartSizeBytes: 8 });
  member = `urn:li:person:${li.members[0]!.sub}`;
});
afterEach(async () => {
  await li.close();
});

async function authorize(overrides: Record<string, string | undefined> = {}) {
  const url = new URL('/oauth/v2/authorization', li.url);
  const params = {
    response_type: 'code',
    client_id: li.clientId,
    redirect_uri: REDIRECT_URI,
    state: 'st-1',
    scope: 'openid profile email w_member_social',
    ...overrides,
  };
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  const response = await fetch(url, { redirect: 'manual' });
  const location = response.headers.get('location');
  return { response, location: location ? new URL(location) : undefined };
}

function tokenCall(form: Record<string, string>) {
  return fetch(new URL('/oauth/v2/accessToken', li.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
}

async function connect() {
  const { location } = await authorize();
  const response = await tokenCall({
    grant_type: 'authorization_code',
    code: location!.searchParams.get('code')!,
    redirect_uri: REDIRECT_URI,
    client_id: li.clientId,
    client_secret: li.clientSecret,
  });
  expect(response.status).toBe(200);
  return (await response.json()) as any;
}

function rest(path: string, token: string, init: RequestInit & { version?: string | null } = {}) {
  const { version = VERSION, ...rest } = init;
  return fetch(new URL(path, li.url), {
    ...rest,
    headers: {
      authorization: `Bearer ${token}`,
      'x-restli-protocol-version': '2.0.0',
      ...(version !== null && { 'linkedin-version': version }),
      ...(rest.body && { 'content-type': 'application/json' }),
      ...(init.headers as Record<string, string>),
    },
  });
}

function postBody(commentary: string, extra: Record<string, unknown> = {}) {
  return {
    author: member,
    commentary,
    visibility: 'PUBLIC',
    distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
    lifecycleState: 'PUBLISHED',
    isReshareDisabledByAuthor: false,
    ...extra,
  };
}

function createPost(token: string, body: unknown, init: { version?: string | null } = {}) {
  return rest('/rest/posts', token, { method: 'POST', body: JSON.stringify(body), ...init });
}

async function uploadImage(token: string) {
  const init = await rest('/rest/images?action=initializeUpload', token, {
    method: 'POST',
    body: JSON.stringify({ initializeUploadRequest: { owner: member } }),
  });
  expect(init.status).toBe(200);
  const { value } = (await init.json()) as any;
  expect(new URL(value.uploadUrl).origin).toBe(li.url);
  const put = await fetch(value.uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: randomBytes(12),
  });
  expect(put.status).toBe(201);
  return value.image as string;
}

async function startVideo(token: string, size: number) {
  const init = await rest('/rest/videos?action=initializeUpload', token, {
    method: 'POST',
    body: JSON.stringify({
      initializeUploadRequest: { owner: member, fileSizeBytes: size, uploadCaptions: false, uploadThumbnail: false },
    }),
  });
  expect(init.status).toBe(200);
  return ((await init.json()) as any).value as {
    video: string;
    uploadToken: string;
    uploadInstructions: Array<{ uploadUrl: string; firstByte: number; lastByte: number }>;
  };
}

async function putParts(instructions: Array<{ uploadUrl: string; firstByte: number; lastByte: number }>, file: Buffer) {
  const etags: string[] = [];
  for (const part of instructions) {
    const put = await fetch(part.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: file.subarray(part.firstByte, part.lastByte + 1),
    });
    expect(put.status).toBe(200);
    etags.push(put.headers.get('etag')!);
  }
  return etags;
}

function finalizeVideo(token: string, video: string, uploadToken: string, uploadedPartIds: string[]) {
  return rest('/rest/videos?action=finalizeUpload', token, {
    method: 'POST',
    body: JSON.stringify({ finalizeUploadRequest: { video, uploadToken, uploadedPartIds } }),
  });
}

async function videoStatus(token: string, video: string) {
  return ((await (await rest(`/rest/videos/${encodeURIComponent(video)}`, token)).json()) as any).status;
}

describe('fake LinkedIn: OAuth and OpenID userinfo', () => {
  it('runs the whole flow: authorize, 302 with code and state, token exchange, userinfo', async () => {
    const { response, location } = await authorize();
    expect(response.status).toBe(302);
    expect(location!.searchParams.get('state')).toBe('st-1');
    const tokens = await connect();
    expect(tokens).toMatchObject({ expires_in: 5_184_000, scope: 'openid,profile,email,w_member_social' });
    expect(tokens.refresh_token).toBeUndefined();
    const info = await fetch(new URL('/v2/userinfo', li.url), {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(await info.json()).toMatchObject({ sub: li.members[0]!.sub, name: 'Fake Member', given_name: 'Fake' });
  });

  it('redirects with the cancellation error when the member refuses, and refuses unapproved scopes', async () => {
    li.script.denyConsent();
    const denied = await authorize();
    expect(denied.location!.searchParams.get('error')).toBe('user_cancelled_authorize');
    expect(denied.location!.searchParams.get('state')).toBe('st-1');
    li.script.denyConsent(false);
    const scoped = await authorize({ scope: 'openid w_organization_social' });
    expect(scoped.location!.searchParams.get('error')).toBe('unauthorized_scope_error');
    const commaJoined = await authorize({ scope: 'openid,profile' });
    expect(commaJoined.location!.searchParams.get('error')).toBe('unauthorized_scope_error');
    expect((await authorize({ client_id: 'nobody' })).response.status).toBe(400);
  });

  it('refuses a wrong client secret, a second use of a code and a different redirect_uri', async () => {
    const { location } = await authorize();
    const form = {
      grant_type: 'authorization_code',
      code: location!.searchParams.get('code')!,
      redirect_uri: REDIRECT_URI,
      client_id: li.clientId,
      client_secret: 'wrong',
    };
    const wrongSecret = await tokenCall(form);
    expect(wrongSecret.status).toBe(401);
    expect(((await wrongSecret.json()) as any).error).toBe('invalid_client');
    expect((await tokenCall({ ...form, client_secret: li.clientSecret })).status).toBe(200);
    expect((await tokenCall({ ...form, client_secret: li.clientSecret })).status).toBe(400);
    const other = await authorize();
    const mismatch = await tokenCall({
      ...form,
      code: other.location!.searchParams.get('code')!,
      client_secret: li.clientSecret,
      redirect_uri: 'http://127.0.0.1:9/elsewhere',
    });
    expect(mismatch.status).toBe(400);
  });

  it('gives refresh tokens only when scripted, kept across refreshes without extending them', async () => {
    li.script.issueRefreshTokens();
    const tokens = await connect();
    expect(tokens.refresh_token_expires_in).toBe(365 * 86_400);
    li.clock.advance(10 * 86_400_000);
    const refreshed = await tokenCall({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: li.clientId,
      client_secret: li.clientSecret,
    });
    const body = (await refreshed.json()) as any;
    expect(body.access_token).not.toBe(tokens.access_token);
    expect(body.refresh_token).toBe(tokens.refresh_token);
    expect(body.refresh_token_expires_in).toBe(355 * 86_400);
  });

  it('expires access tokens after 60 days on the clock: 401 65600', async () => {
    const { access_token: token } = await connect();
    li.clock.advance(60 * 86_400_000);
    const expired = await createPost(token, postBody('late'));
    expect(expired.status).toBe(401);
    expect(await expired.json()).toMatchObject({ status: 401, serviceErrorCode: 65600 });
  });

  it('revokes one token at the revoke endpoint, with client credentials in the form', async () => {
    const { access_token: token } = await connect();
    const revoke = await fetch(new URL('/oauth/v2/revoke', li.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: li.clientId, client_secret: li.clientSecret }),
    });
    expect(revoke.status).toBe(200);
    expect(((await (await createPost(token, postBody('gone'))).json()) as any).serviceErrorCode).toBe(65601);
  });

  it('revokes: the next call is 401 65601 REVOKED_ACCESS_TOKEN', async () => {
    const { access_token: token } = await connect();
    li.script.revoke(li.members[0]!.sub);
    const revoked = await createPost(token, postBody('after revoke'));
    expect(revoked.status).toBe(401);
    expect(await revoked.json()).toEqual({
      status: 401,
      serviceErrorCode: 65601,
      code: 'REVOKED_ACCESS_TOKEN',
      message: 'The token used in the request has been revoked by the user',
    });
  });
});

describe('fake LinkedIn: REST headers and posts', () => {
  let token: string;
  beforeEach(() => {
    token = li.issueTokens(li.members[0]!.sub).accessToken;
  });

  it('creates a post: 201, empty body, x-restli-id, commentary kept exactly as sent', async () => {
    const commentary = 'Launch day \\#1 \\(beta\\) \\@team';
    const created = await createPost(token, postBody(commentary));
    expect(created.status).toBe(201);
    expect(await created.text()).toBe('');
    const urn = created.headers.get('x-restli-id');
    expect(urn).toMatch(/^urn:li:share:\d+$/);
    expect(li.posts).toEqual([expect.objectContaining({ urn, commentary, author: member })]);
    expect(li.log.creates()).toHaveLength(1);
    const read = await rest(`/rest/posts/${encodeURIComponent(urn!)}`, token);
    expect(((await read.json()) as any).commentary).toBe(commentary);
  });

  it('requires LinkedIn-Version, refuses a retired one with 426, and requires the Rest.li protocol header', async () => {
    const missing = await createPost(token, postBody('no version'), { version: null });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ code: 'VERSION_MISSING' });
    const stale = await createPost(token, postBody('old version'), { version: '202404' });
    expect(stale.status).toBe(426);
    expect(await stale.json()).toEqual({
      status: 426,
      code: 'NONEXISTENT_VERSION',
      message: 'Requested version 20240401 is not active',
    });
    const noProtocol = await fetch(new URL('/rest/posts', li.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'linkedin-version': VERSION, 'content-type': 'application/json' },
      body: JSON.stringify(postBody('no protocol')),
    });
    expect(noProtocol.status).toBe(400);
    expect(li.posts).toHaveLength(0);
    expect(li.activeVersions()).toContain('202507');
    expect(li.activeVersions()).not.toContain('202506');
  });

  it('refuses another member as author, an unknown field and a missing distribution', async () => {
    const other = `urn:li:person:${li.members[1]!.sub}`;
    expect((await createPost(token, postBody('not mine', { author: other }))).status).toBe(403);
    const unknown = await createPost(token, postBody('typo', { visibilty: 'PUBLIC' }));
    expect(unknown.status).toBe(422);
    const { distribution: _distribution, ...withoutDistribution } = postBody('no distribution');
    const missing = await createPost(token, withoutDistribution);
    expect(missing.status).toBe(422);
    expect(((await missing.json()) as any).errorDetails.inputErrors[0].input.inputPath.fieldPath).toBe('/distribution');
  });

  it('refuses the same commentary twice with 422 DUPLICATE_POST', async () => {
    const first = await createPost(token, postBody('same words'));
    const duplicate = await createPost(token, postBody('same words'));
    expect(duplicate.status).toBe(422);
    const body = (await duplicate.json()) as any;
    expect(body.errorDetails.inputErrors[0].code).toBe('DUPLICATE_POST');
    expect(body.message).toContain(first.headers.get('x-restli-id'));
  });

  it('answers 429 without rate-limit headers, then serves again', async () => {
    li.script.rateLimit('posts.create', 1);
    const limited = await createPost(token, postBody('throttled'));
    expect(limited.status).toBe(429);
    expect([...limited.headers.keys()].filter((name) => name.includes('rate'))).toEqual([]);
    expect((await createPost(token, postBody('throttled'))).status).toBe(201);
  });

  it('answers 503 for the next N calls, then succeeds', async () => {
    li.script.unavailable('posts.create', 2);
    expect((await createPost(token, postBody('flaky'))).status).toBe(503);
    expect((await createPost(token, postBody('flaky'))).status).toBe(503);
    expect((await createPost(token, postBody('flaky'))).status).toBe(201);
    expect(li.log.calls('posts.create')).toHaveLength(3);
    expect(li.log.creates()).toHaveLength(1);
  });

  it('stores the post, then drops the connection without an answer', async () => {
    li.script.dropAfterStore();
    await expect(createPost(token, postBody('answer lost'))).rejects.toMatchObject({
      message: 'fetch failed',
      cause: { code: 'UND_ERR_SOCKET' },
    });
    expect(li.posts.map((post) => post.commentary)).toEqual(['answer lost']);
    expect(li.log.creates()[0]).toMatchObject({ dropped: true, status: null });
  });
});

describe('fake LinkedIn: images and videos', () => {
  let token: string;
  beforeEach(() => {
    token = li.issueTokens(li.members[0]!.sub).accessToken;
  });

  it('uploads images to URLs on the fake host and posts one or several', async () => {
    const first = await uploadImage(token);
    const second = await uploadImage(token);
    const single = await createPost(token, postBody('one image', { content: { media: { id: first } } }));
    expect(single.status).toBe(201);
    const multi = await createPost(
      token,
      postBody('two images', { content: { multiImage: { images: [{ id: first }, { id: second }] } } }),
    );
    expect(multi.status).toBe(201);
  });

  it('refuses a post whose image was never uploaded', async () => {
    const init = await rest('/rest/images?action=initializeUpload', token, {
      method: 'POST',
      body: JSON.stringify({ initializeUploadRequest: { owner: member } }),
    });
    const { value } = (await init.json()) as any;
    const refused = await createPost(token, postBody('not yet', { content: { media: { id: value.image } } }));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as any).message).toContain('WAITING_UPLOAD');
  });

  it('splits a video into parts, checks the ETags at finalize, then PROCESSING to AVAILABLE', async () => {
    const file = randomBytes(20);
    const upload = await startVideo(token, file.length);
    expect(upload.uploadInstructions.map((part) => [part.firstByte, part.lastByte])).toEqual([
      [0, 7],
      [8, 15],
      [16, 19],
    ]);
    const etags = await putParts(upload.uploadInstructions, file);
    expect(await videoStatus(token, upload.video)).toBe('WAITING_UPLOAD');
    expect((await finalizeVideo(token, upload.video, upload.uploadToken, [...etags].reverse())).status).toBe(400);
    expect((await finalizeVideo(token, upload.video, upload.uploadToken, etags.slice(0, 2))).status).toBe(400);
    expect((await finalizeVideo(token, upload.video, upload.uploadToken, etags)).status).toBe(200);
    const early = await createPost(token, postBody('video soon', { content: { media: { id: upload.video } } }));
    expect(early.status).toBe(400);
    expect(await videoStatus(token, upload.video)).toBe('PROCESSING');
    expect(await videoStatus(token, upload.video)).toBe('AVAILABLE');
    const posted = await createPost(token, postBody('video', { content: { media: { id: upload.video } } }));
    expect(posted.status).toBe(201);
    expect(li.log.calls('videos.finalize').map((entry) => entry.status)).toEqual([400, 400, 200]);
  });

  it('refuses a part of the wrong size, and reports PROCESSING_FAILED on the clock when scripted', async () => {
    li.script.videoProcessing({ advance: 'clock', steps: 30, outcome: 'PROCESSING_FAILED' });
    const file = randomBytes(6);
    const upload = await startVideo(token, file.length);
    const short = await fetch(upload.uploadInstructions[0]!.uploadUrl, { method: 'PUT', body: file.subarray(0, 5) });
    expect(short.status).toBe(400);
    const etags = await putParts(upload.uploadInstructions, file);
    expect((await finalizeVideo(token, upload.video, upload.uploadToken, etags)).status).toBe(200);
    expect(await videoStatus(token, upload.video)).toBe('PROCESSING');
    li.clock.advance(30_000);
    const failed = (await (await rest(`/rest/videos/${encodeURIComponent(upload.video)}`, token)).json()) as any;
    expect(failed).toMatchObject({ status: 'PROCESSING_FAILED', processingFailureReason: expect.any(String) });
  });
});
