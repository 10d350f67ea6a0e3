/**
 * The fake Facebook's tokens. A login's code gives a short-lived user token; `fb_exchange_token` trades
 * it for a long-lived one (60 days); `/me/accounts` hands out Page tokens, which never expire when the
 * user token was long-lived and share its expiry otherwise, as Meta documents. Removing the app (or a
 * password change) kills every token of the user at once.
 */
import { randomBytes } from 'node:crypto';
import type { FakeClock } from './shared/clock.ts';

export const SHORT_LIVED_SECS = 2 * 3600;
export const LONG_LIVED_SECS = 60 * 86_400;

export interface FacebookToken {
  kind: 'user' | 'page';
  userId: string;
  /** The Page a Page token acts as. */
  pageId?: string;
  scopes: string[];
  /** Permissions the user turned down at the consent step (`/me/permissions` lists them `declined`). */
  declined: string[];
  /** Epoch ms; null for a Page token that does not expire. */
  expiresAt: number | null;
  longLived: boolean;
  revoked: boolean;
}

export type TokenCheck =
  | { ok: true; token: FacebookToken }
  | { ok: false; reason: 'missing' | 'unknown' | 'expired' | 'revoked'; expiredAt?: number };

export class FacebookTokens {
  private readonly tokens = new Map<string, FacebookToken>();

  constructor(private readonly clock: FakeClock) {}

  issueUser(
    userId: string,
    grant: { scopes: string[]; declined: string[] },
    longLived: boolean,
  ): { value: string; expiresIn: number } {
    const expiresIn = longLived ? LONG_LIVED_SECS : SHORT_LIVED_SECS;
    const value = this.store({
      kind: 'user',
      userId,
      ...grant,
      expiresAt: this.clock.now() + expiresIn * 1000,
      longLived,
      revoked: false,
    });
    return { value, expiresIn };
  }

  /** The Page token `/me/accounts` answers for `pageId`, derived from the user token `from`. */
  issuePage(from: FacebookToken, pageId: string): string {
    return this.store({
      kind: 'page',
      userId: from.userId,
      pageId,
      scopes: from.scopes,
      declined: from.declined,
      expiresAt: from.longLived ? null : from.expiresAt,
      longLived: from.longLived,
      revoked: false,
    });
  }

  check(value: string | undefined): TokenCheck {
    if (!value) return { ok: false, reason: 'missing' };
    const token = this.tokens.get(value);
    if (!token) return { ok: false, reason: 'unknown' };
    if (token.revoked) return { ok: false, reason: 'revoked' };
    if (token.expiresAt !== null && this.clock.now() >= token.expiresAt) {
      return { ok: false, reason: 'expired', expiredAt: token.expiresAt };
    }
    return { ok: true, token };
  }

  revokeUser(userId: string): void {
    for (const token of this.tokens.values()) if (token.userId === userId) token.revoked = true;
  }

  private store(token: FacebookToken): string {
    const value = `EAAF${token.kind === 'page' ? 'P' : 'U'}${randomBytes(30).toString('base64url')}`;
    this.tokens.set(value, token);
    return value;
  }
}
