/**
 * A fake Threads (Meta's Threads API) on loopback: the consent window, the token endpoints and the
 * Graph calls the publisher makes, each checked the way Threads documents it. Codes work once; the
 * short-lived token is traded once (`th_exchange_token`) for a 60-day one; only a long-lived token at
 * least 24 hours old is renewed (`th_refresh_token`). Containers really GET their `image_url` /
 * `video_url` (Threads downloads media itself), stay IN_PROGRESS for as many status reads as scripted,
 * and only a FINISHED one is published (else code 24, subcode 4279009). Text is at most 500
 * characters with an emoji counted by its UTF-8 bytes, and at most 5 links. Errors use Meta's Graph
 * envelope.
 */
import { randomBytes } from 'node:crypto';
import { createFakeClock, type FakeClock } from './shared/clock.ts';
import { FaultScript, RequestLog, type FakeRequest, type Reply } from './shared/http-fake.ts';
import { numericId } from './shared/token-store.ts';
import { fieldList, graphError, graphParams, invalidParameter, pickFields, PublishingQuota } from './meta-graph.ts';
import { FakeContainerApi, startMetaServer, type ContainerRoutes } from './meta-containers.ts';
import { isReply, MetaLogin } from './meta-login.ts';

const THREADS_ROUTES: ContainerRoutes = {
  posts: { edge: 'threads', create: 'threads.create', list: 'threads.list', read: 'threads.get' },
  publish: { edge: 'threads_publish', label: 'threads.publish' },
  publishingLimit: { edge: 'threads_publishing_limit', label: 'threads.publishing_limit' },
};

export const THREADS_SCOPES = ['threads_basic', 'threads_content_publish'] as const;
const MAX_TEXT = 500;
const MAX_LINKS = 5;
const MIN_CAROUSEL = 2;
const MAX_CAROUSEL = 20;

export interface FakeThreadsUser {
  id: string;
  username: string;
  name: string;
}

export interface FakeThreadsContainer {
  id: string;
  ownerId: string;
  mediaType: 'TEXT' | 'IMAGE' | 'VIDEO' | 'CAROUSEL';
  text: string | null;
  mediaUrl: string | null;
  children: string[];
  isCarouselItem: boolean;
  status: 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'PUBLISHED';
  /** Status reads left before it is FINISHED. */
  pollsLeft: number;
}

export interface FakeThreadsPost {
  id: string;
  ownerId: string;
  containerId: string;
  mediaType: FakeThreadsContainer['mediaType'];
  text: string | null;
  /** The media URLs in order (a carousel's children's). */
  mediaUrls: string[];
  permalink: string;
  timestamp: string;
}

export interface FakeThreadsOptions {
  appId?: string;
  appSecret?: string;
  users?: FakeThreadsUser[];
  /** How many status reads each new container stays IN_PROGRESS (0: FINISHED at once). */
  inProgressPolls?: number;
  quotaTotal?: number;
  port?: number;
  host?: string;
  now?: () => number;
}

export interface FakeThreads {
  url: string;
  appId: string;
  appSecret: string;
  clock: FakeClock;
  log: RequestLog;
  users: FakeThreadsUser[];
  containers: FakeThreadsContainer[];
  posts: FakeThreadsPost[];
  /** Every media URL the fake downloaded, with the status it got (0: no answer). */
  mediaFetches: Array<{ url: string; status: number }>;
  script: {
    loginAs(userId: string): void;
    denyConsent(deny?: boolean): void;
    /** Every token of the user stops working. */
    revoke(userId: string): void;
    /** How many status reads new containers stay IN_PROGRESS. */
    inProgressPolls(polls: number): void;
    /** The next `count` calls to `route` answer 429 with Meta's throttle error. */
    rateLimit(route: string, count?: number): void;
    /** The next `count` calls to `route` answer 500. */
    unavailable(route: string, count?: number): void;
    /** The next `count` publishes store the post, then close the connection without an answer. */
    dropAfterStore(count?: number): void;
    /** Posts counted against the quota as if published now (their content does not matter). */
    usedQuota(userId: string, count: number): void;
  };
  /** A long-lived token without the consent dance, for tests about something else. */
  issueTokens(userId: string): { accessToken: string };
  close(): Promise<void>;
}

const DEFAULT_USERS: FakeThreadsUser[] = [
  { id: '26100000000000001', username: 'fake.threader', name: 'Fake Threader' },
  { id: '26100000000000002', username: 'other.threader', name: 'Other Threader' },
];

/** A container not FINISHED yet, published or made a carousel item: code 24, subcode 4279009. */
const notReady = (message: string) => graphError(400, 24, message, { subcode: 4279009 });

/** Threads' count: a character is one, an emoji (a whole grapheme) its UTF-8 bytes. */
function threadsLength(text: string): number {
  const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
  let length = 0;
  for (const { segment } of segmenter.segment(text)) {
    length += /\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(segment)
      ? Buffer.byteLength(segment)
      : [...segment].length;
  }
  return length;
}

