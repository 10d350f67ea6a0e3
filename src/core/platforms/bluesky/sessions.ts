/**
 * Bluesky sessions: `com.atproto.server.createSession` once, when the account is connected, with
 * the identifier and an app password (the password goes no further than this request); then
 * `com.atproto.server.refreshSession` with the refresh token, which rotates both tokens. Signing in
 * again per post is what the platform forbids (30 sessions per 5 minutes per account), so a refused
 * refresh sends the account to reconnect instead.
 */
import type { Clock } from '../../clock.ts';
import {
  PlatformError,
  type ConnectableAccount,
  type CredentialsProvider,
  type TokenGrant,
} from '../platform-client.ts';
import { withoutSecrets } from '../redaction.ts';
import { BLUESKY, xrpc, type XrpcObject } from './xrpc.ts';

/** When the server's tokens say nothing readable of their expiry: its documented lifetimes. */
const ACCESS_LIFETIME_MS = 2 * 3_600_000;
const REFRESH_LIFETIME_MS = 90 * 86_400_000;

export interface BlueskyConfig {
  /** The account's server (`BLUESKY_SERVICE_URL`), without a trailing slash. */
  apiBaseUrl: string;
}

export function blueskySessions(config: BlueskyConfig, timeoutMs: number, clock: Clock): CredentialsProvider {
  const now = () => clock.now();
  return {
    platform: 'bluesky',
    async signIn({ identifier, secret }): Promise<ConnectableAccount> {
      let answer: XrpcObject;
      try {
        answer = await xrpc(
          config.apiBaseUrl,
          {
            nsid: 'com.atproto.server.createSession',
            subject: `signing in as ${identifier}`,
            json: { identifier, password: secret },
          },
          timeoutMs,
          now,
        );
      } catch (error) {
        // A server that echoes the request must not carry the password into a message.
        const safe = withoutSecrets(error, secret);
        if (safe instanceof PlatformError && safe.details.status === 401) {
          throw new PlatformError(
            'reauth_required',
            `${BLUESKY} refused the sign-in as ${identifier}: check the handle and use an app password ` +
              `(Settings, Privacy and security, App passwords). ${safe.message}`,
            safe.details,
          );
        }
        throw safe;
      }
      const did = checkedDid(stringField(answer, 'did'));
      const handle = checkedHandle(stringField(answer, 'handle'));
      return {
        profile: {
          platformUserId: did,
          username: handle,
          displayName: null,
          profileUrl: `https://bsky.app/profile/${handle}`,
        },
        grant: grantOf(answer, clock),
      };
    },
    async refresh(refreshToken): Promise<TokenGrant> {
      const answer = await xrpc(
        config.apiBaseUrl,
        { nsid: 'com.atproto.server.refreshSession', subject: 'renewing the session', token: refreshToken },
        timeoutMs,
        now,
      );
      return grantOf(answer, clock);
    },
  };
}

function stringField(answer: XrpcObject, field: string): string {
  const value = answer[field];
  if (typeof value !== 'string' || value === '') {
    throw new PlatformError('transient', `${BLUESKY}'s session answer has no ${field}.`);
  }
  return value;
}

/**
 * A handle as atproto's syntax allows it: a domain name of at most 253 characters, two labels or
 * more of 1 to 63 characters of [a-z0-9-], none starting or ending with a hyphen, the last not
 * starting with a digit. Handles are case-insensitive; the lowercase form is kept.
 */
const HANDLE = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_HANDLE_LENGTH = 253;

/** A DID as atproto's syntax allows it: `did:`, a lowercase method, `:`, then [a-zA-Z0-9._:%-], not ending in `:` or `%`. */
const DID = /^did:[a-z]+:[a-zA-Z0-9._:%-]*[a-zA-Z0-9._-]$/;
const MAX_DID_LENGTH = 2048;

/**
 * The server's word on who signed in is stored and shown (the username, the profile link), so a
 * handle or DID outside the syntax (markup, a script URL) refuses the connect instead: nothing is
 * stored, and the value itself is not repeated in the message.
 */
function checkedHandle(value: string): string {
  const handle = value.toLowerCase();
  if (handle.length <= MAX_HANDLE_LENGTH && HANDLE.test(handle)) return handle;
  throw new PlatformError(
    'transient',
    `${BLUESKY}'s session answer names a handle that is not a valid handle (a domain name such as alice.bsky.social); nothing was connected.`,
  );
}

function checkedDid(did: string): string {
  if (did.length <= MAX_DID_LENGTH && DID.test(did)) return did;
  throw new PlatformError(
    'transient',
    `${BLUESKY}'s session answer names an account id that is not a valid DID (did:method:identifier); nothing was connected.`,
  );
}

/** The session's tokens, with the expiries their JWTs carry (the server's lifetimes when unreadable). */
function grantOf(answer: XrpcObject, clock: Clock): TokenGrant {
  const accessToken = stringField(answer, 'accessJwt');
  const refreshToken = stringField(answer, 'refreshJwt');
  const at = clock.now().getTime();
  return {
    accessToken,
    refreshToken,
    expiresAt: jwtExpiry(accessToken) ?? new Date(at + ACCESS_LIFETIME_MS),
    refreshTokenExpiresAt: jwtExpiry(refreshToken) ?? new Date(at + REFRESH_LIFETIME_MS),
    scopes: [],
  };
}

/** A JWT's `exp` claim, read without verifying it (the server verifies its own tokens). */
function jwtExpiry(token: string): Date | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof claims.exp === 'number' && Number.isFinite(claims.exp) ? new Date(claims.exp * 1000) : null;
  } catch {
    return null;
  }
}
