/**
 * A local fake of X (auth pages and API v2 on one origin) for tests and the development mode. It
 * checks each request the way the documented API does and answers X's own error bodies, so a
 * connector proven against it has met the real contract: PKCE S256 and HTTP Basic on the token call,
 * rotating refresh tokens, problem+json 401s, chunked media with processing states, the 403 duplicate.
 */
import { randomBytes } from 'node:crypto';
import twitterText from 'twitter-text';
import { createFakeClock, type FakeClock } from './shared/clock.ts';
import {
  basicCredentials,
  bearerToken,
  FakeRouter,
  FaultScript,
  isRedirectableUri,
  jsonObject,
  redirectTo,
  RequestLog,
  startFakeServer,
  type FakeRequest,
  type Reply,
} from './shared/http-fake.ts';
import { numericId, PKCE_VERIFIER, pkceS256, TokenStore, type IssuedTokens } from './shared/token-store.ts';
import { DEFAULT_PROCESSING, XMediaStore, type MediaProcessingScript, type XMedia } from './x-media.ts';
import {
  forbidden,
  invalidRequest,
  notFound,
  oauthError,
  problem,
  serviceUnavailable,
  tooManyRequests,
  unauthorized,
} from './x-problems.ts';

export type { MediaProcessingScript, XMedia } from './x-media.ts';

export interface FakeXUser {
  id: string;
  name: string;
  username: string;
}

export interface StoredTweet {
  id: string;
  authorId: string;
  /** As X answers it: with a media attachment, a t.co link is appended to the text sent. */
  text: string;
  /** As the client sent it. */
  sentText: string;
  mediaIds: string[];
  createdAt: number;
}

export type XRoute =
  | 'authorize'
  | 'token'
  | 'revoke'
  | 'users.me'
  | 'users.tweets'
  | 'tweets.create'
  | 'media.initialize'
  | 'media.append'
  | 'media.finalize'
  | 'media.status'
  | 'media.metadata';

export const X_SCOPES = [
  'tweet.read',
  'tweet.write',
  'tweet.moderate.write',
  'users.read',
  'follows.read',
  'follows.write',
  'offline.access',
  'space.read',
  'mute.read',
  'mute.write',
  'like.read',
  'like.write',
  'list.read',
  'list.write',
  'block.read',
  'block.write',
  'bookmark.read',
  'bookmark.write',
  'media.write',
] as const;

/** The 15-minute window limits answered in the rate-limit headers, per user. */
const WINDOW_LIMITS: Partial<Record<XRoute, number>> = {
  'tweets.create': 100,
  'users.me': 75,
  'users.tweets': 900,
  'media.initialize': 500,
  'media.append': 500,
  'media.finalize': 500,
  'media.status': 500,
  'media.metadata': 500,
};

/** What each route needs granted, as X's reference lists it. */
const REQUIRED_SCOPES: Partial<Record<XRoute, string[]>> = {
  'users.me': ['tweet.read', 'users.read'],
  'users.tweets': ['tweet.read', 'users.read'],
  'tweets.create': ['tweet.read', 'tweet.write', 'users.read'],
  'media.initialize': ['media.write'],
  'media.append': ['media.write'],
  'media.finalize': ['media.write'],
  'media.status': ['media.write'],
  'media.metadata': ['media.write'],
};

const POST_FIELDS = new Set([
  'text',
  'media',
  'reply',
  'quote_tweet_id',
  'poll',
  'reply_settings',
  'for_super_followers_only',
  'direct_message_deep_link',
  'geo',
  'nullcast',
  'card_uri',
  'community_id',
  'share_with_followers',
  'made_with_ai',
  'paid_partnership',
]);

