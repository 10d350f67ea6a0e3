/**
 * A local fake of Facebook Login and the Graph API for Pages, for tests and the development mode. It
 * checks each request the way the documented API does: the versioned paths, the app id and secret on
 * the token calls, Page tokens (not user tokens) for publishing, the permissions each call needs and
 * the Page's CREATE_CONTENT task; it really downloads the photo `url` and video `file_url` it is
 * given; videos process on its clock; and it answers Graph's own error envelope and codes.
 *
 * Graph and graph-video are one origin by default; `separateVideoHost` serves video uploads on a
 * second origin (`videoUrl`), and the main one then refuses them, so a client is seen to use the
 * video host.
 */
import { randomBytes } from 'node:crypto';
import { createFakeClock, type FakeClock } from './shared/clock.ts';
import {
  bearerToken,
  FakeRouter,
  FaultScript,
  RequestLog,
  startFakeServer,
  type FakeRequest,
  type Handler,
  type Reply,
  type RunningFakeServer,
} from './shared/http-fake.ts';
import { TokenStore } from './shared/token-store.ts';
import {
  DEFAULT_VIDEO_PROCESSING,
  FacebookContent,
  type FacebookPhoto,
  type FacebookVideo,
  type FacebookVideoProcessing,
  type GraphParams,
  type MediaFetch,
  type StoredFacebookPost,
} from './facebook-content.ts';
import {
  invalidParameter,
  nonexistingField,
  pageTokenRequired,
  permissionsError,
  readPermissionMissing,
  serviceUnavailable,
  throttled,
  unknownObject,
  unknownPath,
  type ThrottleCode,
} from './facebook-errors.ts';
import { checkVersion, facebookLogin, tokenRefusal, type ConsentScript, type TokenFailure } from './facebook-login.ts';
import { FacebookTokens, type FacebookToken } from './facebook-tokens.ts';

export { FACEBOOK_PERMISSIONS } from './facebook-login.ts';
export type {
  FacebookPhoto,
  FacebookVideo,
  FacebookVideoProcessing,
  MediaFetch,
  StoredFacebookPost,
} from './facebook-content.ts';

export interface FakeFacebookPage {
  id: string;
  name: string;
  category?: string;
  /** What the user may do on the Page; posting needs CREATE_CONTENT. */
  tasks?: string[];
}

export interface FakeFacebookUser {
  id: string;
  name: string;
  /** The Pages the user administers: one connects directly, several go through the picker. */
  pages: FakeFacebookPage[];
}

export type FacebookRoute =
  | 'authorize'
  | 'token'
  | 'token.exchange'
  | 'me'
  | 'me.accounts'
  | 'me.permissions'
  | 'feed.create'
  | 'feed.list'
  | 'photos.create'
  | 'videos.create'
  | 'videos.list'
  | 'videos.status'
  | 'object.get';

/** The routes that publish something (what `log.creates()` counts when they store it). */
export type FacebookCreateRoute = 'feed.create' | 'photos.create' | 'videos.create';

const ALL_TASKS = ['ADVERTISE', 'ANALYZE', 'CREATE_CONTENT', 'MESSAGING', 'MODERATE', 'MANAGE'];

export interface FakeFacebookOptions {
  port?: number;
  host?: string;
  now?: () => number;
  appId?: string;
  appSecret?: string;
  /** Valid OAuth redirect URIs; when empty, any absolute http(s) URL is accepted. */
  redirectUris?: string[];
  users?: FakeFacebookUser[];
  /** Serve `POST /{page}/videos` on a second origin (`videoUrl`) only. */
  separateVideoHost?: boolean;
  videoPort?: number;
  /** The most Pages one `/me/accounts` answer holds, whatever `limit` asks (100 by default), so tests see paging. */
  accountsPageSize?: number;
  videoProcessing?: FacebookVideoProcessing;
  codeTtlSecs?: number;
}

/** Usage percentages reported on every Graph answer, as `X-App-Usage` and `X-Business-Use-Case-Usage`. */
export interface FacebookUsage {
  app?: number;
  page?: number;
  /** `estimated_time_to_regain_access`, in minutes, on the Page's usage. */
  regainMinutes?: number;
}

