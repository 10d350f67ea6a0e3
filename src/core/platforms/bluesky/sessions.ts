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
      const did = stringField(answer, 'did');
      const handle = stringField(answer, 'handle');
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
