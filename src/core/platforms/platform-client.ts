/**
 * What a live platform client implements: the OAuth steps that connect an account, and the publish of
 * one post. The framework around it (live-connector.ts) supplies fresh tokens, media, checkpoints and
 * the retry rules; a client only speaks its platform's HTTP API and sorts its answers into kinds.
 */
import type { ContentType, Platform } from '../../../db/schema/index.ts';

/**
 * How a platform call failed, in the terms the framework acts on:
 * - `reauth_required`: the tokens are refused (401 after a refresh, `invalid_grant`); the account must reconnect.
 * - `rate_limited`: retried within the run once `retryAt` passes (or after a backoff), inside the retry window.
 * - `duplicate`: the platform already holds this post.
 * - `content_rejected`: the platform refuses the post as it is.
 * - `media_invalid`: a media file is refused (type, size, processing failed).
 * - `transient`: a 5xx or a network error; retried with backoff, at most 3 times, but never once the
 *   create call has been sent.
 * - `unknown_outcome`: the create call was sent and no definite answer came back.
 */
export const PLATFORM_ERROR_KINDS = [
  'reauth_required',
  'rate_limited',
  'duplicate',
  'content_rejected',
  'media_invalid',
  'transient',
  'unknown_outcome',
] as const;
export type PlatformErrorKind = (typeof PLATFORM_ERROR_KINDS)[number];

/**
 * A platform's refusal or failure. `message` is a sentence a user can act on that names the platform's
 * own code (`X answered 403 "duplicate content": …`); it never contains a token or a client secret.
 */
export class PlatformError extends Error {
  constructor(
    readonly kind: PlatformErrorKind,
    message: string,
    readonly details: {
      /** The HTTP status the platform answered, when it answered. */
      status?: number;
      /** When a rate limit resets (from `x-rate-limit-reset`, `Retry-After`, ...). */
      retryAt?: Date;
    } = {},
  ) {
    super(message);
    this.name = 'PlatformError';
  }
}

/** What a token endpoint answered: a code exchange or a refresh. */
export interface TokenGrant {
  accessToken: string;
  /** Absent, null or empty: the platform did not rotate it, so the stored one stays. */
  refreshToken?: string | null;
  expiresAt: Date | null;
  refreshTokenExpiresAt?: Date | null;
  /** The scopes granted, when the platform says. */
  scopes?: string[];
}

/** What one platform is asked to post: the item with that platform's overrides applied. */
export interface PlatformPost {
  platform: Platform;
  contentType: ContentType;
  caption: string;
  hashtags: string[];
  mediaUrls: string[];
  /** The text as posted: the caption, then the hashtags as `#tag` words. */
  text: string;
  /** TikTok's `platform_specific.tiktok.privacy_level`, when the item sets one. */
  privacyLevel?: string;
  /**
   * The languages the post is written in (canonical BCP 47 tags): the item's own for this platform
   * (`platform_specific.<platform>.langs`), else the workspace's default language; empty when neither says.
   */
  languages: string[];
  /** The item's own alt text per media URL (`media_alt_text`); absent or without an entry: the media asset's. */
  mediaAltText?: Readonly<Record<string, string>>;
}

/** The account behind a grant, as the platform's profile endpoint describes it. */
export interface LiveProfile {
  platformUserId: string;
  /** The handle without `@` (X), or the member's name when the platform has no handle (LinkedIn). */
  username: string;
  displayName: string | null;
  profileUrl: string | null;
}

