import { and, eq, isNull, lte, or } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import type { Db } from '../../../db/client.ts';
import { socialAccounts } from '../../../db/schema/index.ts';
import type { Runtime } from '../context.ts';
import { decryptSecret, encryptSecret } from '../secrets.ts';
import type { TokenGrant } from '../platforms/platform-client.ts';

/**
 * A live account's OAuth tokens, encrypted at rest with the key that encrypts webhook signing secrets
 * (AES-256-GCM, a fresh iv each time). Decrypted values exist only in memory, for the platform call
 * that needs them: they are never part of a resource, an error or a log line.
 */
export interface PlatformTokens {
  accessToken: string;
  /** Null when the platform gave none (LinkedIn's 60-day tokens): the user must reconnect before expiry. */
  refreshToken: string | null;
  expiresAt: Date | null;
  refreshTokenExpiresAt: Date | null;
  /** When the access token was stored (null for tokens stored before this was kept). */
  issuedAt: Date | null;
}

/** What a token endpoint answered: defined with the platform clients, which read it. */
export type { TokenGrant } from '../platforms/platform-client.ts';

type TokenRuntime = Pick<Runtime, 'db' | 'config'>;
type StoringRuntime = TokenRuntime & Pick<Runtime, 'clock'>;

/**
 * Stores a grant's tokens on the account in one UPDATE, so the access token and a rotated refresh
 * token are never seen apart. An empty refresh token never overwrites a stored one (X rotates refresh
 * tokens, other platforms send none on refresh). With `leaseToken`, the write happens only while that
 * refresh lease is still held, so a refresher whose lease ran out cannot overwrite a newer pair.
 * Answers whether the tokens were stored.
 */
export async function storeTokens(
  runtime: StoringRuntime,
  accountId: string,
  grant: TokenGrant,
  leaseToken?: string,
): Promise<boolean> {
  const { db, config } = runtime;
  const rotated = grant.refreshToken ? grant.refreshToken : null;
  const stored = await db
    .update(socialAccounts)
    .set({
      accessTokenEncrypted: encryptSecret(config, grant.accessToken),
      tokenExpiresAt: grant.expiresAt,
      tokenIssuedAt: runtime.clock.now(),
      ...(rotated === null
        ? {}
        : {
            refreshTokenEncrypted: encryptSecret(config, rotated),
            refreshTokenExpiresAt: grant.refreshTokenExpiresAt ?? null,
          }),
      ...(grant.scopes === undefined ? {} : { scopes: grant.scopes }),
    })
    .where(
      leaseToken === undefined
        ? eq(socialAccounts.id, accountId)
        : and(eq(socialAccounts.id, accountId), eq(socialAccounts.refreshLeaseToken, leaseToken)),
    )
    .returning({ id: socialAccounts.id })
    .get();
  return stored !== undefined;
}

/** The account's tokens, decrypted; null when it holds none (a sandbox account, or one never connected live). */
export async function readTokens(runtime: TokenRuntime, accountId: string): Promise<PlatformTokens | null> {
  const { db, config } = runtime;
  const row = await db
    .select({
      access: socialAccounts.accessTokenEncrypted,
      refresh: socialAccounts.refreshTokenEncrypted,
      expiresAt: socialAccounts.tokenExpiresAt,
      refreshTokenExpiresAt: socialAccounts.refreshTokenExpiresAt,
      issuedAt: socialAccounts.tokenIssuedAt,
    })
    .from(socialAccounts)
    .where(eq(socialAccounts.id, accountId))
    .get();
  if (!row?.access) return null;
  return {
    accessToken: decryptSecret(config, row.access),
    refreshToken: row.refresh === null ? null : decryptSecret(config, row.refresh),
    expiresAt: row.expiresAt,
    refreshTokenExpiresAt: row.refreshTokenExpiresAt,
    issuedAt: row.issuedAt,
  };
}

/**
 * Takes the account's refresh lease until `now + durationMs`, unless another holder's lease is still
 * running. Answers the lease token (to store the refreshed tokens and release the lease with), or null
 * when someone else is refreshing. One conditional UPDATE: of two processes, exactly one wins.
 */
export async function takeRefreshLease(
  db: Db,
  accountId: string,
  now: Date,
  durationMs: number,
): Promise<string | null> {
  const leaseToken = randomUUID();
  const taken = await db
    .update(socialAccounts)
    .set({ refreshLeaseToken: leaseToken, refreshLeaseUntil: new Date(now.getTime() + durationMs) })
    .where(
      and(
        eq(socialAccounts.id, accountId),
        or(isNull(socialAccounts.refreshLeaseUntil), lte(socialAccounts.refreshLeaseUntil, now)),
      ),
    )
    .returning({ id: socialAccounts.id })
    .get();
  return taken ? leaseToken : null;
}

/** Gives the lease back; only its holder can (a lease taken over after it ran out stays with the new holder). */
export async function releaseRefreshLease(db: Db, accountId: string, leaseToken: string): Promise<boolean> {
  const released = await db
    .update(socialAccounts)
    .set({ refreshLeaseToken: null, refreshLeaseUntil: null })
    .where(and(eq(socialAccounts.id, accountId), eq(socialAccounts.refreshLeaseToken, leaseToken)))
    .returning({ id: socialAccounts.id })
    .get();
  return released !== undefined;
}