export interface FakeFacebook {
  url: string;
  /** The graph-video origin: `url` unless `separateVideoHost`. */
  videoUrl: string;
  appId: string;
  appSecret: string;
  clock: FakeClock;
  log: RequestLog;
  users: FakeFacebookUser[];
  posts: StoredFacebookPost[];
  photos: Map<string, FacebookPhoto>;
  videos: Map<string, FacebookVideo>;
  /** Every media download the fake made, in order. */
  mediaFetches: MediaFetch[];
  script: {
    /** The user the consent dialog logs in as (the first by default). */
    loginAs(userId: string): void;
    /** The user cancels: the redirect carries `error=access_denied&error_reason=user_denied`. */
    denyConsent(deny?: boolean): void;
    /** The user unticks these permissions in the dialog; `/me/permissions` lists them `declined`. */
    declinePermissions(permissions: string[]): void;
    /** Replaces the Pages a user administers (one Page, several for the picker, or none). */
    pages(userId: string, pages: FakeFacebookPage[]): void;
    /** The user removes the app: every token of theirs answers 190 (subcode 458). */
    revoke(userId: string): void;
    /** The next `count` calls answer a throttling error (code 4 by default) with its usage header. */
    rateLimit(route: FacebookRoute, count: number, options?: { code?: ThrottleCode; regainMinutes?: number }): void;
    /** The next `count` calls answer 500, Graph's code 2 with `is_transient`. */
    unavailable(route: FacebookRoute, count: number): void;
    stall(route: FacebookRoute, count?: number): void;
    /** The next `count` calls to the create route store their post, then close the socket unanswered. */
    dropAfterStore(route?: FacebookCreateRoute, count?: number): void;
    /** How videos created from now on process. */
    videoProcessing(script: Partial<FacebookVideoProcessing>): void;
    /** The usage every Graph answer reports from now on; `{}` reports none. */
    usage(levels: FacebookUsage): void;
  };
  /** A long-lived user token and the Page tokens it gives, without the consent dance. */
  issueTokens(
    userId: string,
    scopes?: string[],
  ): { accessToken: string; expiresIn: number; pageTokens: Record<string, string> };
  close(): Promise<void>;
}

const DEFAULT_SCOPES = [
  'public_profile',
  'pages_show_list',
  'pages_manage_posts',
  'pages_read_engagement',
  'publish_video',
];

const DEFAULT_USERS: FakeFacebookUser[] = [
  {
    id: '10200000000000001',
    name: 'Fake Admin',
    pages: [{ id: '100000000000001', name: 'Fake Bakery', category: 'Bakery', tasks: ALL_TASKS }],
  },
  {
    id: '10200000000000002',
    name: 'Agency Admin',
    pages: [
      { id: '100000000000011', name: 'Agency One', category: 'Brand', tasks: ALL_TASKS },
      { id: '100000000000012', name: 'Agency Two', category: 'Brand', tasks: ALL_TASKS },
      { id: '100000000000013', name: 'Agency Three', category: 'Brand', tasks: ALL_TASKS },
    ],
  },
];

