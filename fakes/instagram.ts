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
import { FaultScript, RequestLog, type FakeRequest, type Reply } from './shared/http-fake.ts';
import { numericId, type IssuedTokens } from './shared/token-store.ts';
import { fieldList, graphParams, invalidParameter, noSuchObject, pickFields, PublishingQuota } from './meta-graph.ts';
import { INSTAGRAM_ERRORS, tokenEndpointError, type InstagramErrorName } from './instagram-errors.ts';
import { FakeContainerApi, startMetaServer, type ContainerRoutes } from './meta-containers.ts';
import { MetaLogin, isReply } from './meta-login.ts';
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

const INSTAGRAM_ROUTES: ContainerRoutes = {
  posts: { edge: 'media', create: 'media.create', list: 'media.list', read: 'media.get' },
  publish: { edge: 'media_publish', label: 'media.publish' },
  publishingLimit: { edge: 'content_publishing_limit', label: 'publishing_limit' },
};

export const INSTAGRAM_SCOPES = [
  'instagram_business_basic',
  'instagram_business_content_publish',
  'instagram_business_manage_messages',
  'instagram_business_manage_comments',
  'instagram_business_manage_insights',
] as const;

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
  const login = new MetaLogin(clock, {
    name: 'Instagram',
    tokenPrefix: 'IGfake',
    clientId,
    clientSecret,
    scopes: INSTAGRAM_SCOPES,
    requiredScope: 'instagram_business_basic',
    publishScope: 'instagram_business_content_publish',
    routeLabels: { authorize: 'authorize', exchange: 'token.exchange', refresh: 'token.refresh' },
    redirectUris: options.redirectUris,
    grants: { exchange: 'ig_exchange_token', refresh: 'ig_refresh_token' },
    codeTtlSecs: 3600,
    users,
    idOf: (user) => user.userId,
  });
  const store = new InstagramMediaStore(clock);
  store.processing = { ...DEFAULT_CONTAINER_PROCESSING, ...options.containerProcessing };
  store.downloadTimeoutMs = options.downloadTimeoutMs ?? store.downloadTimeoutMs;
  const quota = new PublishingQuota(clock, options.quotaTotal ?? 100, (userId) =>
    store.media.filter((media) => media.ownerId === userId).map((media) => media.timestamp),
  );

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
    const redeemed = login.redeemCode(form.code!);
    if (!redeemed.ok) return tokenEndpointError('Invalid authorization code');
    if (redeemed.code.redirectUri !== form.redirect_uri) {
      return tokenEndpointError(
        'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
      );
    }
    const { userId, scopes } = redeemed.code;
    const issued = login.issueShortLived(userId, scopes);
    return {
      status: 200,
      json: { data: [{ access_token: issued.accessToken, user_id: userId, permissions: scopes.join(',') }] },
    };
  };

  const me = (request: FakeRequest): Reply => {
    const access = login.authenticate(request);
    if (isReply(access)) return access;
    const { user } = access;
    const all: Record<string, unknown> = {
      id: user.appScopedId,
      user_id: user.userId,
      username: user.username,
      name: user.name,
      account_type: user.accountType,
      profile_picture_url: `https://scontent.cdninstagram.invalid/${user.username}.jpg`,
    };
    return { status: 200, json: pickFields(all, fieldList(request, ['id'])) };
  };

  const containerApi = new FakeContainerApi(login, quota, faults, INSTAGRAM_ROUTES, {
    create: (request, user) => store.create({ ownerId: user.userId, params: graphParams(request) }),
    container: (id) => store.containers.get(id),
    status: (container) => store.status(container),
    readStatus: (container, fields) => store.read(container, fields),
    publish: (container) => store.publish(container),
    posts: () => store.media,
    postFields: mediaFields,
    refusals: {
      unknownContainer: (id) => noSuchObject(id, 'post'),
      carouselItem: () =>
        invalidParameter('A carousel item cannot be published on its own; publish its carousel container.'),
      notPublishable: (status) => {
        switch (status) {
          case 'IN_PROGRESS':
            return INSTAGRAM_ERRORS.notReady();
          case 'EXPIRED':
            return INSTAGRAM_ERRORS.expired();
          case 'ERROR':
            return invalidParameter('The media container failed processing and cannot be published.', 2207032);
          case 'PUBLISHED':
            return invalidParameter('The media container has already been published.', 2207006);
        }
      },
      quotaReached: INSTAGRAM_ERRORS.quota,
    },
  });

  const codeExchange = { label: 'token', handler: token };
  const server = await startMetaServer({ clock, log, faults }, { login, codeExchange, me, containerApi }, options);

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
      ...login.script,
      rateLimit: (route, count, { regainMinutes = 5 } = {}) =>
        faults.failNext(route, count, () => ({
          ...INSTAGRAM_ERRORS.throttled(),
          headers: {
            'x-business-use-case-usage': JSON.stringify({
              [login.consent.userId]: [
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
      publishingQuota: (script, userId = users[0]!.userId) => quota.script(userId, script),
    },
    issueTokens: (userId, scopes = ['instagram_business_basic', 'instagram_business_content_publish']) =>
      login.issueLongLived(userId, scopes),
    close: server.close,
  };
}

/** A published media's fields as Graph names them (timestamps read `2026-06-15T09:00:00+0000`). */
function mediaFields(media: InstagramMedia): Record<string, unknown> {
  return {
    id: media.id,
    caption: media.caption,
    media_type: media.mediaType,
    media_product_type: media.mediaProductType,
    permalink: media.permalink,
    timestamp: new Date(media.timestamp).toISOString().replace(/\.\d{3}Z$/, '+0000'),
  };
}
