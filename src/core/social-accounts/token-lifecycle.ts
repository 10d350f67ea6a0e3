/**
 * Keeping a live account's access token usable: refreshed shortly before it expires (at publish time
 * and by the maintenance pass), under a lease so two processes never spend one rotating refresh token
 * twice, and the account moved to `needs_reconnect` once the platform refuses it for good.
 */
import { and, eq, gt, isNotNull, isNull, lte, or } from 'drizzle-orm';
import { writeTransaction } from '../../../db/client.ts';
import { socialAccounts, type Platform } from '../../../db/schema/index.ts';
import type { Runtime } from '../context.ts';
import { recordEvent } from '../events/record-event.ts';
import {
  PlatformError,
  type CredentialsProvider,
  type OAuthApp,
  type OAuthProvider,
  type TokenGrant,
  type TokenRenewal,
} from '../platforms/platform-client.ts';
import {
  oauthApp,
  oauthAppConfig,
  oauthProvider,
  PLATFORM_NAMES,
  PLATFORMS,
  sessionsProvider,
} from '../platforms/registry.ts';
import { readTokens, releaseRefreshLease, storeTokens, takeRefreshLease, type PlatformTokens } from './tokens.ts';

/** A publish refreshes a token that expires within this. */
export const REFRESH_BEFORE_USE_MS = 5 * 60_000;
/** The maintenance pass refreshes tokens that expire within this. */
export const REFRESH_AHEAD_MS = 60 * 60_000;
/**
 * Twice the token call's deadline (and at least a minute): a refresher never outlives its lease, so no
 * second process can spend a rotating refresh token that is still in flight; a crashed refresher's
 * lease frees itself after it. A publish waits as long for another process's refresh.
 */
const refreshLeaseMs = (runtime: Pick<Runtime, 'config'>): number =>
  Math.max(60_000, 2 * runtime.config.publishing.platformTimeoutSeconds * 1000);
const POLL_MS = 100;

/** The columns a LiveAccountRef is read from. */
const LIVE_ACCOUNT_REF_FIELDS = {
  id: socialAccounts.id,
  workspaceId: socialAccounts.workspaceId,
  platform: socialAccounts.platform,
  platformUserId: socialAccounts.platformUserId,
  username: socialAccounts.username,
};

/**
 * What refreshing an account's tokens takes: an OAuth platform's steps with the app's credentials, or
 * a credentials platform's sessions, which renew with the refresh token alone.
 */
export interface TokenSource {
  platformName: string;
  /** The OAuth steps (OAuth platforms). */
  provider?: OAuthProvider;
  /** Null when the platform's app is not configured: a token can then be used, not refreshed. */
  app?: OAuthApp | null;
  /** The variables that hold the app's credentials, named when they are missing. */
  credentialVariables?: readonly [string, string];
  /** The session renewal of a platform connected with credentials: no app is involved. */
  sessions?: CredentialsProvider;
}

/** What refreshing a live account's token takes, from its platform's registry entry. */
export function tokenSourceFor(runtime: Pick<Runtime, 'config' | 'clock'>, platform: Platform): TokenSource {
  const sessions = sessionsProvider(runtime.config, runtime.clock, platform);
  if (sessions) return { platformName: PLATFORM_NAMES[platform], sessions };
  return {
    platformName: PLATFORM_NAMES[platform],
    provider: oauthProvider(runtime.config, runtime.clock, platform) ?? undefined,
    app: oauthApp(runtime.config, platform),
    credentialVariables: oauthAppConfig(runtime.config, platform)?.credentialVariables,
  };
}

/** Whether this process can renew the platform's tokens: a credentials platform always, an OAuth one with its app. */
const canRenew = (source: TokenSource): boolean => source.sessions !== undefined || Boolean(source.app);

export interface LiveAccountRef {
  id: string;
  workspaceId: string;
  platform: Platform;
  platformUserId: string;
  username: string;
}

/**
 * The access token to send now. It is refreshed first when it expires within `aheadMs`, or when
 * `rejected` is given (the platform just answered 401 to that token) and no newer one is stored.
 * Throws `reauth_required` (after moving the account to `needs_reconnect`) when the token cannot be
 * made usable: no refresh token and past expiry, or the refresh refused.
 */