export async function startFakeFacebook(options: FakeFacebookOptions = {}): Promise<FakeFacebook> {
  const clock = createFakeClock(options.now);
  const log = new RequestLog();
  const faults = new FaultScript();
  const appId = options.appId ?? String(1_000_000_000_000 + Math.floor(Math.random() * 1e12));
  const appSecret = options.appSecret ?? randomBytes(16).toString('hex');
  const users = (options.users ?? DEFAULT_USERS).map((user) => ({ ...user, pages: [...user.pages] }));
  const codes = new TokenStore(clock, {
    prefix: 'ffb',
    accessTtlSecs: 3600,
    codeTtlSecs: options.codeTtlSecs ?? 600,
    rotateRefresh: false,
  });
  const tokens = new FacebookTokens(clock);
  const content = new FacebookContent(clock);
  content.videoProcessing = options.videoProcessing ?? DEFAULT_VIDEO_PROCESSING;
  const consent: ConsentScript = { userId: users[0]!.id, deny: false, declined: [] };
  let usage: FacebookUsage = {};
  let baseUrl = '';

  const findUser = (id: string) => users.find((user) => user.id === id);
  const findPage = (id: string) => {
    for (const user of users) {
      const page = user.pages.find((candidate) => candidate.id === id);
      if (page) return page;
    }
    return undefined;
  };
  const administers = (userId: string, pageId: string) => findUser(userId)?.pages.find((page) => page.id === pageId);

  const usageHeaders = (pageId: string | undefined): Record<string, string> => {
    const headers: Record<string, string> = {};
    if (usage.app !== undefined) {
      headers['x-app-usage'] = JSON.stringify({ call_count: usage.app, total_cputime: 1, total_time: 1 });
    }
    if (usage.page !== undefined) {
      headers['x-business-use-case-usage'] = JSON.stringify({
        [pageId ?? users[0]!.pages[0]?.id ?? '0']: [
          {
            type: 'pages',
            call_count: usage.page,
            total_cputime: 1,
            total_time: 1,
            estimated_time_to_regain_access: usage.regainMinutes ?? 0,
          },
        ],
      });
    }
    return headers;
  };

  const { authorize, token } = facebookLogin({
    appId,
    appSecret,
    redirectUris: options.redirectUris,
    codes,
    tokens,
    consent,
  });
  const tokenFailure = (checked: TokenFailure) => tokenRefusal(checked, appId);

  /**
   * Every Graph call: the version, then the token (from `Authorization: Bearer|OAuth` or the
   * `access_token` parameter, as Graph takes either), then the handler; the usage headers go on its answer.
   */
  const graph =
    (handler: (request: FakeRequest, params: GraphParams, token: FacebookToken) => Reply | Promise<Reply>): Handler =>
    async (request) => {
      const versionError = checkVersion(request);
      if (versionError) return versionError;
      const params = graphParams(request);
      const checked = tokens.check(
        bearerToken(request) ?? oauthHeaderToken(request) ?? (params.access_token as string | undefined),
      );
      if (!checked.ok) return tokenFailure(checked);
      const reply = await handler(request, params, checked.token);
      if ('drop' in reply) return reply;
      const pageId = checked.token.pageId ?? request.params.page;
      return { ...reply, headers: { ...usageHeaders(pageId), ...reply.headers } };
    };

  type PageAccess = 'publish' | 'publish_video' | 'read';

  /** A call on `/{page}/…`: the Page exists, the token may act for it, and holds the permissions. */
  const onPage = (
    access: PageAccess,
    handler: (request: FakeRequest, params: GraphParams, pageId: string) => Reply | Promise<Reply>,
  ): Handler =>
    graph((request, params, token) => {
      const pageId = request.params.page!;
      const page = findPage(pageId);
      if (!page) return unknownObject(pageId);
      const refusal = pageRefusal(token, pageId, access);
      return refusal ?? handler(request, params, pageId);
    });

  const pageRefusal = (token: FacebookToken, pageId: string, access: PageAccess): Reply | undefined => {
    const page = administers(token.userId, pageId);
    if (access !== 'read' && token.kind !== 'page') return pageTokenRequired();
    if (!page || (token.kind === 'page' && token.pageId !== pageId)) return permissionsError();
    const has = (scope: string) => token.scopes.includes(scope);
    if (access === 'read') return has('pages_read_engagement') ? undefined : readPermissionMissing();
    if (
      !has('pages_manage_posts') ||
      !has('pages_read_engagement') ||
      !(page.tasks ?? ALL_TASKS).includes('CREATE_CONTENT')
    ) {
      return permissionsError(
        '(#200) If posting to a page, requires both pages_read_engagement and pages_manage_posts as an admin with sufficient administrative permission',
      );
    }
    if (access === 'publish_video' && !has('publish_video')) {
      return permissionsError('(#200) The publish_video permission is required to publish videos on a Page');
    }
    return undefined;
  };

  const me = graph((request, _params, token) => {
    if (token.kind === 'page') {
      const page = findPage(token.pageId!)!;
      return fieldsOf('Page', request.query.fields, {
        id: page.id,
        name: page.name,
        link: `https://www.facebook.com/${page.id}`,
        category: page.category,
      });
    }
    const user = findUser(token.userId)!;
    return fieldsOf('User', request.query.fields, { id: user.id, name: user.name });
  });

  const accounts = graph((request, _params, token) => {
    if (token.kind === 'page') return nonexistingField('accounts', 'Page');
    const all = token.scopes.includes('pages_show_list') ? (findUser(token.userId)?.pages ?? []) : [];
    const wanted = (request.query.fields ?? 'id,name,access_token,category,tasks')
      .split(',')
      .map((field) => field.trim())
      .filter(Boolean);
    const allowed = ['id', 'name', 'access_token', 'category', 'tasks'];
    const unknown = wanted.find((field) => !allowed.includes(field));
    if (unknown) return nonexistingField(unknown, 'Page');
    const limit = Number(request.query.limit ?? 25);
    const size = Math.min(Number.isInteger(limit) && limit > 0 ? limit : 25, options.accountsPageSize ?? 100);
    const start = request.query.after ? Number(Buffer.from(request.query.after, 'base64url').toString('utf8')) : 0;
    if (!Number.isInteger(start) || start < 0) return invalidParameter('(#100) The after cursor is invalid');
    const slice = all.slice(start, start + size);
    const data = slice.map((page) => {
      const values: Record<string, unknown> = {
        id: page.id,
        name: page.name,
        category: page.category ?? 'Brand',
        tasks: page.tasks ?? ALL_TASKS,
        access_token: tokens.issuePage(token, page.id),
      };
      return Object.fromEntries(wanted.filter((field) => field in values).map((field) => [field, values[field]]));
    });
    const cursor = (index: number) => Buffer.from(String(index)).toString('base64url');
    const end = start + slice.length;
    const next = new URL(`${baseUrl}${request.path}`);
    // Graph's `next` repeats the call's parameters, the access token among them.
    for (const [name, value] of Object.entries(request.query)) next.searchParams.set(name, value);
    const given = bearerToken(request) ?? oauthHeaderToken(request);
    if (given) next.searchParams.set('access_token', given);
    next.searchParams.set('limit', String(size));
    next.searchParams.set('after', cursor(end));
    return {
      status: 200,
      json: {
        data,
        paging: {
          cursors: { before: cursor(start), after: cursor(Math.max(start, end - 1)) },
          ...(end < all.length && { next: next.toString() }),
        },
      },
    };
  });

  const permissions = graph((_request, _params, token) => {
    if (token.kind === 'page') return nonexistingField('permissions', 'Page');
    return {
      status: 200,
      json: {
        data: [
          ...token.scopes.map((permission) => ({ permission, status: 'granted' })),
          ...token.declined.map((permission) => ({ permission, status: 'declined' })),
        ],
      },
    };
  });

  const readObject = graph((request, _params, token) => {
    const id = request.params.id!;
    const page = findPage(id);
    if (page) {
      const refusal = pageRefusal(token, id, 'read');
      if (refusal) return refusal;
      return fieldsOf('Page', request.query.fields, {
        id: page.id,
        name: page.name,
        link: `https://www.facebook.com/${page.id}`,
        category: page.category,
      });
    }
    const owner = content.ownerOf(id);
    if (!owner) return unknownObject(id);
    return pageRefusal(token, owner, 'read') ?? content.readNode(id, request.query.fields);
  });

  const createFeed = onPage('publish', (_request, params, pageId) =>
    dropIfScripted('feed.create', content.createFeedPost(pageId, params)),
  );
  const createPhoto = onPage('publish', async (_request, params, pageId) =>
    dropIfScripted('photos.create', await content.createPhoto(pageId, params)),
  );
  const createVideo = onPage('publish_video', async (_request, params, pageId) =>
    dropIfScripted('videos.create', await content.createVideo(pageId, params)),
  );

  /** A stored post whose answer the script says to lose. */
  const dropIfScripted = (route: FacebookCreateRoute, reply: Reply): Reply =>
    'createdPost' in reply && reply.createdPost && faults.takeDrop(route) ? { drop: true, createdPost: true } : reply;

  const videosOnOtherHost: Handler = () =>
    invalidParameter('(#100) Video uploads go to the graph-video host (this fake was started with a separate one)');

  const router = new FakeRouter()
    .add('GET', '/:version/dialog/oauth', 'authorize', authorize)
    .add(
      'GET',
      '/:version/oauth/access_token',
      (r) => (r.query.grant_type === 'fb_exchange_token' ? 'token.exchange' : 'token'),
      token,
    )
    .add('GET', '/:version/me', 'me', me)
    .add('GET', '/:version/me/accounts', 'me.accounts', accounts)
    .add('GET', '/:version/me/permissions', 'me.permissions', permissions)
    .add('POST', '/:version/:page/feed', 'feed.create', createFeed)
    .add(
      'GET',
      '/:version/:page/feed',
      'feed.list',
      onPage('read', (request, _params, pageId) => content.listFeed(pageId, request.query)),
    )
    .add('POST', '/:version/:page/photos', 'photos.create', createPhoto)
    .add('POST', '/:version/:page/videos', 'videos.create', options.separateVideoHost ? videosOnOtherHost : createVideo)
    .add(
      'GET',
      '/:version/:page/videos',
      'videos.list',
      onPage('read', (request, _params, pageId) => content.listVideos(pageId, request.query)),
    )
    .add(
      'GET',
      '/:version/:id',
      (r) => (/(^|,)\s*status\s*(,|$)/.test(r.query.fields ?? '') ? 'videos.status' : 'object.get'),
      readObject,
    );

  const notFound = (request: FakeRequest) => unknownPath(request.path);
  const server = await startFakeServer({
    router,
    clock,
    log,
    faults,
    notFound,
    port: options.port,
    host: options.host,
  });
  baseUrl = server.url;
  let videoServer: RunningFakeServer | undefined;
  if (options.separateVideoHost) {
    videoServer = await startFakeServer({
      router: new FakeRouter().add('POST', '/:version/:page/videos', 'videos.create', createVideo),
      clock,
      log,
      faults,
      notFound,
      ...(options.videoPort !== undefined && { port: options.videoPort }),
      ...(options.host !== undefined && { host: options.host }),
    });
  }

  return {
    url: server.url,
    videoUrl: videoServer?.url ?? server.url,
    appId,
    appSecret,
    clock,
    log,
    users,
    posts: content.posts,
    photos: content.photos,
    videos: content.videos,
    mediaFetches: content.mediaFetches,
    script: {
      loginAs: (userId) => {
        if (!findUser(userId)) throw new Error(`No fake Facebook user ${userId}`);
        consent.userId = userId;
      },
      denyConsent: (deny = true) => {
        consent.deny = deny;
      },
      declinePermissions: (declined) => {
        consent.declined = [...declined];
      },
      pages: (userId, pages) => {
        const user = findUser(userId);
        if (!user) throw new Error(`No fake Facebook user ${userId}`);
        user.pages = [...pages];
      },
      revoke: (userId) => tokens.revokeUser(userId),
      rateLimit: (route, count, throttle = {}) => {
        const code = throttle.code ?? 4;
        const pageLevel = code === 32 || code >= 80001;
        faults.failNext(route, count, () =>
          throttled(
            code,
            pageLevel
              ? {
                  'x-business-use-case-usage': JSON.stringify({
                    [users[0]!.pages[0]?.id ?? '0']: [
                      {
                        type: 'pages',
                        call_count: 100,
                        total_cputime: 20,
                        total_time: 20,
                        estimated_time_to_regain_access: throttle.regainMinutes ?? 0,
                      },
                    ],
                  }),
                }
              : { 'x-app-usage': JSON.stringify({ call_count: 100, total_cputime: 20, total_time: 20 }) },
          ),
        );
      },
      unavailable: (route, count) => faults.failNext(route, count, serviceUnavailable),
      stall: (route, count = 1) => faults.stallNext(route, count),
      dropAfterStore: (route = 'feed.create', count = 1) => faults.dropAfterStore(route, count),
      videoProcessing: (script) => {
        content.videoProcessing = { ...DEFAULT_VIDEO_PROCESSING, ...script };
      },
      usage: (levels) => {
        usage = { ...levels };
      },
    },
    issueTokens: (userId, scopes = DEFAULT_SCOPES) => {
      const user = findUser(userId);
      if (!user) throw new Error(`No fake Facebook user ${userId}`);
      const issued = tokens.issueUser(userId, { scopes, declined: [] }, true);
      const checked = tokens.check(issued.value);
      const owner = (checked as { token: FacebookToken }).token;
      return {
        accessToken: issued.value,
        expiresIn: issued.expiresIn,
        pageTokens: Object.fromEntries(user.pages.map((page) => [page.id, tokens.issuePage(owner, page.id)])),
      };
    },
    close: async () => {
      await Promise.all([server.close(), videoServer?.close()]);
    },
  };
}

