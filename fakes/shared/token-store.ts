import { createHash, randomBytes } from 'node:crypto';
import type { FakeClock } from './clock.ts';

export interface Grant {
  userId: string;
  scopes: string[];
}

export interface AuthorizationCode extends Grant {
  clientId: string;
  redirectUri: string;
  /** PKCE S256 challenge, when the platform takes one. */
  codeChallenge?: string;
}

export interface IssuedTokens {
  accessToken: string;
  expiresIn: number;
  refreshToken?: string;
  /** Seconds left on the refresh token, when it has a lifetime. */
  refreshExpiresIn?: number;
  scopes: string[];
}

export type AccessCheck =
  { ok: true; userId: string; scopes: string[] } | { ok: false; reason: 'missing' | 'unknown' | 'expired' | 'revoked' };

export type RefreshOutcome =
  { ok: true; tokens: IssuedTokens } | { ok: false; reason: 'unknown' | 'used' | 'expired' | 'revoked' };

export type CodeOutcome = { ok: true; code: AuthorizationCode } | { ok: false; reason: 'unknown' | 'used' | 'expired' };

export interface TokenStoreOptions {
  /** Prefix of every issued string, so a token of one fake is never mistaken for another's. */
  prefix: string;
  accessTtlSecs: number;
  codeTtlSecs: number;
  /** Undefined: refresh tokens never expire on their own. */
  refreshTtlSecs?: number;
  /** true: each refresh token works once and the answer carries a new one (X). false: it is kept (LinkedIn). */
  rotateRefresh: boolean;
}

interface StoredAccess extends Grant {
  expiresAt: number;
  revoked: boolean;
}

interface StoredRefresh extends Grant {
  expiresAt: number | undefined;
  used: boolean;
  revoked: boolean;
}

/** Authorization codes, access and refresh tokens of one fake platform, timed on its clock. */
export class TokenStore {
  private readonly codes = new Map<string, AuthorizationCode & { expiresAt: number; used: boolean }>();
  private readonly access = new Map<string, StoredAccess>();
  private readonly refresh = new Map<string, StoredRefresh>();

  constructor(
    private readonly clock: FakeClock,
    readonly options: TokenStoreOptions,
  ) {}

  issueCode(code: AuthorizationCode): string {
    const value = this.newSecret('code');
    this.codes.set(value, { ...code, expiresAt: this.clock.now() + this.options.codeTtlSecs * 1000, used: false });
    return value;
  }

  /** Codes are single use: any redemption attempt, good or bad, spends the code. */
  redeemCode(value: string): CodeOutcome {
    const code = this.codes.get(value);
    if (!code) return { ok: false, reason: 'unknown' };
    if (code.used) return { ok: false, reason: 'used' };
    code.used = true;
    if (this.clock.now() >= code.expiresAt) return { ok: false, reason: 'expired' };
    const { expiresAt: _expiresAt, used: _used, ...granted } = code;
    return { ok: true, code: granted };
  }

  issue(grant: Grant, withRefresh: boolean): IssuedTokens {
    const now = this.clock.now();
    const accessToken = this.newSecret('at');
    this.access.set(accessToken, { ...grant, expiresAt: now + this.options.accessTtlSecs * 1000, revoked: false });
    const tokens: IssuedTokens = { accessToken, expiresIn: this.options.accessTtlSecs, scopes: grant.scopes };
    if (withRefresh) {
      const refreshToken = this.newSecret('rt');
      const ttl = this.options.refreshTtlSecs;
      this.refresh.set(refreshToken, {
        ...grant,
        expiresAt: ttl === undefined ? undefined : now + ttl * 1000,
        used: false,
        revoked: false,
      });
      tokens.refreshToken = refreshToken;
      if (ttl !== undefined) tokens.refreshExpiresIn = ttl;
    }
    return tokens;
  }

  useRefreshToken(value: string): RefreshOutcome {
    const stored = this.refresh.get(value);
    const now = this.clock.now();
    if (!stored) return { ok: false, reason: 'unknown' };
    if (stored.revoked) return { ok: false, reason: 'revoked' };
    if (stored.used) return { ok: false, reason: 'used' };
    if (stored.expiresAt !== undefined && now >= stored.expiresAt) return { ok: false, reason: 'expired' };
    const grant = { userId: stored.userId, scopes: stored.scopes };
    if (this.options.rotateRefresh) {
      stored.used = true;
      return { ok: true, tokens: this.issue(grant, true) };
    }
    // Kept refresh tokens are not extended by a refresh: the answer says how long this one has left.
    const tokens = this.issue(grant, false);
    tokens.refreshToken = value;
    if (stored.expiresAt !== undefined) tokens.refreshExpiresIn = Math.floor((stored.expiresAt - now) / 1000);
    return { ok: true, tokens };
  }

  check(accessToken: string | undefined): AccessCheck {
    if (!accessToken) return { ok: false, reason: 'missing' };
    const stored = this.access.get(accessToken);
    if (!stored) return { ok: false, reason: 'unknown' };
    if (stored.revoked) return { ok: false, reason: 'revoked' };
    if (this.clock.now() >= stored.expiresAt) return { ok: false, reason: 'expired' };
    return { ok: true, userId: stored.userId, scopes: stored.scopes };
  }

  /**
   * RFC 7009: the client gives up one token. Whether it existed is not the client's business, so the
   * answer is the same either way.
   */
  revokeToken(value: string): void {
    const access = this.access.get(value);
    if (access) access.revoked = true;
    const refresh = this.refresh.get(value);
    if (refresh) refresh.revoked = true;
  }

  /** The member withdrew the app's access: every token issued for them stops working. */
  revokeUser(userId: string): void {
    for (const token of this.access.values()) if (token.userId === userId) token.revoked = true;
    for (const token of this.refresh.values()) if (token.userId === userId) token.revoked = true;
  }

  private newSecret(kind: string): string {
    return `${this.options.prefix}-${kind}-${randomBytes(24).toString('base64url')}`;
  }
}

/** RFC 7636 S256: BASE64URL(SHA256(ASCII(code_verifier))). */
export function pkceS256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** RFC 7636: 43 to 128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~". */
export const PKCE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** A positive decimal id of `digits` digits, the shape of X's ids and LinkedIn's URN tails. */
export function numericId(digits = 19): string {
  let id = String(1 + Math.floor(Math.random() * 9));
  while (id.length < digits) id += String(Math.floor(Math.random() * 10));
  return id;
}