export async function usableAccessToken(
  runtime: Runtime,
  account: LiveAccountRef,
  source: TokenSource,
  options: { aheadMs?: number; rejected?: string } = {},
): Promise<string> {
  const aheadMs = options.aheadMs ?? REFRESH_BEFORE_USE_MS;
  const tokens = await currentTokens(runtime, account, source);
  if (!needsRefresh(runtime, tokens, aheadMs, options.rejected)) return tokens.accessToken;
  // A platform that renews the access token itself (Instagram) does so in maintenance only.
  if (!tokens.refreshToken || source.provider?.renewal) {
    const expired = tokens.expiresAt !== null && tokens.expiresAt.getTime() <= runtime.clock.now().getTime();
    if (expired || options.rejected !== undefined) {
      const why = expired
        ? `its access token expired on ${tokens.expiresAt!.toISOString()} and ${source.platformName} gives no refresh token`
        : `${source.platformName} refused its access token (401) and gives no refresh token`;
      throw await needsReconnect(runtime, account, source, why);
    }
    return tokens.accessToken; // Still valid for a few minutes, and nothing can extend it.
  }
  return refreshUnderLease(runtime, account, source, (current) =>
    needsRefresh(runtime, current, aheadMs, options.rejected) ? current.refreshToken : null,
  );
}

/** The maintenance pass: refreshes every live account's token that expires within the hour. */
export async function refreshExpiringTokens(
  runtime: Runtime,
  sourceFor: (platform: Platform) => TokenSource | null,
): Promise<{ refreshed: number; failed: number }> {
  const horizon = new Date(runtime.clock.now().getTime() + REFRESH_AHEAD_MS);
  const due = (
    await runtime.db
      .select(LIVE_ACCOUNT_REF_FIELDS)
      .from(socialAccounts)
      .where(
        and(
          eq(socialAccounts.mode, 'live'),
          eq(socialAccounts.status, 'active'),
          isNotNull(socialAccounts.refreshTokenEncrypted),
          lte(socialAccounts.tokenExpiresAt, horizon),
        ),
      )
      .all()
  ).filter((account) => !sourceFor(account.platform)?.provider?.renewal);
  let refreshed = 0;
  let failed = 0;
  for (const account of [...due, ...(await renewableByAccessToken(runtime, sourceFor))]) {
    const source = sourceFor(account.platform);
    if (!source || !canRenew(source)) continue;
    try {
      const renewal = source.provider?.renewal;
      if (renewal) {
        await refreshUnderLease(runtime, account, source, (current) =>
          accessTokenDue(runtime, current, renewal) ? current.accessToken : null,
        );
      } else await usableAccessToken(runtime, account, source, { aheadMs: REFRESH_AHEAD_MS });
      refreshed += 1;
    } catch (error) {
      failed += 1;
      // The message names the platform's answer, never a token.
      runtime.log.warn(
        { socialAccountId: account.id, platform: account.platform, reason: (error as Error).message },
        'refreshing a live account token failed',
      );
    }
  }
  return { refreshed, failed };
}

/**
 * Moves the account to `needs_reconnect` and emits `social_account.disconnected` with reason
 * `reauthorization_required`, once: an account already inactive is left as it is. Answers the error a
 * publish to it fails with.
 */
export async function needsReconnect(
  runtime: Runtime,
  account: LiveAccountRef,
  source: Pick<TokenSource, 'platformName'>,
  why: string,
): Promise<ReconnectRequired> {
  const now = runtime.clock.now();
  await writeTransaction(runtime.db, async () => {
    const moved = await runtime.db
      .update(socialAccounts)
      .set({ status: 'needs_reconnect' })
      .where(and(eq(socialAccounts.id, account.id), eq(socialAccounts.status, 'active')))
      .returning({ id: socialAccounts.id })
      .get();
    if (!moved) return;
    await recordEvent(runtime.db, {
      workspaceId: account.workspaceId,
      type: 'social_account.disconnected',
      data: {
        platform: account.platform,
        account: { id: account.id, platform_user_id: account.platformUserId, platform_username: account.username },
        reason: 'reauthorization_required',
      },
      at: now,
    });
  });
  return new ReconnectRequired(source.platformName, account.username, why);
}

/** The account's tokens are unusable and it has been moved to `needs_reconnect`: the message says so. */
export class ReconnectRequired extends PlatformError {
  constructor(platformName: string, username: string, why: string) {
    super(
      'reauth_required',
      `The ${platformName} account @${username} must be reconnected: ${why}. Connect it again (POST /api/v1/social-accounts/connect), then publish again.`,
    );
    this.name = 'ReconnectRequired';
  }
}

async function currentTokens(runtime: Runtime, account: LiveAccountRef, source: TokenSource): Promise<PlatformTokens> {
  const tokens = await readTokens(runtime, account.id);
  if (!tokens) throw new ReconnectRequired(source.platformName, account.username, 'it holds no tokens');
  return tokens;
}

/**
 * Accounts of platforms that renew the access token itself (Instagram) whose token is due: at least
 * `minAgeMs` old, not yet expired, and expiring within `withinMs`.
 */