/** Graph reads parameters from the query and from a form, multipart or JSON body alike. */
function graphParams(request: FakeRequest): GraphParams {
  const params: GraphParams = { ...request.query };
  const { body } = request;
  if (body.kind === 'form' || body.kind === 'multipart') Object.assign(params, body.fields);
  if (body.kind === 'json' && typeof body.value === 'object' && body.value !== null && !Array.isArray(body.value)) {
    Object.assign(params, body.value);
  }
  return params;
}

/** `Authorization: OAuth <token>`, the scheme Graph's own SDKs send. */
function oauthHeaderToken(request: FakeRequest): string | undefined {
  return /^OAuth\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
}

const NODE_FIELDS: Record<'User' | 'Page', string[]> = {
  User: ['id', 'name'],
  Page: ['id', 'name', 'link', 'category'],
};

function fieldsOf(type: 'User' | 'Page', fields: string | undefined, values: Record<string, unknown>): Reply {
  const wanted = (fields ?? 'id,name')
    .split(',')
    .map((field) => field.trim())
    .filter(Boolean);
  const unknown = wanted.find((field) => !NODE_FIELDS[type].includes(field));
  if (unknown) return nonexistingField(unknown, type);
  return {
    status: 200,
    json: Object.fromEntries(
      wanted.filter((field) => values[field] !== undefined).map((field) => [field, values[field]]),
    ),
  };
}