const linksIn = (text: string): number =>
  (text.match(/\bhttps?:\/\/\S+|\b[a-z0-9-]+\.[a-z]{2,}(\/\S*)?/gi) ?? []).length;

export async function startFakeThreads(options: FakeThreadsOptions = {}): Promise<FakeThreads> {
  const clock = createFakeClock(options.now);
  const log = new RequestLog();
  const faults = new FaultScript();
  const appId = options.appId ?? numericId(16);
  const appSecret = options.appSecret ?? randomBytes(16).toString('hex');
  const users = options.users ?? DEFAULT_USERS;
  const login = new MetaLogin(clock, {
    name: 'Threads',
    tokenPrefix: 'THfake',
    clientId: appId,
    clientSecret: appSecret,
    scopes: THREADS_SCOPES,
    requiredScope: 'threads_basic',
    publishScope: 'threads_content_publish',
    routeLabels: { authorize: 'oauth.authorize', exchange: 'oauth.exchange', refresh: 'oauth.refresh' },
    grants: { exchange: 'th_exchange_token', refresh: 'th_refresh_token' },
    codeTtlSecs: 600,
    users,
    idOf: (user) => user.id,
  });
  const containers: FakeThreadsContainer[] = [];
  const posts: FakeThreadsPost[] = [];
  const quota = new PublishingQuota(clock, options.quotaTotal ?? 250, (userId) =>
    posts.filter((post) => post.ownerId === userId).map((post) => Date.parse(post.timestamp)),
  );
  const mediaFetches: FakeThreads['mediaFetches'] = [];
  let inProgressPolls = options.inProgressPolls ?? 0;

  /** POST graph.threads.net/oauth/access_token: the code for a short-lived token, refusals in Graph's envelope. */
  const token = (request: FakeRequest): Reply => {
    const form =
      request.body.kind === 'form' ? request.body.fields : request.body.kind === 'none' ? request.query : undefined;
    if (!form) return invalidParameter('The body must be form-encoded.');
    for (const name of ['client_id', 'client_secret', 'grant_type', 'redirect_uri', 'code']) {
      if (!form[name]) return invalidParameter(`The parameter ${name} is required`);
    }
    if (form.client_id !== appId) return invalidParameter('Invalid client_id');
    if (form.client_secret !== appSecret) return graphError(400, 101, 'Error validating client secret.');
    if (form.grant_type !== 'authorization_code') return invalidParameter('Unsupported grant_type');
    const redeemed = login.redeemCode(form.code!);
    if (!redeemed.ok) return invalidParameter('Invalid verification code format.', 36009);
    if (redeemed.code.redirectUri !== form.redirect_uri) {
      return invalidParameter(
        'Error validating verification code. Please make sure your redirect_uri is identical.',
        36008,
      );
    }
    const issued = login.issueShortLived(redeemed.code.userId, redeemed.code.scopes);
    return { status: 200, json: { access_token: issued.accessToken, user_id: Number(redeemed.code.userId) } };
  };

  const me = (request: FakeRequest): Reply => {
    const access = login.authenticate(request);
    if (isReply(access)) return access;
    const { user } = access;
    const all = {
      id: user.id,
      username: user.username,
      name: user.name,
      threads_profile_picture_url: `https://scontent.cdninstagram.invalid/${user.username}.jpg`,
    };
    return { status: 200, json: pickFields(all, fieldList(request, ['id'])) };
  };

  /** Threads downloads the media itself: a URL it cannot fetch makes no container. */
  const download = async (url: string): Promise<boolean> => {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      await response.arrayBuffer();
      mediaFetches.push({ url, status: response.status });
      return response.ok;
    } catch {
      mediaFetches.push({ url, status: 0 });
      return false;
    }
  };

  const newContainer = (
    ownerId: string,
    fieldsOf: Omit<FakeThreadsContainer, 'id' | 'ownerId' | 'status' | 'pollsLeft'>,
  ) => {
    const container: FakeThreadsContainer = {
      id: numericId(17),
      ownerId,
      ...fieldsOf,
      status: inProgressPolls > 0 ? 'IN_PROGRESS' : 'FINISHED',
      pollsLeft: inProgressPolls,
    };
    containers.push(container);
    return { status: 200, json: { id: container.id } } satisfies Reply;
  };

  /** POST /{user-id}/threads: one container (parameters in the query, as Threads documents, or a form). */
  const createContainer = async (request: FakeRequest, user: FakeThreadsUser): Promise<Reply> => {
    const p = graphParams(request);
    const mediaType = p.media_type;
    if (mediaType !== 'TEXT' && mediaType !== 'IMAGE' && mediaType !== 'VIDEO' && mediaType !== 'CAROUSEL') {
      return invalidParameter('media_type must be TEXT, IMAGE, VIDEO or CAROUSEL');
    }
    const text = p.text ?? null;
    if (text !== null) {
      if (threadsLength(text) > MAX_TEXT)
        return invalidParameter(`The text is longer than ${MAX_TEXT} characters.`, 2207006);
      if (linksIn(text) > MAX_LINKS) return invalidParameter(`The text has more than ${MAX_LINKS} links.`, 2207007);
    }
    const isCarouselItem = p.is_carousel_item === 'true';
    if (mediaType === 'TEXT') {
      if (!text) return invalidParameter('The parameter text is required for a TEXT post.');
      return newContainer(user.id, { mediaType, text, mediaUrl: null, children: [], isCarouselItem: false });
    }
    if (mediaType === 'CAROUSEL') {
      const children = (p.children ?? '').split(',').filter(Boolean);
      if (children.length < MIN_CAROUSEL || children.length > MAX_CAROUSEL) {
        return invalidParameter(`A carousel takes ${MIN_CAROUSEL} to ${MAX_CAROUSEL} children.`);
      }
      for (const id of children) {
        const child = containers.find((candidate) => candidate.id === id && candidate.ownerId === user.id);
        if (!child || !child.isCarouselItem)
          return invalidParameter(`Child ${id} is not a carousel item of this user.`);
        if (child.status !== 'FINISHED') return notReady(`Child ${id} is not ready.`);
      }
      return newContainer(user.id, { mediaType, text, mediaUrl: null, children, isCarouselItem: false });
    }
    const url = mediaType === 'IMAGE' ? p.image_url : p.video_url;
    if (!url)
      return invalidParameter(`The parameter ${mediaType === 'IMAGE' ? 'image_url' : 'video_url'} is required.`);
    if (!(await download(url))) return invalidParameter('Media download has failed.', 2207052);
    return newContainer(user.id, { mediaType, text, mediaUrl: url, children: [], isCarouselItem });
  };

  /** A status read moves an IN_PROGRESS container along: FINISHED after its scripted reads. */
  const readStatus = (container: FakeThreadsContainer, fields: string[]): Reply => {
    if (container.status === 'IN_PROGRESS') {
      container.pollsLeft -= 1;
      if (container.pollsLeft < 0) container.status = 'FINISHED';
    }
    const all = { id: container.id, status: container.status, error_message: null };
    return { status: 200, json: pickFields(all, fields) };
  };

  const publish = (container: FakeThreadsContainer): FakeThreadsPost => {
    const owner = users.find((user) => user.id === container.ownerId)!;
    container.status = 'PUBLISHED';
    const mediaUrls =
      container.mediaType === 'CAROUSEL'
        ? container.children.map((child) => containers.find((c) => c.id === child)!.mediaUrl!)
        : container.mediaUrl
          ? [container.mediaUrl]
          : [];
    const post: FakeThreadsPost = {
      id: numericId(17),
      ownerId: owner.id,
      containerId: container.id,
      mediaType: container.mediaType,
      text: container.text,
      mediaUrls,
      permalink: `https://www.threads.net/@${owner.username}/post/${randomBytes(8).toString('base64url')}`,
      timestamp: new Date(clock.now()).toISOString(),
    };
    posts.push(post);
    return post;
  };

  const containerApi = new FakeContainerApi(login, quota, faults, THREADS_ROUTES, {
    create: createContainer,
    container: (id) => containers.find((candidate) => candidate.id === id),
    status: (container) => container.status,
    readStatus,
    publish,
    posts: () => posts,
    postFields: (post) => ({
      id: post.id,
      media_type:
        post.mediaType === 'CAROUSEL' ? 'CAROUSEL_ALBUM' : post.mediaType === 'TEXT' ? 'TEXT_POST' : post.mediaType,
      text: post.text,
      permalink: post.permalink,
      timestamp: post.timestamp,
    }),
    refusals: {
      unknownContainer: (id) => invalidParameter(`Invalid creation_id ${id}.`, 4279001),
      carouselItem: (id) => invalidParameter(`Invalid creation_id ${id}.`, 4279001),
      notPublishable: (status) =>
        status === 'PUBLISHED'
          ? invalidParameter('The container was already published.', 4279002)
          : notReady('The media is not ready to be published.'),
      quotaReached: () => invalidParameter('The publishing limit for the last 24 hours is reached.', 2207042),
    },
  });

  const codeExchange = { label: 'oauth.token', handler: token };
  const server = await startMetaServer({ clock, log, faults }, { login, codeExchange, me, containerApi }, options);

  return {
    url: server.url,
    appId,
    appSecret,
    clock,
    log,
    users,
    containers,
    posts,
    mediaFetches,
    script: {
      ...login.script,
      inProgressPolls: (polls) => {
        inProgressPolls = polls;
      },
      rateLimit: (route, count = 1) =>
        faults.failNext(route, count, () => graphError(429, 4, 'Application request limit reached')),
      unavailable: (route, count = 1) =>
        faults.failNext(route, count, () => graphError(500, 1, 'An unknown error occurred', { transient: true })),
      dropAfterStore: (count = 1) => faults.dropAfterStore('threads.publish', count),
      usedQuota: (userId, count) => quota.script(userId, { used: count }),
    },
    issueTokens: (userId) => ({ accessToken: login.issueLongLived(userId, [...THREADS_SCOPES]).accessToken }),
    close: () => server.close(),
  };
}