export interface FakeXOptions {
  port?: number;
  host?: string;
  /** The clock to start from (the service's test clock, say); the wall clock by default. */
  now?: () => number;
  clientId?: string;
  clientSecret?: string;
  /** Registered callback URLs; when empty, any absolute http(s) URL is accepted. */
  redirectUris?: string[];
  users?: FakeXUser[];
  accessTokenTtlSecs?: number;
  codeTtlSecs?: number;
  mediaProcessing?: MediaProcessingScript;
}

export interface FakeX {
  url: string;
  clientId: string;
  clientSecret: string;
  clock: FakeClock;
  log: RequestLog;
  users: FakeXUser[];
  posts: StoredTweet[];
  media: Map<string, XMedia>;
  script: {
    /** The user the consent page logs in as (the first user by default). */
    loginAs(userId: string): void;
    /** The user refuses consent: the authorize step redirects with `error=access_denied`. */
    denyConsent(deny?: boolean): void;
    /** The user revokes the app: their access and refresh tokens stop working. */
    revoke(userId: string): void;
    /** The next `count` calls to `route` answer 429 with X's headers; the reset defaults to 15 minutes on. */
    rateLimit(route: XRoute, count: number, options?: { resetAtSecs?: number; limit?: number }): void;
    /** The next `count` calls to `route` answer 503. */
    unavailable(route: XRoute, count: number): void;
    /** The next `count` calls to `route` are logged and never answered, as a hung platform. */
    stall(route: XRoute, count?: number): void;
    /** The next call to `route` is logged and held without an answer, then handled as usual once `release` is called. */
    hold(route: XRoute): { release(): void };
    /** The next `count` post creations store the post, then close the socket without an answer. */
    dropAfterStore(count?: number): void;
    /** How media finalized from now on is processed. */
    mediaProcessing(script: Partial<MediaProcessingScript>): void;
  };
  /** Tokens for `userId` without the consent dance, for tests about something else. */
  issueTokens(userId: string, scopes?: string[]): IssuedTokens;
  close(): Promise<void>;
}

const DEFAULT_USERS: FakeXUser[] = [
  { id: '1500000000000000001', name: 'Fake Author', username: 'fake_author' },
  { id: '1500000000000000002', name: 'Other Author', username: 'other_author' },
];