/** The app's registered credentials and where the platform sends the user back. */
export interface OAuthApp {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/** One account a login gives access to, with the token that acts as it. */
export interface ConnectableAccount {
  profile: LiveProfile;
  grant: TokenGrant;
}

/**
 * How a platform's access is kept alive. Absent: with the refresh token, shortly before the access
 * token expires (X, TikTok; LinkedIn where it issues one). `access_token`: the long-lived access token
 * itself is exchanged for a new one (Instagram's `ig_refresh_token`), only by the maintenance pass,
 * once it is at least `minAgeMs` old and expires within `withinMs`; `refresh` then receives the
 * access token.
 */
export type TokenRenewal = { by: 'access_token'; minAgeMs: number; withinMs: number };

/** The OAuth 2.0 authorization-code steps of one platform. Every method throws `PlatformError`. */
export interface OAuthProvider {
  platform: Platform;
  scopes: readonly string[];
  /** Whether the platform takes PKCE (S256); X requires it. */
  pkce: boolean;
  renewal?: TokenRenewal;
  /** The consent page URL. `codeChallenge` is given exactly when `pkce` is true. */
  authorizeUrl(app: OAuthApp, request: { state: string; codeChallenge?: string }): string;
  /** Trades the callback's code for tokens. A refused code is `reauth_required`; a 5xx or network error `transient`. */
  exchangeCode(app: OAuthApp, request: { code: string; codeVerifier?: string }): Promise<TokenGrant>;
  /** Trades a refresh token for a new grant. `invalid_grant` (revoked, reused, expired) is `reauth_required`. */
  refresh(app: OAuthApp, refreshToken: string): Promise<TokenGrant>;
  profile(accessToken: string): Promise<LiveProfile>;
  /**
   * The accounts one login can connect, each with its own token (Facebook: the user's Pages, each
   * with its Page token). Absent: the login is one account, the grant's own profile.
   */
  connectableAccounts?(app: OAuthApp, grant: TokenGrant): Promise<ConnectableAccount[]>;
}

/** One media file of a post, read by the framework (the service's own storage, or a guarded download). */
export interface MediaFile {
  url: string;
  bytes: Buffer;
  /** Sniffed from the bytes, never taken from a header or an extension. */
  mimeType: string;
  kind: 'image' | 'gif' | 'video';
  /**
   * What the image shows, for people who cannot see it: the item's `media_alt_text` for this URL,
   * else the media-library asset's `alt_text`; absent or null when neither gives one.
   */
  altText?: string | null;
}

/** A media file by its URL, for platforms that fetch it themselves. */
export type MediaRef = Omit<MediaFile, 'bytes'>;

/**
 * A publish's saved progress, kept per attempt so a process that dies mid-way resumes instead of
 * starting over: a client saves each finished step (an uploaded media id) before the next one.
 */
export interface Checkpoint {
  /** What earlier steps saved; `{}` on a first call. */
  readonly data: Readonly<Record<string, unknown>>;
  /** Merges `patch` into `data` and commits it before answering. */
  save(patch: Record<string, unknown>): Promise<void>;
}

/** What a client receives for one publish. */
export interface LiveSession {
  post: PlatformPost;
  account: { id: string; platformUserId: string; username: string };
  /** The service's reference for the attempt; stable across a resume. */
  attemptId: string;
  checkpoint: Checkpoint;
  /** The post's media, in order, read and sniffed. */
  media(): Promise<MediaFile[]>;
  /** The post's media by URL and type, for platforms that download it themselves (no bytes read for the service's own files). */
  mediaRefs(): Promise<MediaRef[]>;
  /** The service's PUBLIC_BASE_URL: the media library's files are served under `${publicBaseUrl}/media/`. */
  publicBaseUrl: string;
  /**
   * Runs one platform request with the current access token. The framework retries it as its kind
   * says: a `rate_limited` error after the reset, a `transient` one with backoff (not for the create
   * call), a `reauth_required` one once after refreshing the token. With `create: true` the moment of
   * sending is committed first, so after a crash the post is never sent again blind, and a network
   * error becomes `unknown_outcome`.
   */
  call<T>(label: string, request: (accessToken: string) => Promise<T>, options?: { create?: boolean }): Promise<T>;
  /** Waits between polls of a processing state; on the wall clock, bounded by the retry window. */
  wait(ms: number): Promise<void>;
  /** Per-request deadline in milliseconds, for `fetch` (AbortSignal.timeout). */
  requestTimeoutMs: number;
  /**
   * When the create call was (last) sent, by this process or a dead one; null before. A reconcile looks
   * only at posts made from then on, so an older post with the same text is never taken for this one.
   */
  readonly createSentAt: Date | null;
}

/** A published post: the platform's id and its public URL. */
export interface LivePost {
  platformPostId: string;
  /** Null when the platform has not made it public yet (TikTok, before moderation): see `lateUrl`. */
  url: string | null;
  /** Something the user should know about a published post (TikTok posted it as private, or to the inbox). */
  notice?: string;
}

/** What looking up a published post's URL later takes (a maintenance pass, not a publish). */
export interface LateUrlRequest {
  account: { id: string; platformUserId: string; username: string };
  platformPostId: string;
  /** A usable access token, refreshed if need be. */
  accessToken(): Promise<string>;
  requestTimeoutMs: number;
}

/** The publishing half of a live platform client. */
export interface LivePublisher {
  platform: Platform;
  /** Uploads the media (resuming from the checkpoint), then creates the post once. Throws `PlatformError`. */
  publish(session: LiveSession): Promise<LivePost>;
  /**
   * After a crash past the create call: looks for the post on the platform (X reads the user's latest
   * posts for the same text). Answers it, or null when it is not there. Absent where the platform
   * offers no way to look.
   */
  reconcile?(session: LiveSession): Promise<LivePost | null>;
  /**
   * For a post published with `url: null`: its URL once the platform has made it public, else null
   * (asked again by a later pass). Throws `PlatformError`.
   */
  lateUrl?(request: LateUrlRequest): Promise<string | null>;
}

/** What a platform that connects with credentials (`connect: 'credentials'`) is signed in with. */
export interface SignInRequest {
  /** The account's handle, e-mail or other login name, as the platform takes it. */
  identifier: string;
  /** The (app) password: used for this one sign-in, never kept. */
  secret: string;
  /** The account's own server, when it is not the platform's configured one. */
  serviceUrl?: string;
}

/**
 * The sessions of a platform whose accounts connect with credentials rather than through an OAuth
 * consent page (Bluesky's app passwords): no OAuth app is registered, so nothing here takes one. The
 * service signs in once, keeps only the session's tokens, and renews them with the refresh token.
 * Every method throws `PlatformError`.
 */
export interface CredentialsProvider {
  platform: Platform;
  /**
   * Signs in once and answers the account with its session tokens. Refused credentials are
   * `reauth_required`, with a message the user can act on; a 5xx or network error is `transient`.
   */
  signIn(request: SignInRequest): Promise<ConnectableAccount>;
  /** Renews the session with its refresh token; refused (revoked, expired) is `reauth_required`. */
  refresh(refreshToken: string): Promise<TokenGrant>;
}

/** A platform's client: its connect steps (by its connect kind) and its publisher. */
export interface LivePlatformClient {
  /** The OAuth steps, for a platform that connects over OAuth. */
  oauth?: OAuthProvider;
  /** The sessions, for a platform that connects with credentials. */
  sessions?: CredentialsProvider;
  publisher: LivePublisher;
}
