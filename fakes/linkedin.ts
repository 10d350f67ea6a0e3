/**
 * A local fake of LinkedIn (OAuth pages, OpenID userinfo and the versioned REST API on one origin)
 * for tests and the development mode. It checks each request the way the documented API does: the
 * `LinkedIn-Version` and `X-Restli-Protocol-Version` headers on every /rest call, the author against
 * the token's member, media ownership and readiness, the ETags of a multi-part video; and it answers
 * LinkedIn's own error bodies (65600/65601 on 401, 426 for a retired version, 422 DUPLICATE_POST).
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
  type Reply,
} from './shared/http-fake.ts';
import { numericId, TokenStore, type IssuedTokens } from './shared/token-store.ts';
import {
  accessDenied,
  duplicatePost,
  emptyToken,
  invalidToken,
  notFound,
  oauthError,
  restError,
  revokedToken,
  throttled,
  unavailable,
} from './linkedin-errors.ts';
import {
  DEFAULT_VIDEO_PROCESSING,
  LinkedInMediaStore,
  type LinkedInImage,
  type LinkedInVideo,
  type VideoProcessingScript,
} from './linkedin-media.ts';
import { validatePost } from './linkedin-posts.ts';

export type { LinkedInImage, LinkedInVideo, VideoProcessingScript } from './linkedin-media.ts';

export interface FakeLinkedInMember {
  sub: string;
  name: string;
  given_name?: string;
  family_name?: string;
  picture?: string;
  email?: string;
}

export interface StoredLinkedInPost {
  urn: string;
  author: string;
  /** Exactly as sent, so tests can check the little-text escaping. */
  commentary: string;
  body: Record<string, unknown>;
  createdAt: number;
}

export type LinkedInRoute =
  | 'authorize'
  | 'token'
  | 'revoke'
  | 'userinfo'
  | 'posts.create'
  | 'posts.get'
  | 'images.initialize'
  | 'images.upload'
  | 'images.get'
  | 'videos.initialize'
  | 'videos.upload'
  | 'videos.finalize'
  | 'videos.get';

export interface FakeLinkedInOptions {
  port?: number;
  host?: string;
  now?: () => number;
  clientId?: string;
  clientSecret?: string;
  /** Registered redirect URLs; when empty, any absolute http(s) URL is accepted. */
  redirectUris?: string[];
  members?: FakeLinkedInMember[];
  /** Scopes the app is approved for; others are refused at the consent step. */
  authorizedScopes?: string[];
  /** `YYYYMM` versions served; by default the twelve months up to the clock's. */
  activeVersions?: string[];
  accessTokenTtlSecs?: number;
  /** Refresh tokens are for approved partners only; off by default. */
  issueRefreshTokens?: boolean;
  /** Video parts are cut at this size (4 MiB by default). */
  videoPartSizeBytes?: number;
  videoProcessing?: VideoProcessingScript;
}

export interface FakeLinkedIn {
  url: string;
  clientId: string;
  clientSecret: string;
  clock: FakeClock;
  log: RequestLog;
  members: FakeLinkedInMember[];
  posts: StoredLinkedInPost[];
  images: Map<string, LinkedInImage>;
  videos: Map<string, LinkedInVideo>;
  /** The versions served at this moment. */
  activeVersions(): string[];
  script: {
    loginAs(sub: string): void;
    /** The member cancels at the consent page: the redirect carries `error=user_cancelled_authorize`. */
    denyConsent(deny?: boolean): void;
    /** The member removes the app: 401 65601 REVOKED_ACCESS_TOKEN from then on. */
    revoke(sub: string): void;
    /** The next `count` calls to `route` answer 429, without rate-limit headers as LinkedIn does. */
    rateLimit(route: LinkedInRoute, count: number): void;
    unavailable(route: LinkedInRoute, count: number): void;
    /** The next `count` calls to `route` are logged and never answered, as a hung platform. */
    stall(route: LinkedInRoute, count?: number): void;
    dropAfterStore(count?: number): void;
    videoProcessing(script: Partial<VideoProcessingScript>): void;
    issueRefreshTokens(issue?: boolean): void;
  };
  issueTokens(sub: string, scopes?: string[]): IssuedTokens;
  close(): Promise<void>;
}

