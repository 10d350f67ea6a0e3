/**
 * A local fake of Instagram's API with Instagram Login (the consent page, the token endpoint of
 * api.instagram.com and graph.instagram.com, all on one origin) for tests and the development mode.
 * It checks each request the way the documented API does: the app's id, secret and callback on the
 * code exchange; short-lived tokens traded once for 60-day ones, refreshed only when at least 24 h
 * old; the publishing user in the path matching the token's; containers made from media it really
 * downloads, moving through their states on the clock; the rolling 24-hour publishing quota; and
 * Meta's own error envelopes and codes (190, 9007, 2207xxx).
 */
import { randomBytes } from 'node:crypto';
import { createFakeClock, type FakeClock } from './shared/clock.ts';
import {
  bearerToken,
  FakeRouter,
  FaultScript,
  isRedirectableUri,
  RequestLog,
  startFakeServer,
  type FakeRequest,
  type Reply,
} from './shared/http-fake.ts';
import { numericId, TokenStore, type IssuedTokens } from './shared/token-store.ts';
import {
  expiredToken,
  graphError,
  INSTAGRAM_ERRORS,
  invalidParameter,
  invalidToken,
  missingPermission,
  noSuchObject,
  revokedToken,
  tokenEndpointError,
  type InstagramErrorName,
} from './instagram-errors.ts';
import {
  DEFAULT_CONTAINER_PROCESSING,
  InstagramMediaStore,
  type ContainerProcessingScript,
  type InstagramContainer,
  type InstagramMedia,
} from './instagram-media.ts';

export type { ContainerProcessingScript, InstagramContainer, InstagramMedia } from './instagram-media.ts';
export type { InstagramErrorName } from './instagram-errors.ts';

export interface FakeInstagramUser {
  /** The Instagram professional account id (`user_id` on /me): the one publishing paths take. */
  userId: string;
  /** The app-scoped id (`id` on /me). */
  appScopedId: string;
  username: string;
  name: string;
  accountType: 'BUSINESS' | 'MEDIA_CREATOR';
}

export type InstagramRoute =
  | 'authorize'
  | 'token'
  | 'token.exchange'
  | 'token.refresh'
  | 'me'
  | 'publishing_limit'
  | 'media.create'
  | 'media.publish'
  | 'media.list'
  | 'container.status'
  | 'media.get';

export const INSTAGRAM_SCOPES = [
  'instagram_business_basic',
  'instagram_business_content_publish',
  'instagram_business_manage_messages',
  'instagram_business_manage_comments',
  'instagram_business_manage_insights',
] as const;

const SHORT_LIVED_SECS = 3600;
const LONG_LIVED_SECS = 60 * 86_400;
const REFRESH_MIN_AGE_MS = 24 * 3600 * 1000;
const QUOTA_WINDOW_MS = 24 * 3600 * 1000;

export interface FakeInstagramOptions {
  port?: number;
  host?: string;
  now?: () => number;
  clientId?: string;
  clientSecret?: string;
  /** Registered redirect URLs; when empty, any absolute http(s) URL is accepted. */
  redirectUris?: string[];
  users?: FakeInstagramUser[];
  /** Posts allowed per account in a rolling 24 hours (`content_publishing_limit`); 100 by default. */
  quotaTotal?: number;
  containerProcessing?: Partial<ContainerProcessingScript>;
  /** How long the fake waits for a media URL before answering 2207003 (5 s by default). */
  downloadTimeoutMs?: number;
}

export interface FakeInstagram {
  url: string;
  clientId: string;
  clientSecret: string;
  clock: FakeClock;
  log: RequestLog;
  users: FakeInstagramUser[];
  containers: Map<string, InstagramContainer>;
  /** Published posts, oldest first. */
  media: InstagramMedia[];
  script: {
    loginAs(userId: string): void;
    /** The user cancels: the redirect carries `error=access_denied&error_reason=user_denied`. */
    denyConsent(deny?: boolean): void;
    /** The user removes the app: 190 (subcode 460) from then on. */
    revoke(userId: string): void;
    /** The next `count` calls answer code 4 with `X-Business-Use-Case-Usage` naming `regainMinutes`. */
    rateLimit(route: InstagramRoute, count: number, options?: { regainMinutes?: number }): void;
    unavailable(route: InstagramRoute, count: number): void;
    /** The next `count` calls to `route` answer one of Meta's canned refusals (spam, quota, …). */
    failNext(route: InstagramRoute, count: number, error: InstagramErrorName): void;
    stall(route: InstagramRoute, count?: number): void;
    /** The next `count` publishes make the post, then close the socket without an answer. */
    dropAfterStore(count?: number): void;
    containerProcessing(script: Partial<ContainerProcessingScript>): void;
    /** The quota: `total` per 24 h, and `used` posts counted as made now (they age out in 24 h). */
    publishingQuota(quota: { total?: number; used?: number }, userId?: string): void;
  };
  /** A 60-day token for `userId` without the consent dance, for tests about something else. */
  issueTokens(userId: string, scopes?: string[]): IssuedTokens;
  close(): Promise<void>;
}

