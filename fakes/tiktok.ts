/**
 * A local fake of TikTok (Login Kit v2 and the Content Posting API on one origin) for tests and the
 * development mode. It checks each request the way TikTok documents it and answers TikTok's own
 * envelopes (`{data, error: {code, message, log_id}}` on every API answer, `{error,
 * error_description, log_id}` on the OAuth endpoints): comma-separated scopes and `client_key`,
 * rotating refresh tokens, the fields each scope allows on user info, the privacy levels of an audited
 * or unaudited app, TikTok's chunk rules on FILE_UPLOAD (sizes, Content-Range, order), photos it
 * really downloads from their URLs, `init` limited to 6 a minute per user, and publishes that move
 * through their statuses on the clock, the public post id possibly arriving much later.
 */
import { randomBytes } from 'node:crypto';
import { createFakeClock, type FakeClock } from './shared/clock.ts';
import {
  bearerToken,
  FakeRouter,
  FaultScript,
  isRedirectableUri,
  jsonObject,
  redirectTo,
  RequestLog,
  startFakeServer,
  type FakeRequest,
  type Handler,
  type Reply,
} from './shared/http-fake.ts';
import { TokenStore, type IssuedTokens } from './shared/token-store.ts';
import {
  accessTokenInvalid,
  apiAnswer,
  apiError,
  internalError,
  invalidParams,
  notFound,
  oauthError,
  rateLimitExceeded,
  scopeNotAuthorized,
} from './tiktok-errors.ts';
import {
  DEFAULT_PUBLISH_PROCESSING,
  TikTokPublishStore,
  type PublishProcessingScript,
  type TikTokPublish,
} from './tiktok-publish.ts';

export type { PublishProcessingScript, TikTokPublish } from './tiktok-publish.ts';

export interface FakeTikTokUser {
  open_id: string;
  union_id: string;
  username: string;
  display_name: string;
  avatar_url: string;
  /** A private account is offered FOLLOWER_OF_CREATOR instead of PUBLIC_TO_EVERYONE. */
  privateAccount?: boolean;
}

export type TikTokRoute =
  | 'authorize'
  | 'token'
  | 'revoke'
  | 'user.info'
  | 'creator_info.query'
  | 'video.init'
  | 'video.upload'
  | 'content.init'
  | 'status.fetch';

type InitRoute = 'video.init' | 'content.init';

export const TIKTOK_SCOPES = [
  'user.info.basic',
  'user.info.profile',
  'user.info.stats',
  'video.list',
  'video.publish',
  'video.upload',
] as const;

/** Which scope each user-info field needs (TikTok moved `username` to user.info.profile in 2024). */
const FIELD_SCOPES: Record<string, string> = {
  open_id: 'user.info.basic',
  union_id: 'user.info.basic',
  avatar_url: 'user.info.basic',
  avatar_url_100: 'user.info.basic',
  avatar_large_url: 'user.info.basic',
  display_name: 'user.info.basic',
  bio_description: 'user.info.profile',
  profile_deep_link: 'user.info.profile',
  is_verified: 'user.info.profile',
  username: 'user.info.profile',
  follower_count: 'user.info.stats',
  following_count: 'user.info.stats',
  likes_count: 'user.info.stats',
  video_count: 'user.info.stats',
};

/** Per user and minute, as TikTok documents them. */
const INIT_PER_MINUTE = 6;
const STATUS_PER_MINUTE = 30;

/** The HTTP status TikTok answers with each error code a test may script. */
const CODE_STATUS: Record<string, number> = {
  access_token_invalid: 401,
  scope_not_authorized: 401,
  rate_limit_exceeded: 429,
  internal_error: 500,
  invalid_params: 400,
};