const DEFAULT_MEMBERS: FakeLinkedInMember[] = [
  {
    sub: 'fAkEmEmBeR1',
    name: 'Fake Member',
    given_name: 'Fake',
    family_name: 'Member',
    picture: 'https://media.licdn.invalid/fake-member.jpg',
    email: 'fake.member@example.com',
  },
  { sub: 'oThErMeMbEr2', name: 'Other Member', given_name: 'Other', family_name: 'Member' },
];

const INVALID_GRANT_DESCRIPTION =
  'Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code. Or authorization code expired. Or external member binding exists';

export async function startFakeLinkedIn(options: FakeLinkedInOptions = {}): Promise<FakeLinkedIn> {
  const clock = createFakeClock(options.now);
  const log = new RequestLog();
  const faults = new FaultScript();
  const clientId = options.clientId ?? `fakeli${randomBytes(5).toString('hex')}`;
  const clientSecret = options.clientSecret ?? randomBytes(12).toString('base64url');
  const members = options.members ?? DEFAULT_MEMBERS;
  const authorizedScopes = options.authorizedScopes ?? ['openid', 'profile', 'email', 'w_member_social'];
  const tokens = new TokenStore(clock, {
    prefix: 'fli',
    accessTtlSecs: options.accessTokenTtlSecs ?? 60 * 86_400,
    codeTtlSecs: 30 * 60,
    refreshTtlSecs: 365 * 86_400,
    rotateRefresh: false,
  });
  let baseUrl = '';
  const media = new LinkedInMediaStore(clock, () => baseUrl);
  media.partSizeBytes = options.videoPartSizeBytes ?? media.partSizeBytes;
  media.videoProcessing = options.videoProcessing ?? DEFAULT_VIDEO_PROCESSING;
  const posts: StoredLinkedInPost[] = [];
  const consent = { sub: members[0]!.sub, deny: false, refresh: options.issueRefreshTokens ?? false };

  const activeVersions = () => options.activeVersions ?? lastTwelveMonths(clock.now());

  const authorize = (request: FakeRequest): Reply => {
    const q = request.query;
    if (q.client_id !== clientId) return { status: 400, text: 'Invalid client_id.' };
    if (!isRedirectableUri(q.redirect_uri)) return { status: 400, text: 'Invalid redirect_uri.' };
    if (options.redirectUris?.length && !options.redirectUris.includes(q.redirect_uri)) {
      return { status: 400, text: 'The redirect_uri does not match the registered value.' };
    }
    const back = (error: string, description: string) =>
      redirectTo(q.redirect_uri!, { error, error_description: description, ...(q.state && { state: q.state }) });
    if (q.response_type !== 'code') return back('invalid_request', 'response_type must be code');
    if (!q.state) return back('invalid_request', 'state is required');
    const scopes = (q.scope ?? '').split(' ').filter(Boolean);
    if (scopes.length === 0) return back('invalid_request', 'scope is required');
    const refused = scopes.find((scope) => !authorizedScopes.includes(scope));
    if (refused) return back('unauthorized_scope_error', `Scope "${refused}" is not authorized for your application`);
    if (consent.deny) return back('user_cancelled_authorize', 'The user cancelled the authorization');
    const code = tokens.issueCode({ userId: consent.sub, scopes, clientId, redirectUri: q.redirect_uri });
    return redirectTo(q.redirect_uri, { code, state: q.state });
  };

  const token = (request: FakeRequest): Reply => {
    if (request.body.kind !== 'form') {
      return oauthError(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded');
    }
    const form = request.body.fields;
    const grantType = form.grant_type;
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
      return oauthError(400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
    }
    const needed = grantType === 'authorization_code' ? ['code', 'redirect_uri'] : ['refresh_token'];
    for (const name of [...needed, 'client_id', 'client_secret']) {
      if (!form[name]) return oauthError(400, 'invalid_request', `A required parameter "${name}" is missing`);
    }
    if (form.client_id !== clientId || form.client_secret !== clientSecret) {
      return oauthError(401, 'invalid_client', 'Client authentication failed');
    }
    if (grantType === 'refresh_token') {
      const refreshed = tokens.useRefreshToken(form.refresh_token!);
      if (!refreshed.ok) return oauthError(400, 'invalid_request', 'The provided refresh token is invalid');
      return tokenAnswer(refreshed.tokens);
    }
    const redeemed = tokens.redeemCode(form.code!);
    if (!redeemed.ok || redeemed.code.redirectUri !== form.redirect_uri || redeemed.code.clientId !== clientId) {
      return oauthError(400, 'invalid_request', INVALID_GRANT_DESCRIPTION);
    }
    const { userId, scopes } = redeemed.code;
    return tokenAnswer(tokens.issue({ userId, scopes }, consent.refresh));
  };

  const revoke = (request: FakeRequest): Reply => {
    if (request.body.kind !== 'form') {
      return oauthError(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded');
    }
    const form = request.body.fields;
    for (const name of ['token', 'client_id', 'client_secret']) {
      if (!form[name]) return oauthError(400, 'invalid_request', `A required parameter "${name}" is missing`);
    }
    if (form.client_id !== clientId || form.client_secret !== clientSecret) {
      return oauthError(401, 'invalid_client', 'Client authentication failed');
    }
    tokens.revokeToken(form.token!);
    return { status: 200 };
  };

  /** The member behind the bearer token, or LinkedIn's 401 for a missing, unknown, expired or revoked one. */
  const authenticate = (request: FakeRequest): { member: FakeLinkedInMember; scopes: string[] } | Reply => {
    const access = tokens.check(bearerToken(request));
    if (!access.ok) {
      if (access.reason === 'missing') return emptyToken();
      return access.reason === 'revoked' ? revokedToken() : invalidToken();
    }
    const member = members.find((candidate) => candidate.sub === access.userId);
    return member ? { member, scopes: access.scopes } : invalidToken();
  };

  /** Every /rest call: the two protocol headers first (the gateway refuses before auth), then the token. */
  const rest =
    (resource: string, scope: string | null, handler: (request: FakeRequest, memberUrn: string) => Reply) =>
    (request: FakeRequest): Reply => {
      const version = request.headers['linkedin-version'];
      if (!version) {
        return {
          ...restError(
            400,
            'A version must be present. Please specify a version by adding the LinkedIn-Version header.',
            { code: 'VERSION_MISSING' },
          ),
          headers: { 'x-restli-gateway-error': 'true' },
        };
      }
      if (!activeVersions().includes(version)) {
        const shown = /^\d{6}$/.test(version) ? `${version}01` : version;
        return {
          ...restError(426, `Requested version ${shown} is not active`, { code: 'NONEXISTENT_VERSION' }),
          headers: { 'x-restli-gateway-error': 'true' },
        };
      }
      // Stricter than LinkedIn, which falls back to protocol 1.0 and its other URN encoding: a client
      // that forgets the header would work by accident on some calls, so the fake refuses it outright.
      if (request.headers['x-restli-protocol-version'] !== '2.0.0') {
        return restError(400, 'X-Restli-Protocol-Version must be 2.0.0');
      }
      const auth = authenticate(request);
      if ('status' in auth || 'drop' in auth) return auth;
      if (scope && !auth.scopes.includes(scope)) return accessDenied(`${resource}.${version}`);
      return handler(request, `urn:li:person:${auth.member.sub}`);
    };

  const userinfo = (request: FakeRequest): Reply => {
    const auth = authenticate(request);
    if ('status' in auth || 'drop' in auth) return auth;
    if (!auth.scopes.includes('openid')) return accessDenied('userinfo.GET.NO_VERSION');
    const { member, scopes } = auth;
    return {
      status: 200,
      json: {
        sub: member.sub,
        ...(scopes.includes('profile') && {
          name: member.name,
          ...(member.given_name && { given_name: member.given_name }),
          ...(member.family_name && { family_name: member.family_name }),
          ...(member.picture && { picture: member.picture }),
          locale: { country: 'US', language: 'en' },
        }),
        ...(scopes.includes('email') && member.email && { email: member.email, email_verified: true }),
      },
    };
  };

  const createPost = (request: FakeRequest, memberUrn: string): Reply => {
    const body = jsonObject(request);
    const checked = validatePost(body, memberUrn, media);
    if (checked) return checked;
    const post = body as Record<string, unknown>;
    const commentary = typeof post.commentary === 'string' ? post.commentary : '';
    const earlier =
      commentary && posts.find((stored) => stored.author === memberUrn && stored.commentary === commentary);
    if (earlier) return duplicatePost(earlier.urn);
    const urn = `urn:li:share:${numericId()}`;
    posts.push({ urn, author: memberUrn, commentary, body: post, createdAt: clock.now() });
    if (faults.takeDrop('posts.create')) return { drop: true, createdPost: true };
    return { status: 201, headers: { 'x-restli-id': urn }, createdPost: true };
  };

  const getPost = (request: FakeRequest, memberUrn: string): Reply => {
    const post = posts.find((stored) => stored.urn === request.params.urn);
    if (!post) return notFound(`Post ${request.params.urn} not found`);
    if (post.author !== memberUrn) return accessDenied('posts.GET');
    return { status: 200, json: { id: post.urn, ...post.body } };
  };

  const byAction = (actions: Record<string, (request: FakeRequest, memberUrn: string) => Reply>) =>
    function dispatch(request: FakeRequest, memberUrn: string): Reply {
      const action = actions[request.query.action ?? ''];
      return action ? action(request, memberUrn) : restError(400, `Unsupported action: ${request.query.action}`);
    };

  const router = new FakeRouter()
    .add('GET', '/oauth/v2/authorization', 'authorize', authorize)
    .add('POST', '/oauth/v2/accessToken', 'token', token)
    .add('POST', '/oauth/v2/revoke', 'revoke', revoke)
    .add('GET', '/v2/userinfo', 'userinfo', userinfo)
    .add('POST', '/rest/posts', 'posts.create', rest('posts.CREATE', 'w_member_social', createPost))
    .add('GET', '/rest/posts/:urn', 'posts.get', rest('posts.GET', null, getPost))
    .add(
      'POST',
      '/rest/images',
      'images.initialize',
      rest('images.ACTION', 'w_member_social', byAction({ initializeUpload: (r, m) => media.initializeImage(r, m) })),
    )
    .add(
      'GET',
      '/rest/images/:urn',
      'images.get',
      rest('images.GET', null, (r, m) => media.getImage(r, m)),
    )
    .add('PUT', '/dms-uploads/image/:urn', 'images.upload', (r) => media.uploadImage(r))
    .add(
      'POST',
      '/rest/videos',
      // Initialize and finalize share one path: the log and the scripting name them apart.
      (request) => (request.query.action === 'finalizeUpload' ? 'videos.finalize' : 'videos.initialize'),
      rest(
        'videos.ACTION',
        'w_member_social',
        byAction({
          initializeUpload: (r, m) => media.initializeVideo(r, m),
          finalizeUpload: (r, m) => media.finalizeVideo(r, m),
        }),
      ),
    )
    .add(
      'GET',
      '/rest/videos/:urn',
      'videos.get',
      rest('videos.GET', null, (r, m) => media.getVideo(r, m)),
    )
    .add('PUT', '/dms-uploads/video/:urn/part/:part', 'videos.upload', (r) => media.uploadVideoPart(r));

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
    clientId,
    clientSecret,
    clock,
    log,
    members,
    posts,
    images: media.images,
    videos: media.videos,
    activeVersions,
    script: {
      loginAs: (sub) => {
        if (!members.some((member) => member.sub === sub)) throw new Error(`No fake LinkedIn member ${sub}`);
        consent.sub = sub;
      },
      denyConsent: (deny = true) => {
        consent.deny = deny;
      },
      revoke: (sub) => tokens.revokeUser(sub),
      rateLimit: (route, count) => faults.failNext(route, count, throttled),
      stall: (route, count = 1) => faults.stallNext(route, count),
      unavailable: (route, count) => faults.failNext(route, count, unavailable),
      dropAfterStore: (count = 1) => faults.dropAfterStore('posts.create', count),
      videoProcessing: (script) => {
        media.videoProcessing = { ...DEFAULT_VIDEO_PROCESSING, ...script };
      },
      issueRefreshTokens: (issue = true) => {
        consent.refresh = issue;
      },
    },
    issueTokens: (sub, scopes = ['openid', 'profile', 'email', 'w_member_social']) =>
      tokens.issue({ userId: sub, scopes }, consent.refresh),
    close: server.close,
  };
}

function tokenAnswer(issued: IssuedTokens): Reply {
  return {
    status: 200,
    json: {
      access_token: issued.accessToken,
      expires_in: issued.expiresIn,
      ...(issued.refreshToken && {
        refresh_token: issued.refreshToken,
        refresh_token_expires_in: issued.refreshExpiresIn,
      }),
      scope: issued.scopes.join(','),
      token_type: 'Bearer',
    },
  };
}

/** `YYYYMM` of the twelve months ending with the one `nowMs` falls in. */
function lastTwelveMonths(nowMs: number): string[] {
  const now = new Date(nowMs);
  const versions: string[] = [];
  for (let back = 0; back < 12; back++) {
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
    versions.push(`${month.getUTCFullYear()}${String(month.getUTCMonth() + 1).padStart(2, '0')}`);
  }
  return versions;
}
