/**
 * A fake Bluesky server (an AT Protocol PDS) on loopback: the XRPC calls the service makes, each
 * checked the way the lexicons describe them. Sessions come from `com.atproto.server.createSession`
 * with an app password (at most 30 per 5 minutes per account, as the platform limits them), live
 * 2 hours (refresh tokens 90 days), and `refreshSession` rotates both, killing the old refresh token;
 * an expired access token answers 400 `ExpiredToken`. Blobs are held per account; a post's record is
 * checked against `app.bsky.feed.post` (300 graphemes, 3,000 UTF-8 bytes, facets within the text's
 * bytes, at most 3 well-formed language tags, at most 4 images of at most 2,000,000 bytes each, with
 * alt text), and a create at a record key already taken answers a plain 500, as today's PDS does.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createFakeClock, type FakeClock } from './shared/clock.ts';
import {
  bearerToken,
  FakeRouter,
  FaultScript,
  jsonObject,
  RequestLog,
  startFakeServer,
  type FakeRequest,
  type Reply,
} from './shared/http-fake.ts';

const ACCESS_LIFETIME_MS = 2 * 3_600_000;
const REFRESH_LIFETIME_MS = 90 * 86_400_000;
const SESSION_WINDOW_MS = 5 * 60_000;
const SESSIONS_PER_WINDOW = 30;
const MAX_TEXT_GRAPHEMES = 300;
const MAX_TEXT_BYTES = 3_000;
const MAX_IMAGES = 4;
const MAX_IMAGE_BYTES = 2_000_000;
/** `app.bsky.feed.post#langs`: at most 3, each of the lexicon's `language` format (BCP 47, as @atproto/syntax checks it). */
const MAX_LANGS = 3;
const BCP47 =
  /^((en-GB-oed|i-ami|i-bnn|i-default|i-enochian|i-hak|i-klingon|i-lux|i-mingo|i-navajo|i-pwn|i-tao|i-tay|i-tsu|sgn-BE-FR|sgn-BE-NL|sgn-CH-DE|art-lojban|cel-gaulish|no-bok|no-nyn|zh-guoyu|zh-hakka|zh-min|zh-min-nan|zh-xiang)|(([A-Za-z]{2,3}(-[A-Za-z]{3}(-[A-Za-z]{3}){0,2})?|[A-Za-z]{4}|[A-Za-z]{5,8})(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?(-([A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*(-[0-9A-WY-Za-wy-z](-[A-Za-z0-9]{2,8})+)*(-[xX](-[A-Za-z0-9]{1,8})+)?)|([xX](-[A-Za-z0-9]{1,8})+))$/;

/** What uploadBlob itself takes: the image limit is the record's, checked when a post uses the blob. */
const MAX_UPLOAD_BYTES = 50_000_000;
const TID = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/;
const POST = 'app.bsky.feed.post';

export interface FakeBlueskyAccount {
  did: string;
  handle: string;
  email: string;
  /** The app password that signs in. */
  appPassword: string;
}

export interface FakeBlueskyPost {
  uri: string;
  cid: string;
  did: string;
  rkey: string;
  record: Record<string, unknown>;
}

export interface FakeBlueskyBlob {
  cid: string;
  did: string;
  mimeType: string;
  size: number;
}

export interface FakeBlueskyOptions {
  accounts?: FakeBlueskyAccount[];
  port?: number;
  host?: string;
  now?: () => number;
}

export interface FakeBluesky {
  url: string;
  clock: FakeClock;
  log: RequestLog;
  accounts: FakeBlueskyAccount[];
  posts: FakeBlueskyPost[];
  blobs: FakeBlueskyBlob[];
  script: {
    /** The next `count` refreshSession calls are refused (400 ExpiredToken), as for a revoked app password. */
    refuseRefresh(count?: number): void;
    /** The next `count` creates store the post, then close the connection without an answer. */
    dropAfterStore(count?: number): void;
    /** The next `count` calls to `route` answer 429 RateLimitExceeded with the RateLimit-* headers. */
    rateLimit(route: string, count?: number): void;
    /** The next `count` calls to `route` answer 500. */
    unavailable(route: string, count?: number): void;
  };
  close(): Promise<void>;
}

const DEFAULT_ACCOUNTS: FakeBlueskyAccount[] = [
  {
    did: 'did:plc:fakeskyer7a2b3c4d5e6f7g',
    handle: 'fake-skyer.bsky.social',
    email: 'skyer@example.com',
    appPassword: 'abcd-efgh-ijkl-mnop',
  },
  {
    did: 'did:plc:otherskyer2h3j4k5l6m7n',
    handle: 'other-skyer.bsky.social',
    email: 'other@example.com',
    appPassword: 'qrst-uvwx-yz23-4567',
  },
];

/** The XRPC error envelope. */
const xrpcError = (status: number, error: string, message: string, headers?: Record<string, string>): Reply => ({
  status,
  json: { error, message },
  ...(headers && { headers }),
});

interface Session {
  did: string;
  accessJwt: string;
  refreshJwt: string;
  accessExpiresAt: number;
  refreshExpiresAt: number;
  revoked: boolean;
}

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

export async function startFakeBluesky(options: FakeBlueskyOptions = {}): Promise<FakeBluesky> {
  const clock = createFakeClock(options.now);
  const log = new RequestLog();
  const faults = new FaultScript();
  const accounts = (options.accounts ?? DEFAULT_ACCOUNTS).map((account) => ({ ...account }));
  const posts: FakeBlueskyPost[] = [];
  const blobs: FakeBlueskyBlob[] = [];
  const sessions: Session[] = [];
  const signIns = new Map<string, number[]>();
  let refusedRefreshes = 0;

  /** A JWT-shaped token: the service reads `exp`; the fake recognises it by its whole value. */
  const jwt = (did: string, scope: string, expiresAt: number) =>
    [
      Buffer.from(JSON.stringify({ typ: 'JWT', alg: 'HS256' })).toString('base64url'),
      Buffer.from(
        JSON.stringify({ scope, sub: did, iat: Math.floor(clock.now() / 1000), exp: Math.floor(expiresAt / 1000) }),
      ).toString('base64url'),
      randomBytes(24).toString('base64url'),
    ].join('.');

  const openSession = (did: string): Session => {
    const now = clock.now();
    const session: Session = {
      did,
      accessExpiresAt: now + ACCESS_LIFETIME_MS,
      refreshExpiresAt: now + REFRESH_LIFETIME_MS,
      accessJwt: jwt(did, 'com.atproto.appPass', now + ACCESS_LIFETIME_MS),
      refreshJwt: jwt(did, 'com.atproto.refresh', now + REFRESH_LIFETIME_MS),
      revoked: false,
    };
    sessions.push(session);
    return session;
  };

  const sessionAnswer = (session: Session): Reply => {
    const account = accounts.find((candidate) => candidate.did === session.did)!;
    return {
      status: 200,
      json: {
        accessJwt: session.accessJwt,
        refreshJwt: session.refreshJwt,
        handle: account.handle,
        did: account.did,
        email: account.email,
        active: true,
      },
    };
  };

  /** The session whose access token the request carries, or the XRPC refusal. */
  const authorized = (request: FakeRequest): { session: Session } | { refusal: Reply } => {
    const token = bearerToken(request);
    if (!token) return { refusal: xrpcError(401, 'AuthMissing', 'Authentication Required') };
    if (sessions.some((session) => session.refreshJwt === token)) {
      return { refusal: xrpcError(400, 'InvalidToken', 'Bad token scope') };
    }
    const session = sessions.find((candidate) => candidate.accessJwt === token);
    if (!session || session.revoked) return { refusal: xrpcError(401, 'InvalidToken', 'Token could not be verified') };
    if (session.accessExpiresAt <= clock.now()) return { refusal: xrpcError(400, 'ExpiredToken', 'Token has expired') };
    return { session };
  };

  const createSession = (request: FakeRequest): Reply => {
    if (request.body.kind !== 'json')
      return xrpcError(400, 'InvalidRequest', 'Request encoding (Content-Type) required but not provided');
    const body = jsonObject(request) ?? {};
    const { identifier, password } = body;
    if (typeof identifier !== 'string' || typeof password !== 'string') {
      return xrpcError(400, 'InvalidRequest', 'Input must have the properties "identifier" and "password"');
    }
    const wanted = identifier.toLowerCase().replace(/^@/, '');
    const account = accounts.find((candidate) => [candidate.handle, candidate.did, candidate.email].includes(wanted));
    const now = clock.now();
    if (account) {
      const recent = (signIns.get(account.did) ?? []).filter((at) => at > now - SESSION_WINDOW_MS);
      if (recent.length >= SESSIONS_PER_WINDOW) {
        return xrpcError(429, 'RateLimitExceeded', 'Rate Limit Exceeded', {
          'ratelimit-limit': String(SESSIONS_PER_WINDOW),
          'ratelimit-remaining': '0',
          'ratelimit-reset': String(Math.ceil((recent[0]! + SESSION_WINDOW_MS) / 1000)),
          'ratelimit-policy': `${SESSIONS_PER_WINDOW};w=300`,
        });
      }
      signIns.set(account.did, [...recent, now]);
    }
    if (!account || account.appPassword !== password) {
      return xrpcError(401, 'AuthenticationRequired', 'Invalid identifier or password');
    }
    return sessionAnswer(openSession(account.did));
  };

  const refreshSession = (request: FakeRequest): Reply => {
    const token = bearerToken(request);
    const session = sessions.find((candidate) => candidate.refreshJwt === token);
    if (!token || !session || session.revoked) return xrpcError(400, 'InvalidToken', 'Token could not be verified');
    if (session.refreshExpiresAt <= clock.now()) return xrpcError(400, 'ExpiredToken', 'Token has expired');
    if (refusedRefreshes > 0) {
      refusedRefreshes -= 1;
      session.revoked = true;
      return xrpcError(400, 'ExpiredToken', 'Token has been revoked');
    }
    // Rotation: the old pair stops working, the new one is answered.
    session.revoked = true;
    return sessionAnswer(openSession(session.did));
  };

  const uploadBlob = (request: FakeRequest): Reply => {
    const auth = authorized(request);
    if ('refusal' in auth) return auth.refusal;
    if (request.body.kind !== 'binary') {
      return xrpcError(400, 'InvalidRequest', 'Request encoding (Content-Type) required but not provided');
    }
    const { bytes, contentType } = request.body;
    if (bytes.length > MAX_UPLOAD_BYTES) return xrpcError(400, 'BlobTooLarge', 'This file is too large');
    const cid = `bafkrei${createHash('sha256').update(bytes).digest('hex').slice(0, 52)}`;
    const mimeType = contentType.split(';')[0]!.trim();
    const blob = { cid, did: auth.session.did, mimeType, size: bytes.length };
    if (!blobs.some((held) => held.cid === cid && held.did === blob.did)) blobs.push(blob);
    return { status: 200, json: { blob: { $type: 'blob', ref: { $link: cid }, mimeType, size: bytes.length } } };
  };

  /** Every way `record` breaks `app.bsky.feed.post` for `did`, or null when it is valid. */
  const recordProblem = (did: string, record: Record<string, unknown>): string | null => {
    if (record.$type !== POST) return `Invalid $type: must be ${POST}`;
    const { text, createdAt, facets, embed, langs } = record;
    if (typeof text !== 'string') return 'Record/text must be a string';
    if ([...graphemes.segment(text)].length > MAX_TEXT_GRAPHEMES)
      return `Record/text must not be longer than ${MAX_TEXT_GRAPHEMES} graphemes`;
    const textBytes = Buffer.byteLength(text, 'utf8');
    if (textBytes > MAX_TEXT_BYTES) return `Record/text must not be longer than ${MAX_TEXT_BYTES} characters`;
    if (typeof createdAt !== 'string' || Number.isNaN(Date.parse(createdAt)))
      return 'Record/createdAt must be a valid datetime';
    if (facets !== undefined) {
      if (!Array.isArray(facets)) return 'Record/facets must be an array';
      for (const [i, facet] of facets.entries()) {
        const index = (facet as { index?: { byteStart?: unknown; byteEnd?: unknown } })?.index;
        const start = index?.byteStart;
        const end = index?.byteEnd;
        if (typeof start !== 'number' || typeof end !== 'number' || start < 0 || end <= start || end > textBytes) {
          return `Record/facets/${i}/index must be a byte range within the text`;
        }
        const features = (facet as { features?: unknown }).features;
        if (!Array.isArray(features) || features.length === 0) return `Record/facets/${i}/features must not be empty`;
        for (const feature of features as Array<Record<string, unknown>>) {
          const type = feature.$type;
          const ok =
            (type === 'app.bsky.richtext.facet#link' && typeof feature.uri === 'string') ||
            (type === 'app.bsky.richtext.facet#mention' &&
              typeof feature.did === 'string' &&
              feature.did.startsWith('did:')) ||
            (type === 'app.bsky.richtext.facet#tag' && typeof feature.tag === 'string' && !feature.tag.startsWith('#'));
          if (!ok) return `Record/facets/${i}/features has an invalid feature`;
        }
      }
    }
    if (langs !== undefined) {
      if (!Array.isArray(langs)) return 'Record/langs must be an array';
      if (langs.length > MAX_LANGS) return `Record/langs must not have more than ${MAX_LANGS} elements`;
      for (const [i, lang] of langs.entries()) {
        if (typeof lang !== 'string' || !BCP47.test(lang))
          return `Record/langs/${i} must be a well-formed BCP 47 language tag`;
      }
    }
    if (embed !== undefined) {
      const { $type, images } = embed as { $type?: unknown; images?: unknown };
      if ($type !== 'app.bsky.embed.images' || !Array.isArray(images))
        return 'Record/embed must be app.bsky.embed.images';
      if (images.length === 0 || images.length > MAX_IMAGES)
        return `Record/embed/images must hold 1 to ${MAX_IMAGES} images`;
      for (const [i, entry] of (images as Array<Record<string, unknown>>).entries()) {
        if (typeof entry.alt !== 'string') return `Record/embed/images/${i}/alt must be a string`;
        const ratio = entry.aspectRatio as { width?: unknown; height?: unknown } | undefined;
        if (ratio !== undefined && !(Number(ratio.width) >= 1 && Number(ratio.height) >= 1)) {
          return `Record/embed/images/${i}/aspectRatio must have a positive width and height`;
        }
        const image = entry.image as { $type?: unknown; ref?: { $link?: unknown }; mimeType?: unknown; size?: unknown };
        const blob = blobs.find((held) => held.did === did && held.cid === image?.ref?.$link);
        if (image?.$type !== 'blob' || !blob) return `Could not find blob: ${String(image?.ref?.$link)}`;
        if (!blob.mimeType.startsWith('image/'))
          return `Wrong type of file. It is ${blob.mimeType} but it must match image/*`;
        if (blob.size > MAX_IMAGE_BYTES) {
          return `This file is too large. It is ${blob.size} bytes but the maximum size is ${MAX_IMAGE_BYTES} bytes`;
        }
      }
    }
    return null;
  };

  const createRecord = (request: FakeRequest): Reply => {
    const auth = authorized(request);
    if ('refusal' in auth) return auth.refusal;
    const body = jsonObject(request);
    if (request.body.kind !== 'json' || !body)
      return xrpcError(400, 'InvalidRequest', 'Request encoding (Content-Type) required but not provided');
    const { did } = auth.session;
    const account = accounts.find((candidate) => candidate.did === did)!;
    if (body.repo !== did && body.repo !== account.handle) return xrpcError(400, 'InvalidRequest', 'Invalid repo');
    if (body.collection !== POST)
      return xrpcError(400, 'InvalidRequest', `Invalid collection: ${String(body.collection)}`);
    const rkey = body.rkey === undefined ? nextTid() : body.rkey;
    if (typeof rkey !== 'string' || !TID.test(rkey))
      return xrpcError(400, 'InvalidRequest', 'Invalid record key: must be a TID');
    if (typeof body.record !== 'object' || body.record === null)
      return xrpcError(400, 'InvalidRequest', 'Input/record must be an object');
    const problem = recordProblem(did, body.record as Record<string, unknown>);
    if (problem) return xrpcError(400, 'InvalidRequest', `Invalid app.bsky.feed.post record: ${problem}`);
    // Today's PDS: a repeated key fails deep in the repo write, surfacing as a plain 500.
    if (posts.some((post) => post.did === did && post.rkey === rkey)) {
      return xrpcError(500, 'InternalServerError', 'Internal Server Error');
    }
    const uri = `at://${did}/${POST}/${rkey}`;
    const cid = `bafyrei${createHash('sha256').update(JSON.stringify(body.record)).digest('hex').slice(0, 52)}`;
    posts.push({ uri, cid, did, rkey, record: body.record as Record<string, unknown> });
    if (faults.takeDrop('createRecord')) return { drop: true, createdPost: true };
    return {
      status: 200,
      createdPost: true,
      json: { uri, cid, commit: { cid: `bafyreicommit${rkey}`, rev: rkey }, validationStatus: 'valid' },
    };
  };

  const getRecord = (request: FakeRequest): Reply => {
    const { repo, collection, rkey } = request.query;
    if (!repo || !collection || !rkey)
      return xrpcError(400, 'InvalidRequest', 'Params must have the properties "repo", "collection" and "rkey"');
    const account = accounts.find((candidate) => candidate.did === repo || candidate.handle === repo);
    if (!account) return xrpcError(400, 'InvalidRequest', `Could not find repo: ${repo}`);
    const post = posts.find(
      (candidate) => candidate.did === account.did && candidate.rkey === rkey && collection === POST,
    );
    if (!post)
      return xrpcError(400, 'RecordNotFound', `Could not locate record: at://${account.did}/${collection}/${rkey}`);
    return { status: 200, json: { uri: post.uri, cid: post.cid, value: post.record } };
  };

  const resolveHandle = (request: FakeRequest): Reply => {
    const handle = (request.query.handle ?? '').toLowerCase();
    if (!handle) return xrpcError(400, 'InvalidRequest', 'Params must have the property "handle"');
    const account = accounts.find((candidate) => candidate.handle === handle);
    if (!account) return xrpcError(400, 'InvalidRequest', 'Unable to resolve handle');
    return { status: 200, json: { did: account.did } };
  };

  let lastTid = 0;
  /** A key the server picks when the client names none (the service always names one). */
  const nextTid = () => {
    lastTid = Math.max(lastTid + 1, clock.now() * 1000);
    const digits = '234567abcdefghijklmnopqrstuvwxyz';
    let value = lastTid;
    let out = '';
    for (let i = 0; i < 11; i++) {
      out = digits[value % 32]! + out;
      value = Math.floor(value / 32);
    }
    return `${out}22`;
  };

  const procedure = (nsid: string) => `/xrpc/${nsid}`;
  const router = new FakeRouter()
    .add('POST', procedure('com.atproto.server.createSession'), 'createSession', createSession)
    .add('POST', procedure('com.atproto.server.refreshSession'), 'refreshSession', refreshSession)
    .add('POST', procedure('com.atproto.repo.uploadBlob'), 'uploadBlob', uploadBlob)
    .add('POST', procedure('com.atproto.repo.createRecord'), 'createRecord', createRecord)
    .add('GET', procedure('com.atproto.repo.getRecord'), 'getRecord', getRecord)
    .add('GET', procedure('com.atproto.identity.resolveHandle'), 'resolveHandle', resolveHandle);

  const server = await startFakeServer({
    router,
    clock,
    log,
    faults,
    notFound: () => xrpcError(501, 'MethodNotImplemented', 'Method Not Implemented'),
    port: options.port,
    host: options.host,
  });

  return {
    url: server.url,
    clock,
    log,
    accounts,
    posts,
    blobs,
    script: {
      refuseRefresh: (count = 1) => {
        refusedRefreshes += count;
      },
      dropAfterStore: (count = 1) => faults.dropAfterStore('createRecord', count),
      rateLimit: (route, count = 1) =>
        faults.failNext(route, count, () =>
          xrpcError(429, 'RateLimitExceeded', 'Rate Limit Exceeded', {
            'ratelimit-limit': '5000',
            'ratelimit-remaining': '0',
            'ratelimit-reset': String(Math.ceil(clock.now() / 1000) + 1),
          }),
        ),
      unavailable: (route, count = 1) =>
        faults.failNext(route, count, () => xrpcError(500, 'InternalServerError', 'Internal Server Error')),
    },
    close: () => server.close(),
  };
}