export interface FakeTikTokOptions {
  port?: number;
  host?: string;
  now?: () => number;
  clientKey?: string;
  clientSecret?: string;
  /** Registered redirect URLs; when empty, any absolute http(s) URL is accepted. */
  redirectUris?: string[];
  users?: FakeTikTokUser[];
  /** Scopes the app is approved for; others are refused at the consent step. */
  authorizedScopes?: string[];
  /** An app that has not passed TikTok's audit is offered SELF_ONLY alone. Audited by default. */
  audited?: boolean;
  /** URL prefixes verified for PULL_FROM_URL; by default every URL counts as verified. */
  verifiedUrlPrefixes?: string[];
  accessTokenTtlSecs?: number;
  refreshTokenTtlSecs?: number;
  publishProcessing?: Partial<PublishProcessingScript>;
}

export interface FakeTikTok {
  url: string;
  clientKey: string;
  clientSecret: string;
  clock: FakeClock;
  log: RequestLog;
  users: FakeTikTokUser[];
  publishes: Map<string, TikTokPublish>;
  script: {
    loginAs(openId: string): void;
    /** The user cancels: the redirect carries `error=access_denied`. */
    denyConsent(deny?: boolean): void;
    /** The user removes the app: every token of theirs is refused from then on. */
    revoke(openId: string): void;
    /** The next `count` calls to `route` answer 429 `rate_limit_exceeded`. */
    rateLimit(route: TikTokRoute, count: number): void;
    /** The next `count` calls to `route` answer 500 `internal_error`. */
    unavailable(route: TikTokRoute, count: number): void;
    /** The next `count` calls to `route` answer TikTok error `code` (403 unless the code says otherwise). */
    failWith(route: TikTokRoute, code: string, count?: number): void;
    stall(route: TikTokRoute, count?: number): void;
    /** The next `count` inits on `route` create the publish, then close the socket without an answer. */
    dropAfterStore(count?: number, route?: InitRoute): void;
    /** How publishes initialized from now on proceed. */
    publishProcessing(script: Partial<PublishProcessingScript>): void;
    /** Whether the app has passed TikTok's audit. */
    audited(audited?: boolean): void;
    /** Publishes from now on end in the creator's inbox (SEND_TO_USER_INBOX). */
    inbox(inbox?: boolean): void;
    /** Moderation of `publishId` ends now: its public post id appears. Answers the id. */
    makePublic(publishId: string): string;
  };
  issueTokens(openId: string, scopes?: string[]): IssuedTokens;
  close(): Promise<void>;
}

const DEFAULT_USERS: FakeTikTokUser[] = [
  {
    open_id: '-000fAkEoPeNiD1',
    union_id: 'c9b1-fake-union-1',
    username: 'fake.creator',
    display_name: 'Fake Creator',
    avatar_url: 'https://p16-sign.tiktokcdn.invalid/fake-creator.jpeg',
  },
  {
    open_id: '-000oThEroPeN2',
    union_id: 'c9b1-fake-union-2',
    username: 'other.creator',
    display_name: 'Other Creator',
    avatar_url: 'https://p16-sign.tiktokcdn.invalid/other-creator.jpeg',
    privateAccount: true,
  },
];