const DEFAULT_USERS: FakeInstagramUser[] = [
  {
    userId: '17841400000000001',
    appScopedId: '9000000000000001',
    username: 'fake.brand',
    name: 'Fake Brand',
    accountType: 'BUSINESS',
  },
  {
    userId: '17841400000000002',
    appScopedId: '9000000000000002',
    username: 'other.creator',
    name: 'Other Creator',
    accountType: 'MEDIA_CREATOR',
  },
];

export async function startFakeInstagram(options: FakeInstagramOptions = {}): Promise<FakeInstagram> {
  const clock = createFakeClock(options.now);
  const log = new RequestLog();
  const faults = new FaultScript();
  const clientId = options.clientId ?? numericId(15);
  const clientSecret = options.clientSecret ?? randomBytes(16).toString('hex');
  const users = options.users ?? DEFAULT_USERS;
  const shortTokens = new TokenStore(clock, {
    prefix: 'IGfakeS',
    accessTtlSecs: SHORT_LIVED_SECS,
    codeTtlSecs: 3600,
    rotateRefresh: false,
  });
  const longTokens = new TokenStore(clock, {
    prefix: 'IGfakeL',
    accessTtlSecs: LONG_LIVED_SECS,
    codeTtlSecs: 3600,
    rotateRefresh: false,
  });
  /** When each long-lived token was issued: a refresh needs it 24 h old. */
  const issuedAt = new Map<string, number>();
  /** Short-lived tokens already traded: each is exchanged once. */
  const exchanged = new Set<string>();
  const store = new InstagramMediaStore(clock);
  store.processing = { ...DEFAULT_CONTAINER_PROCESSING, ...options.containerProcessing };
  store.downloadTimeoutMs = options.downloadTimeoutMs ?? store.downloadTimeoutMs;
  const quotaTotals = new Map<string, number>();
  const phantomPosts = new Map<string, number[]>();
  const consent = { userId: users[0]!.userId, deny: false };

  const issueLong = (userId: string, scopes: string[]): IssuedTokens => {
    const issued = longTokens.issue({ userId, scopes }, false);
    issuedAt.set(issued.accessToken, clock.now());
    return issued;
  };

  const authorize = (request: FakeRequest): Reply => {
    const q = request.query;
    // Instagram shows an error page, not a redirect, when the app or its callback is wrong.
    if (q.client_id !== clientId) return { status: 400, text: 'Invalid platform app' };
    if (!isRedirectableUri(q.redirect_uri)) return { status: 400, text: 'Invalid redirect_uri' };
    if (options.redirectUris?.length && !options.redirectUris.includes(q.redirect_uri)) {
      return { status: 400, text: 'Invalid redirect_uri: it does not match a valid OAuth redirect URI of the app' };
    }
    if (q.response_type !== 'code') return { status: 400, text: 'Invalid response_type: it must be code' };
    const scopes = (q.scope ?? '').split(/[\s,]+/).filter(Boolean);
    const unknown = scopes.filter((scope) => !(INSTAGRAM_SCOPES as readonly string[]).includes(scope));
    if (unknown.length) return { status: 400, text: `Invalid Scopes: ${unknown.join(', ')}` };
    if (!scopes.includes('instagram_business_basic')) {
      return { status: 400, text: 'Invalid Scopes: instagram_business_basic is required' };
    }
    const back = (params: Record<string, string>) => {
      const target = new URL(q.redirect_uri!);
      for (const [name, value] of Object.entries({ ...params, ...(q.state && { state: q.state }) })) {
        target.searchParams.set(name, value);
      }
      // Instagram appends `#_` to the redirect; browsers keep fragments to themselves.
      target.hash = '_';
      return { status: 302, headers: { location: target.toString() } };
    };
    if (consent.deny) {
      return back({
        error: 'access_denied',
        error_reason: 'user_denied',
        error_description: 'The user denied your request.',
      });
    }
    const code = shortTokens.issueCode({ userId: consent.userId, scopes, clientId, redirectUri: q.redirect_uri });
    return back({ code });
  };

  /** POST api.instagram.com/oauth/access_token: the code for a short-lived token (form or multipart). */
  const token = (request: FakeRequest): Reply => {
    const { body } = request;
    if (body.kind !== 'form' && body.kind !== 'multipart') {
      return tokenEndpointError('The request body must be form-encoded or multipart.');
    }
    const form = body.fields;
    for (const name of ['client_id', 'client_secret', 'grant_type', 'redirect_uri', 'code']) {
      if (!form[name]) return tokenEndpointError(`Missing required field ${name}`);
    }
    if (form.client_id !== clientId) return tokenEndpointError('Invalid platform app');
    if (form.client_secret !== clientSecret) return tokenEndpointError('Error validating client secret.');
    if (form.grant_type !== 'authorization_code') return tokenEndpointError('Unsupported grant_type');
    const redeemed = shortTokens.redeemCode(form.code!);
    if (!redeemed.ok) return tokenEndpointError('Invalid authorization code');
    if (redeemed.code.redirectUri !== form.redirect_uri) {
      return tokenEndpointError(
        'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
      );
    }
    const { userId, scopes } = redeemed.code;
    const issued = shortTokens.issue({ userId, scopes }, false);
    return {
      status: 200,
      json: { data: [{ access_token: issued.accessToken, user_id: userId, permissions: scopes.join(',') }] },
    };
  };

  /** The token of a Graph call: the Authorization header or the `access_token` parameter. */
  const graphToken = (request: FakeRequest): string | undefined => bearerToken(request) ?? params(request).access_token;

  type Access = { user: FakeInstagramUser; scopes: string[]; token: string; longLived: boolean };
  const authenticate = (request: FakeRequest): Access | Reply => {
    const value = graphToken(request);
    const long = longTokens.check(value);
    const access = long.ok || long.reason !== 'unknown' ? long : shortTokens.check(value);
    if (!access.ok) {
      if (access.reason === 'revoked') return revokedToken();
      return access.reason === 'expired' ? expiredToken() : invalidToken();
    }
    const user = users.find((candidate) => candidate.userId === access.userId);
    if (!user) return invalidToken();
    return { user, scopes: access.scopes, token: value!, longLived: long.ok };
  };

  const exchange = (request: FakeRequest): Reply => {
    const q = request.query;
    if (q.grant_type !== 'ig_exchange_token') return invalidParameter('Param grant_type must be ig_exchange_token.');
    if (!q.client_secret) return invalidParameter('The parameter client_secret is required.');
    if (q.client_secret !== clientSecret) return graphError(400, 101, 'Error validating client secret.');
    const access = authenticate(request);
    if ('status' in access || 'drop' in access) return access;
    if (access.longLived) return invalidParameter('The access token is already long-lived; refresh it instead.');
    if (exchanged.has(access.token))
      return invalidParameter('This short-lived access token has already been exchanged.');
    exchanged.add(access.token);
    return longTokenAnswer(issueLong(access.user.userId, access.scopes));
  };

  const refresh = (request: FakeRequest): Reply => {
    if (request.query.grant_type !== 'ig_refresh_token') {
      return invalidParameter('Param grant_type must be ig_refresh_token.');
    }
    const access = authenticate(request);
    if ('status' in access || 'drop' in access) return access;
    if (!access.longLived) return invalidParameter('Only a long-lived access token can be refreshed.');
    if (clock.now() - (issuedAt.get(access.token) ?? 0) < REFRESH_MIN_AGE_MS) {
      return invalidParameter('The access token must be at least 24 hours old to be refreshed.');
    }
    return longTokenAnswer(issueLong(access.user.userId, access.scopes));
  };

  const me = (request: FakeRequest): Reply => {
    const access = authenticate(request);
    if ('status' in access || 'drop' in access) return access;
    const { user } = access;
    const fields = fieldList(request, ['id']);
    const all: Record<string, unknown> = {
      id: user.appScopedId,
      user_id: user.userId,
      username: user.username,
      name: user.name,
      account_type: user.accountType,
      profile_picture_url: `https://scontent.cdninstagram.invalid/${user.username}.jpg`,
    };
    return { status: 200, json: Object.fromEntries(fields.filter((f) => f in all).map((f) => [f, all[f]])) };
  };

  /** A call on `/{ig-user-id}/…`: the token's own professional account, with the publish permission. */
  const asOwner =
    (handler: (request: FakeRequest, user: FakeInstagramUser) => Reply | Promise<Reply>, publishing: boolean) =>
    (request: FakeRequest): Reply | Promise<Reply> => {
      const access = authenticate(request);
      if ('status' in access || 'drop' in access) return access;
      if (request.params.igUserId !== access.user.userId) {
        return noSuchObject(request.params.igUserId!, request.method === 'GET' ? 'get' : 'post');
      }
      if (publishing && !access.scopes.includes('instagram_business_content_publish')) {
        return missingPermission('instagram_business_content_publish');
      }
      return handler(request, access.user);
    };

  const usage = (userId: string): number => {
    const since = clock.now() - QUOTA_WINDOW_MS;
    const real = store.media.filter((media) => media.ownerId === userId && media.timestamp > since).length;
    return real + (phantomPosts.get(userId) ?? []).filter((at) => at > since).length;
  };
  const quotaTotal = (userId: string) => quotaTotals.get(userId) ?? options.quotaTotal ?? 100;

  const publishingLimit = (request: FakeRequest, user: FakeInstagramUser): Reply => {
    const fields = fieldList(request, ['quota_usage']);
    const entry: Record<string, unknown> = {};
    if (fields.includes('quota_usage')) entry.quota_usage = usage(user.userId);
    if (fields.includes('config')) entry.config = { quota_total: quotaTotal(user.userId), quota_duration: 86_400 };
    return { status: 200, json: { data: [entry] } };
  };

  const createContainer = (request: FakeRequest, user: FakeInstagramUser): Promise<Reply> =>
    store.create({ ownerId: user.userId, params: params(request) });

  const publish = (request: FakeRequest, user: FakeInstagramUser): Reply => {
    const creationId = params(request).creation_id;
    if (!creationId) return invalidParameter('The parameter creation_id is required.');
    const container = store.containers.get(creationId);
    if (!container || container.ownerId !== user.userId) return noSuchObject(creationId, 'post');
    if (container.isCarouselItem) {
      return invalidParameter('A carousel item cannot be published on its own; publish its carousel container.');
    }
    switch (store.status(container)) {
      case 'IN_PROGRESS':
        return INSTAGRAM_ERRORS.notReady();
      case 'EXPIRED':
        return INSTAGRAM_ERRORS.expired();
      case 'ERROR':
        return invalidParameter('The media container failed processing and cannot be published.', 2207032);
      case 'PUBLISHED':
        return invalidParameter('The media container has already been published.', 2207006);
      case 'FINISHED':
        break;
    }
    if (usage(user.userId) >= quotaTotal(user.userId)) return INSTAGRAM_ERRORS.quota();
    const media = store.publish(container);
    if (faults.takeDrop('media.publish')) return { drop: true, createdPost: true };
    return { status: 200, json: { id: media.id }, createdPost: true };
  };

  const listMedia = (request: FakeRequest, user: FakeInstagramUser): Reply => {
    const limit = request.query.limit === undefined ? 25 : Number(request.query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return invalidParameter('Param limit must be 1 to 100.');
    const fields = fieldList(request, ['id']);
    const data = store.media
      .filter((media) => media.ownerId === user.userId)
      .reverse()
      .slice(0, limit)
      .map((media) => mediaFields(media, fields));
    return { status: 200, json: { data } };
  };

  /** GET /{id}: a container's status, or a published media's fields. */
  const readObject = (request: FakeRequest): Reply => {
    const access = authenticate(request);
    if ('status' in access || 'drop' in access) return access;
    const id = request.params.id!;
    const container = store.containers.get(id);
    if (container && container.ownerId === access.user.userId) return store.read(container, fieldList(request, ['id']));
    const media = store.media.find((candidate) => candidate.id === id);
    if (media && media.ownerId === access.user.userId) {
      return { status: 200, json: mediaFields(media, fieldList(request, ['id'])) };
    }
    return noSuchObject(id, 'get');
  };

  const router = new FakeRouter()
    .add('GET', '/oauth/authorize', 'authorize', authorize)
    .add('POST', '/oauth/access_token', 'token', token)
    .add('GET', '/access_token', 'token.exchange', exchange)
    .add('GET', '/refresh_access_token', 'token.refresh', refresh)
    .add('GET', '/me', 'me', me)
    .add('GET', '/:igUserId/content_publishing_limit', 'publishing_limit', asOwner(publishingLimit, false))
    .add('POST', '/:igUserId/media', 'media.create', asOwner(createContainer, true))
    .add('GET', '/:igUserId/media', 'media.list', asOwner(listMedia, false))
    .add('POST', '/:igUserId/media_publish', 'media.publish', asOwner(publish, true))
    .add(
      'GET',
      '/:id',
      (request) => (store.containers.has(request.params.id!) ? 'container.status' : 'media.get'),
      readObject,
    );

  const server = await startFakeServer({
    router,
    clock,
    log,
    faults,
    notFound: (request) => noSuchObject(request.path.split('/').filter(Boolean).join('/'), 'get'),
    port: options.port,
    host: options.host,
  });

  return {
    url: server.url,
    clientId,
    clientSecret,
    clock,
    log,
    users,
    containers: store.containers,
    media: store.media,
    script: {
      loginAs: (userId) => {
        if (!users.some((user) => user.userId === userId)) throw new Error(`No fake Instagram user ${userId}`);
        consent.userId = userId;
      },
      denyConsent: (deny = true) => {
        consent.deny = deny;
      },
      revoke: (userId) => {
        shortTokens.revokeUser(userId);
        longTokens.revokeUser(userId);
      },
      rateLimit: (route, count, { regainMinutes = 5 } = {}) =>
        faults.failNext(route, count, () => ({
          ...INSTAGRAM_ERRORS.throttled(),
          headers: {
            'x-business-use-case-usage': JSON.stringify({
              [consent.userId]: [
                {
                  type: 'instagram',
                  call_count: 100,
                  total_cputime: 12,
                  total_time: 15,
                  estimated_time_to_regain_access: regainMinutes,
                },
              ],
            }),
          },
        })),
      unavailable: (route, count) => faults.failNext(route, count, INSTAGRAM_ERRORS.unavailable),
      failNext: (route, count, error) => faults.failNext(route, count, INSTAGRAM_ERRORS[error]),
      stall: (route, count = 1) => faults.stallNext(route, count),
      dropAfterStore: (count = 1) => faults.dropAfterStore('media.publish', count),
      containerProcessing: (script) => {
        store.processing = { ...DEFAULT_CONTAINER_PROCESSING, ...script };
      },
      publishingQuota: ({ total, used }, userId = users[0]!.userId) => {
        if (total !== undefined) quotaTotals.set(userId, total);
        if (used !== undefined) {
          phantomPosts.set(userId, [...(phantomPosts.get(userId) ?? []), ...Array<number>(used).fill(clock.now())]);
        }
      },
    },
    issueTokens: (userId, scopes = ['instagram_business_basic', 'instagram_business_content_publish']) =>
      issueLong(userId, scopes),
    close: server.close,
  };
}

/** The call's parameters as Graph reads them: the query, then a form or JSON body over it. */
function params(request: FakeRequest): Record<string, string> {
  const merged: Record<string, string> = { ...request.query };
  const { body } = request;
  if (body.kind === 'form' || body.kind === 'multipart') Object.assign(merged, body.fields);
  if (body.kind === 'json' && typeof body.value === 'object' && body.value !== null) {
    for (const [name, value] of Object.entries(body.value as Record<string, unknown>)) {
      merged[name] = typeof value === 'string' ? value : JSON.stringify(value);
    }
  }
  return merged;
}

/** `fields=a,b` (Graph answers only what is asked, and `id` when nothing is). */
function fieldList(request: FakeRequest, fallback: string[]): string[] {
  const fields = params(request).fields;
  return fields
    ? fields
        .split(',')
        .map((field) => field.trim())
        .filter(Boolean)
    : fallback;
}

function mediaFields(media: InstagramMedia, fields: string[]): Record<string, unknown> {
  const all: Record<string, unknown> = {
    id: media.id,
    caption: media.caption,
    media_type: media.mediaType,
    media_product_type: media.mediaProductType,
    permalink: media.permalink,
    timestamp: new Date(media.timestamp).toISOString().replace(/\.\d{3}Z$/, '+0000'),
  };
  return Object.fromEntries(['id', ...fields].filter((f) => f in all).map((f) => [f, all[f]]));
}

function longTokenAnswer(issued: IssuedTokens): Reply {
  return {
    status: 200,
    json: { access_token: issued.accessToken, token_type: 'bearer', expires_in: issued.expiresIn },
  };
}