async function renewableByAccessToken(
  runtime: Runtime,
  sourceFor: (platform: Platform) => TokenSource | null,
): Promise<LiveAccountRef[]> {
  const now = runtime.clock.now().getTime();
  const accounts: LiveAccountRef[] = [];
  for (const platform of PLATFORMS) {
    const renewal = sourceFor(platform)?.provider?.renewal;
    if (!renewal) continue;
    accounts.push(
      ...(await runtime.db
        .select(LIVE_ACCOUNT_REF_FIELDS)
        .from(socialAccounts)
        .where(
          and(
            eq(socialAccounts.platform, platform),
            eq(socialAccounts.mode, 'live'),
            eq(socialAccounts.status, 'active'),
            gt(socialAccounts.tokenExpiresAt, new Date(now)),
            lte(socialAccounts.tokenExpiresAt, new Date(now + renewal.withinMs)),
            or(
              isNull(socialAccounts.tokenIssuedAt),
              lte(socialAccounts.tokenIssuedAt, new Date(now - renewal.minAgeMs)),
            ),
          ),
        )
        .all()),
    );
  }
  return accounts;
}

function accessTokenDue(runtime: Runtime, tokens: PlatformTokens, renewal: TokenRenewal): boolean {
  const now = runtime.clock.now().getTime();
  if (tokens.expiresAt === null || tokens.expiresAt.getTime() <= now) return false;
  if (tokens.expiresAt.getTime() - now > renewal.withinMs) return false;
  return tokens.issuedAt === null || now - tokens.issuedAt.getTime() >= renewal.minAgeMs;
}

function needsRefresh(runtime: Runtime, tokens: PlatformTokens, aheadMs: number, rejected?: string): boolean {
  if (rejected !== undefined) return tokens.accessToken === rejected;
  if (tokens.expiresAt === null) return false;
  return tokens.expiresAt.getTime() - runtime.clock.now().getTime() < aheadMs;
}

/**
 * Refreshes with the account's lease held, so only one process spends the refresh token. A process
 * that finds the lease taken waits for the holder and uses what it stored. After taking the lease the
 * tokens are read again: another holder may have refreshed them in the meantime, and X's rotated
 * refresh token must never be spent twice.
 */
async function refreshUnderLease(
  runtime: Runtime,
  account: LiveAccountRef,
  source: TokenSource,
  /** The credential to renew with (the refresh token, or the access token itself), or null when the tokens as stored now need no renewal. */
  credentialToSpend: (tokens: PlatformTokens) => string | null,
): Promise<string> {
  const { db, clock } = runtime;
  const leaseMs = refreshLeaseMs(runtime);
  const giveUpAt = Date.now() + leaseMs;
  for (;;) {
    const leaseToken = await takeRefreshLease(db, account.id, clock.now(), leaseMs);
    if (leaseToken === null) {
      if (Date.now() >= giveUpAt) {
        throw new PlatformError(
          'transient',
          `Another process has been refreshing the ${source.platformName} token of @${account.username} for over ${leaseMs / 1000} s.`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      continue;
    }
    try {
      const tokens = await currentTokens(runtime, account, source);
      const credential = credentialToSpend(tokens);
      if (credential === null) return tokens.accessToken;
      let grant;
      try {
        grant = await renewWith(source, account, credential);
      } catch (error) {
        if (error instanceof PlatformError && error.kind === 'reauth_required') {
          throw await needsReconnect(
            runtime,
            account,
            source,
            `${source.platformName} refused to refresh its token (${error.message})`,
          );
        }
        throw error;
      }
      if (!(await storeTokens(runtime, account.id, grant, leaseToken))) {
        // The lease ran out during the call and someone else holds it now: their tokens win.
        continue;
      }
      return grant.accessToken;
    } finally {
      await releaseRefreshLease(db, account.id, leaseToken);
    }
  }
}

/**
 * Spends `credential` on the platform's renewal: a credentials platform's session refresh, or an
 * OAuth platform's refresh with its app. An OAuth app that is not configured is the operator's to
 * fix, not the account's: the error does not send it to reconnect.
 */
function renewWith(source: TokenSource, account: LiveAccountRef, credential: string): Promise<TokenGrant> {
  if (source.sessions) return source.sessions.refresh(credential);
  if (!source.app || !source.provider) {
    const [idVariable, secretVariable] = source.credentialVariables ?? ['its client id', 'client secret'];
    throw new PlatformError(
      'content_rejected',
      `The ${source.platformName} token of @${account.username} cannot be refreshed: this process has no ${idVariable} and ${secretVariable}. The operator must set them.`,
    );
  }
  return source.provider.refresh(source.app, credential);
}