export async function startFakeTikTok(options: FakeTikTokOptions = {}): Promise<FakeTikTok> {
  const clock = createFakeClock(options.now);
  const log = new RequestLog();
  const faults = new FaultScript();
  const clientKey = options.clientKey ?? `awfake${randomBytes(6).toString('hex')}`;
  const clientSecret = options.clientSecret ?? randomBytes(16).toString('base64url');
  const users = options.users ?? DEFAULT_USERS;
  const authorizedScopes = options.authorizedScopes ?? [...TIKTOK_SCOPES];
  const tokens = new TokenStore(clock, {
    prefix: 'act',
    accessTtlSecs: options.accessTokenTtlSecs ?? 2 * 3600,
    codeTtlSecs: 5 * 60,
    refreshTtlSecs: options.refreshTokenTtlSecs ?? 180 * 86_400,
    rotateRefresh: true,
  });
  let baseUrl = '';
  const store = new TikTokPublishStore(clock, () => baseUrl);
  store.processing = { ...DEFAULT_PUBLISH_PROCESSING, ...options.publishProcessing };
  const state = { openId: users[0]!.open_id, deny: false, audited: options.audited ?? true };
  const calls = new Map<string, number[]>();

  /** Whether `key` is past `limit` calls in the last minute of the clock; counts this call. */
  const overLimit = (key: string, limit: number): boolean => {
    const now = clock.now();
    const recent = (calls.get(key) ?? []).filter((at) => now - at < 60_000);
    recent.push(now);
    calls.set(key, recent);
    return recent.length > limit;
  };

  const privacyOptions = (user: FakeTikTokUser): string[] => {
    if (!state.audited) return ['SELF_ONLY'];
    return user.privateAccount
      ? ['FOLLOWER_OF_CREATOR', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY']
      : ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'];
  };

  const authorize = (request: FakeRequest): Reply => {
    const q = request.query;
    if (q.client_key !== clientKey) return { status: 400, text: 'Something went wrong: client_key is not valid.' };
    if (!isRedirectableUri(q.redirect_uri))
      return { status: 400, text: 'Something went wrong: redirect_uri is not valid.' };
    if (options.redirectUris?.length && !options.redirectUris.includes(q.redirect_uri)) {
      return { status: 400, text: 'Something went wrong: redirect_uri does not match the registered value.' };
    }
    const back = (error: string, description: string) =>
      redirectTo(q.redirect_uri!, { error, error_description: description, ...(q.state && { state: q.state }) });
    if (q.response_type !== 'code') return back('unsupported_response_type', 'response_type must be code');
    if (!q.state) return back('invalid_request', 'state is required');
    // TikTok separates scopes with commas; a space-separated list is one unknown scope.
    const scopes = (q.scope ?? '').split(',').filter(Boolean);
    if (scopes.length === 0) return back('invalid_scope', 'scope is required');
    const refused = scopes.find((scope) => !authorizedScopes.includes(scope));
    if (refused) return back('invalid_scope', `The scope ${refused} is not authorized for this app`);
    if (state.deny) return back('access_denied', 'The user denied the authorization');
    const code = tokens.issueCode({ userId: state.openId, scopes, clientId: clientKey, redirectUri: q.redirect_uri });
    return redirectTo(q.redirect_uri, { code, scopes: scopes.join(','), state: q.state });
  };

  const token = (request: FakeRequest): Reply => {
    if (request.body.kind !== 'form') {
      return oauthError(400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded');
    }
    const form = request.body.fields;
    if (form.grant_type !== 'authorization_code' && form.grant_type !== 'refresh_token') {
      return oauthError(400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
    }
    const needed = form.grant_type === 'authorization_code' ? ['code', 'redirect_uri'] : ['refresh_token'];
    for (const name of ['client_key', 'client_secret', ...needed]) {
      if (!form[name]) return oauthError(400, 'invalid_request', `The request parameter ${name} is missing`);
    }
    if (form.client_key !== clientKey || form.client_secret !== clientSecret) {
      return oauthError(401, 'invalid_client', 'Client key or secret is incorrect');
    }
    if (form.grant_type === 'refresh_token') {
      const refreshed = tokens.useRefreshToken(form.refresh_token!);
      if (!refreshed.ok) return oauthError(400, 'invalid_grant', 'Refresh token is invalid or expired');
      return tokenAnswer(refreshed.tokens, tokens);
    }
    const redeemed = tokens.redeemCode(form.code!);
    if (!redeemed.ok || redeemed.code.redirectUri !== form.redirect_uri || redeemed.code.clientId !== clientKey) {
      return oauthError(
        400,
        'invalid_grant',
        'Authorization code is expired, used, or was issued for another redirect_uri',
      );
    }
    return tokenAnswer(tokens.issue({ userId: redeemed.code.userId, scopes: redeemed.code.scopes }, true), tokens);
  };

  const revoke = (request: FakeRequest): Reply => {
    if (request.body.kind !== 'form') return oauthError(400, 'invalid_request', 'Content-Type must be form-encoded');
    const form = request.body.fields;
    if (form.client_key !== clientKey || form.client_secret !== clientSecret) {
      return oauthError(401, 'invalid_client', 'Client key or secret is incorrect');
    }
    if (!form.token) return oauthError(400, 'invalid_request', 'The request parameter token is missing');
    tokens.revokeToken(form.token);
    return { status: 200, json: {} };
  };

  /** The user behind the bearer token and what they granted, or TikTok's 401. */
  const authenticate = (request: FakeRequest, scope: string): { user: FakeTikTokUser; scopes: string[] } | Reply => {
    const access = tokens.check(bearerToken(request));
    if (!access.ok) return accessTokenInvalid();
    const user = users.find((candidate) => candidate.open_id === access.userId);
    if (!user) return accessTokenInvalid();
    if (!access.scopes.includes(scope)) return scopeNotAuthorized(scope);
    return { user, scopes: access.scopes };
  };

  /** A Content Posting call: trailing slash, token and scope, a JSON body, then the handler. */
  const posting =
    (
      scope: string,
      handler: (
        request: FakeRequest,
        user: FakeTikTokUser,
        scopes: string[],
        body: Record<string, unknown>,
      ) => Reply | Promise<Reply>,
    ): Handler =>
    (request) => {
      if (!request.path.endsWith('/')) return notFound();
      const auth = authenticate(request, scope);
      if ('status' in auth || 'drop' in auth) return auth;
      if (!(request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) {
        return invalidParams('Content-Type must be application/json; charset=UTF-8.');
      }
      const body = request.body.kind === 'none' ? {} : jsonObject(request);
      if (!body) return invalidParams('The body must be a JSON object.');
      return handler(request, auth.user, auth.scopes, body);
    };

  const userInfo = (request: FakeRequest): Reply => {
    if (!request.path.endsWith('/')) return notFound();
    const access = tokens.check(bearerToken(request));
    if (!access.ok) return accessTokenInvalid();
    const user = users.find((candidate) => candidate.open_id === access.userId);
    if (!user) return accessTokenInvalid();
    const fields = (request.query.fields ?? '').split(',').filter(Boolean);
    if (fields.length === 0) return invalidParams('The fields query parameter is required.');
    const unknown = fields.find((field) => !(field in FIELD_SCOPES));
    if (unknown) return invalidParams(`Unknown user field: ${unknown}.`);
    const missing = fields.map((field) => FIELD_SCOPES[field]!).find((scope) => !access.scopes.includes(scope));
    if (missing) return scopeNotAuthorized(missing);
    const values: Record<string, unknown> = {
      ...user,
      avatar_url_100: user.avatar_url,
      avatar_large_url: user.avatar_url,
      bio_description: '',
      profile_deep_link: `https://vm.tiktok.invalid/${user.username}`,
      is_verified: false,
      follower_count: 0,
      following_count: 0,
      likes_count: 0,
      video_count: 0,
    };
    return apiAnswer({ user: Object.fromEntries(fields.map((field) => [field, values[field]])) });
  };

  const creatorInfo = posting('video.publish', (_request, user) =>
    apiAnswer({
      creator_avatar_url: user.avatar_url,
      creator_username: user.username,
      creator_nickname: user.display_name,
      privacy_level_options: privacyOptions(user),
      comment_disabled: false,
      duet_disabled: false,
      stitch_disabled: false,
      max_video_post_duration_sec: 600,
    }),
  );

  const init = (route: InitRoute) =>
    posting('video.publish', async (_request, user, scopes, body) => {
      if (overLimit(`init:${user.open_id}`, INIT_PER_MINUTE)) return rateLimitExceeded();
      const context = {
        openId: user.open_id,
        privacyOptions: privacyOptions(user),
        audited: state.audited,
        verifiedUrlPrefixes: options.verifiedUrlPrefixes,
        scopes,
      };
      const reply =
        route === 'video.init' ? await store.initVideo(body, context) : await store.initPhotos(body, context);
      if (!('status' in reply) || reply.status !== 200) return reply;
      if (faults.takeDrop(route)) return { drop: true, createdPost: true };
      return { ...reply, createdPost: true };
    });

  const statusFetch = posting('video.publish', (_request, user, _scopes, body) => {
    if (overLimit(`status:${user.open_id}`, STATUS_PER_MINUTE)) return rateLimitExceeded();
    if (typeof body.publish_id !== 'string' || !body.publish_id) return invalidParams('publish_id is required.');
    const publish = store.publishes.get(body.publish_id);
    if (!publish) return apiError(400, 'invalid_publish_id', 'The publish_id does not exist.');
    if (publish.openId !== user.open_id) {
      return apiError(401, 'token_not_authorized_for_specified_publish_id', 'The token may not read this publish_id.');
    }
    return store.fetchStatus(publish);
  });

  const router = new FakeRouter()
    .add('GET', '/v2/auth/authorize/', 'authorize', authorize)
    .add('POST', '/v2/oauth/token/', 'token', token)
    .add('POST', '/v2/oauth/revoke/', 'revoke', revoke)
    .add('GET', '/v2/user/info/', 'user.info', userInfo)
    .add('POST', '/v2/post/publish/creator_info/query/', 'creator_info.query', creatorInfo)
    .add('POST', '/v2/post/publish/video/init/', 'video.init', init('video.init'))
    .add('POST', '/v2/post/publish/content/init/', 'content.init', init('content.init'))
    .add('POST', '/v2/post/publish/status/fetch/', 'status.fetch', statusFetch)
    .add('PUT', '/upload/video/:publishId', 'video.upload', (request) => store.uploadChunk(request));

  const server = await startFakeServer({
    router,
    clock,
    log,
    faults,
    notFound: () => notFound(),
    port: options.port,
    host: options.host,
  });
  baseUrl = server.url;

  return {
    url: server.url,
    clientKey,
    clientSecret,
    clock,
    log,
    users,
    publishes: store.publishes,
    script: {
      loginAs: (openId) => {
        if (!users.some((user) => user.open_id === openId)) throw new Error(`No fake TikTok user ${openId}`);
        state.openId = openId;
      },
      denyConsent: (deny = true) => {
        state.deny = deny;
      },
      revoke: (openId) => tokens.revokeUser(openId),
      rateLimit: (route, count) => faults.failNext(route, count, rateLimitExceeded),
      unavailable: (route, count) => faults.failNext(route, count, internalError),
      failWith: (route, code, count = 1) =>
        faults.failNext(route, count, () => apiError(CODE_STATUS[code] ?? 403, code, `Scripted TikTok error ${code}.`)),
      stall: (route, count = 1) => faults.stallNext(route, count),
      dropAfterStore: (count = 1, route = 'video.init') => faults.dropAfterStore(route, count),
      publishProcessing: (script) => {
        store.processing = { ...store.processing, ...script };
      },
      audited: (audited = true) => {
        state.audited = audited;
      },
      inbox: (inbox = true) => {
        store.processing = { ...store.processing, outcome: inbox ? 'SEND_TO_USER_INBOX' : 'PUBLISH_COMPLETE' };
      },
      makePublic: (publishId) => store.makePublic(publishId),
    },
    issueTokens: (openId, scopes = ['user.info.basic', 'video.publish']) =>
      tokens.issue({ userId: openId, scopes }, true),
    close: server.close,
  };
}

/** TikTok's token answer: the open id with the pair, and the refresh token's own lifetime. */
function tokenAnswer(issued: IssuedTokens, tokens: TokenStore): Reply {
  const access = tokens.check(issued.accessToken);
  return {
    status: 200,
    json: {
      access_token: issued.accessToken,
      expires_in: issued.expiresIn,
      open_id: access.ok ? access.userId : '',
      refresh_expires_in: issued.refreshExpiresIn,
      refresh_token: issued.refreshToken,
      scope: issued.scopes.join(','),
      token_type: 'Bearer',
    },
  };
}