export async function startFakeX(options: FakeXOptions = {}): Promise<FakeX> {
  const clock = createFakeClock(options.now);
  const log = new RequestLog();
  const faults = new FaultScript();
  const clientId = options.clientId ?? `fake-x-client-${randomBytes(6).toString('hex')}`;
  const clientSecret = options.clientSecret ?? randomBytes(24).toString('base64url');
  const users = options.users ?? DEFAULT_USERS;
  const tokens = new TokenStore(clock, {
    prefix: 'fx',
    accessTtlSecs: options.accessTokenTtlSecs ?? 7200,
    codeTtlSecs: options.codeTtlSecs ?? 30,
    rotateRefresh: true,
  });
  const media = new XMediaStore(clock);
  media.processing = options.mediaProcessing ?? DEFAULT_PROCESSING;
  const posts: StoredTweet[] = [];
  const consent = { userId: users[0]!.id, deny: false };

  const authorize = (request: FakeRequest): Reply => {
    const q = request.query;
    // Without a trustworthy client and callback there is nowhere safe to redirect: answer a page.
    if (q.client_id !== clientId) return { status: 400, text: 'Invalid client_id.' };
    if (!isRedirectableUri(q.redirect_uri)) return { status: 400, text: 'Invalid redirect_uri.' };
    if (options.redirectUris?.length && !options.redirectUris.includes(q.redirect_uri)) {
      return { status: 400, text: 'redirect_uri does not match a registered callback URL.' };
    }
    const back = (error: string, description: string) =>
      redirectTo(q.redirect_uri!, { error, error_description: description, ...(q.state && { state: q.state }) });
    if (q.response_type !== 'code') return back('unsupported_response_type', 'response_type must be code.');
    if (!q.state || q.state.length > 500) return back('invalid_request', 'state is required (up to 500 characters).');
    const scopes = (q.scope ?? '').split(' ').filter(Boolean);
    if (scopes.length === 0) return back('invalid_scope', 'scope is required.');
    const unknown = scopes.filter((scope) => !(X_SCOPES as readonly string[]).includes(scope));
    if (unknown.length) return back('invalid_scope', `Unknown scope: ${unknown.join(' ')}.`);
    if (q.code_challenge_method !== 'S256') return back('invalid_request', 'code_challenge_method must be S256.');
    if (!/^[A-Za-z0-9_-]{43}$/.test(q.code_challenge ?? '')) {
      return back('invalid_request', 'code_challenge must be a base64url SHA-256 digest.');
    }
    if (consent.deny) return back('access_denied', 'The user denied the request.');
    const code = tokens.issueCode({
      userId: consent.userId,
      scopes,
      clientId,
      redirectUri: q.redirect_uri,
      codeChallenge: q.code_challenge!,
    });
    return redirectTo(q.redirect_uri, { state: q.state, code });
  };

  const token = (request: FakeRequest): Reply => {
    if (request.body.kind !== 'form') {
      return oauthError(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded.');
    }
    const credentials = basicCredentials(request);
    if (!credentials || credentials.id !== clientId || credentials.secret !== clientSecret) {
      return oauthError(401, 'unauthorized_client', 'Missing valid authorization header');
    }
    const form = request.body.fields;
    if (form.client_id !== undefined && form.client_id !== clientId) {
      return oauthError(400, 'invalid_request', 'client_id does not match the authorization header.');
    }
    if (form.grant_type === 'authorization_code') {
      for (const name of ['code', 'redirect_uri', 'code_verifier']) {
        if (!form[name]) return oauthError(400, 'invalid_request', `Missing required parameter [${name}].`);
      }
      const redeemed = tokens.redeemCode(form.code!);
      if (!redeemed.ok || redeemed.code.clientId !== clientId) {
        return oauthError(400, 'invalid_request', 'Value passed for the authorization code was invalid.');
      }
      if (redeemed.code.redirectUri !== form.redirect_uri) {
        return oauthError(
          400,
          'invalid_request',
          'Value passed for the redirect uri did not match the uri of the authorization code.',
        );
      }
      if (!PKCE_VERIFIER.test(form.code_verifier!) || pkceS256(form.code_verifier!) !== redeemed.code.codeChallenge) {
        return oauthError(
          400,
          'invalid_request',
          'Value passed for the code verifier did not match the code challenge.',
        );
      }
      const { userId, scopes } = redeemed.code;
      return tokenAnswer(tokens.issue({ userId, scopes }, scopes.includes('offline.access')));
    }
    if (form.grant_type === 'refresh_token') {
      if (!form.refresh_token) return oauthError(400, 'invalid_request', 'Missing required parameter [refresh_token].');
      const refreshed = tokens.useRefreshToken(form.refresh_token);
      if (!refreshed.ok) return oauthError(400, 'invalid_request', 'Value passed for the token was invalid.');
      return tokenAnswer(refreshed.tokens);
    }
    return oauthError(400, 'invalid_request', 'Value passed for the grant type was invalid.');
  };

  const revoke = (request: FakeRequest): Reply => {
    if (request.body.kind !== 'form') {
      return oauthError(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded.');
    }
    const credentials = basicCredentials(request);
    if (!credentials || credentials.id !== clientId || credentials.secret !== clientSecret) {
      return oauthError(401, 'unauthorized_client', 'Missing valid authorization header');
    }
    const value = request.body.fields.token;
    if (!value) return oauthError(400, 'invalid_request', 'Missing required parameter [token].');
    tokens.revokeToken(value);
    return { status: 200, json: { revoked: true } };
  };

  /** Bearer check then scope check; on success, the handler runs as the token's user. */
  const api =
    (route: XRoute, handler: (request: FakeRequest, user: FakeXUser) => Reply) =>
    (request: FakeRequest): Reply => {
      const access = tokens.check(bearerToken(request));
      if (!access.ok) return unauthorized();
      const missing = (REQUIRED_SCOPES[route] ?? []).filter((scope) => !access.scopes.includes(scope));
      if (missing.length) return forbidden(`Missing required scopes: ${missing.join(', ')}.`);
      const user = users.find((candidate) => candidate.id === access.userId);
      return user ? handler(request, user) : unauthorized();
    };

  const createTweet = (request: FakeRequest, user: FakeXUser): Reply => {
    const body = jsonObject(request);
    if (!body) return invalidRequest('Request body must be a JSON object.');
    const unknownField = Object.keys(body).find((name) => !POST_FIELDS.has(name));
    if (unknownField) {
      return invalidRequest(
        `$.${unknownField}: is not defined in the schema and the schema does not allow additional properties`,
      );
    }
    const { text, media: attached } = body;
    if (text !== undefined && typeof text !== 'string') return invalidRequest('$.text: string found, but expected');
    let mediaIds: string[] = [];
    if (attached !== undefined) {
      const ids = (attached as { media_ids?: unknown } | null)?.media_ids;
      const refusal = media.refuseForPost(ids, user.id);
      if (refusal) return invalidRequest(refusal, { media_ids: ids });
      mediaIds = ids as string[];
    }
    if (!text && mediaIds.length === 0) return invalidRequest('Either text or media is required.');
    if (text && twitterText.parseTweet(text).weightedLength > 280) {
      return forbidden(
        'Your Tweet text is too long. For more information on how X determines text length see https://github.com/twitter/twitter-text.',
      );
    }
    if (text && posts.some((post) => post.authorId === user.id && post.sentText === text)) {
      return forbidden('You are not allowed to create a Tweet with duplicate content.');
    }
    const id = numericId();
    const shown = mediaIds.length
      ? `${text ?? ''}${text ? ' ' : ''}https://t.co/${randomBytes(5).toString('hex')}`
      : text!;
    posts.push({ id, authorId: user.id, text: shown, sentText: text ?? '', mediaIds, createdAt: clock.now() });
    if (faults.takeDrop('tweets.create')) return { drop: true, createdPost: true };
    return {
      status: 201,
      json: { data: { id, text: shown, edit_history_tweet_ids: [id] } },
      headers: windowHeaders('tweets.create'),
      createdPost: true,
    };
  };

  const userTweets = (request: FakeRequest): Reply => {
    const authorId = request.params.id!;
    if (!/^[0-9]{1,19}$/.test(authorId)) return invalidRequest('The `id` query parameter value is not valid.');
    if (!users.some((user) => user.id === authorId)) return notFound();
    const max = request.query.max_results === undefined ? 10 : Number(request.query.max_results);
    if (!Number.isInteger(max) || max < 5 || max > 100) {
      return invalidRequest('The `max_results` query parameter value is not between 5 and 100.');
    }
    const startTime = request.query.start_time;
    if (startTime !== undefined && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/.test(startTime)) {
      return invalidRequest('The `start_time` query parameter value is not a valid RFC 3339 date-time.');
    }
    const since = startTime === undefined ? -Infinity : Date.parse(startTime);
    const withCreatedAt = (request.query['tweet.fields'] ?? '').split(',').includes('created_at');
    const recent = posts
      .filter((post) => post.authorId === authorId && post.createdAt >= since)
      .reverse()
      .slice(0, max)
      .map((post) => ({
        id: post.id,
        text: post.text,
        edit_history_tweet_ids: [post.id],
        ...(withCreatedAt && { created_at: new Date(post.createdAt).toISOString() }),
      }));
    if (recent.length === 0) return { status: 200, json: { meta: { result_count: 0 } } };
    return {
      status: 200,
      json: {
        data: recent,
        meta: { result_count: recent.length, newest_id: recent[0]!.id, oldest_id: recent[recent.length - 1]!.id },
      },
    };
  };

  const router = new FakeRouter()
    .add('GET', '/i/oauth2/authorize', 'authorize', authorize)
    .add('POST', '/2/oauth2/token', 'token', token)
    .add('POST', '/2/oauth2/revoke', 'revoke', revoke)
    .add(
      'GET',
      '/2/users/me',
      'users.me',
      api('users.me', (_request, user) => ({ status: 200, json: { data: user } })),
    )
    .add('GET', '/2/users/:id/tweets', 'users.tweets', api('users.tweets', userTweets))
    .add('POST', '/2/tweets', 'tweets.create', api('tweets.create', createTweet))
    .add(
      'POST',
      '/2/media/upload/initialize',
      'media.initialize',
      api('media.initialize', (request, user) => media.initialize(request, user.id)),
    )
    .add(
      'POST',
      '/2/media/upload/:id/append',
      'media.append',
      api('media.append', (request, user) => media.append(request, user.id)),
    )
    .add(
      'POST',
      '/2/media/upload/:id/finalize',
      'media.finalize',
      api('media.finalize', (request, user) => media.finalize(request, user.id)),
    )
    .add(
      'GET',
      '/2/media/upload',
      'media.status',
      api('media.status', (request, user) => media.status(request, user.id)),
    )
    .add(
      'POST',
      '/2/media/metadata',
      'media.metadata',
      api('media.metadata', (request, user) => media.metadata(request, user.id)),
    );

  const server = await startFakeServer({
    router,
    clock,
    log,
    faults,
    notFound: () => problem(404, 'Not Found Error', 'Not Found'),
    port: options.port,
    host: options.host,
  });

  function windowHeaders(route: XRoute): Record<string, string> {
    const limit = WINDOW_LIMITS[route] ?? 300;
    return {
      'x-rate-limit-limit': String(limit),
      'x-rate-limit-remaining': String(limit - 1),
      'x-rate-limit-reset': String(Math.floor(clock.now() / 1000) + 900),
    };
  }

  return {
    url: server.url,
    clientId,
    clientSecret,
    clock,
    log,
    users,
    posts,
    media: media.items,
    script: {
      loginAs: (userId) => {
        if (!users.some((user) => user.id === userId)) throw new Error(`No fake X user ${userId}`);
        consent.userId = userId;
      },
      denyConsent: (deny = true) => {
        consent.deny = deny;
      },
      revoke: (userId) => tokens.revokeUser(userId),
      rateLimit: (route, count, limitOptions = {}) => {
        faults.failNext(route, count, () =>
          tooManyRequests(
            limitOptions.limit ?? WINDOW_LIMITS[route] ?? 300,
            limitOptions.resetAtSecs ?? Math.floor(clock.now() / 1000) + 900,
          ),
        );
      },
      stall: (route, count = 1) => faults.stallNext(route, count),
      hold: (route) => {
        let release!: () => void;
        faults.holdNext(route, new Promise<void>((resolve) => (release = resolve)));
        return { release };
      },
      unavailable: (route, count) => faults.failNext(route, count, serviceUnavailable),
      dropAfterStore: (count = 1) => faults.dropAfterStore('tweets.create', count),
      mediaProcessing: (script) => {
        media.processing = { ...DEFAULT_PROCESSING, ...script };
      },
    },
    issueTokens: (userId, scopes = ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access']) =>
      tokens.issue({ userId, scopes }, scopes.includes('offline.access')),
    close: server.close,
  };
}

function tokenAnswer(issued: IssuedTokens): Reply {
  return {
    status: 200,
    json: {
      token_type: 'bearer',
      expires_in: issued.expiresIn,
      access_token: issued.accessToken,
      scope: issued.scopes.join(' '),
      ...(issued.refreshToken && { refresh_token: issued.refreshToken }),
    },
  };
}
