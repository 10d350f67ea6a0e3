/**
 * Connecting a live account over OAuth 2.0 (authorization code): the API hands out the platform's
 * consent URL with a single-use state bound to the workspace (connect-states.ts), and the platform
 * sends the user back to the callback, which trades the code for tokens, reads the profile and stores
 * the account. Every failure leaves nothing behind: no account row, no tokens, no event.
 */
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { writeTransaction } from '../../../db/client.ts';
import { socialAccounts, type Platform } from '../../../db/schema/index.ts';
import { findWorkspace } from '../accounts/workspaces.ts';
import type { Runtime } from '../context.ts';
import { ServiceError } from '../errors.ts';
import { recordEvent } from '../events/record-event.ts';
import { newId } from '../ids.ts';
import { defineOperation } from '../operation.ts';
import { PLATFORM_NAMES } from '../publishing/live/clients.ts';
import {
  PlatformError,
  type ConnectableAccount,
  type LiveProfile,
  type OAuthProvider,
} from '../publishing/live/platform-client.ts';
import { LIVE_PLATFORMS, oauthApp, oauthProvider } from '../publishing/live/providers.ts';
import {
  consumeConnectState,
  createConnectState,
  parkConnectState,
  type ConsumedConnectState,
} from './connect-states.ts';
import { assertRoomForAnotherAccount } from './operations.ts';
import { SocialAccountConnect } from './schemas.ts';
import { toSocialAccountResource, type SocialAccountResource } from './serialize.ts';
import { storeTokens, type TokenGrant } from './tokens.ts';

const LIVE_LIST = LIVE_PLATFORMS.join(', ');

const unknownPlatformMessage = (input: unknown): string =>
  `Unknown platform "${String(input)}"; the platforms that can be connected over OAuth are ${LIVE_LIST}.`;

export const ConnectRequest = z.object({
  platform: z
    .string({ error: `Give a platform id: one of ${LIVE_LIST}.` })
    .trim()
    .toLowerCase()
    .pipe(z.enum(LIVE_PLATFORMS, { error: (issue) => unknownPlatformMessage(issue.input) }))
    .describe('The platform to connect an account of.'),
  return_url: z
    .url({
      protocol: /^https?$/,
      error: 'return_url must be an absolute http or https URL, such as https://app.example.com/settings.',
    })
    .max(2000, 'return_url is longer than 2000 characters.')
    .optional()
    .describe(
      'Where the callback sends the user afterwards (303), with social_account_id and platform added to the query ' +
        '(or error=access_denied when the user cancelled). Without it, the callback answers a small HTML page.',
    ),
});

/**
 * POST /social-accounts/connect: the consent URL for one live platform. Refused when the platform's
 * app is not configured (platform_not_configured, naming the variables), and when the workspace is at
 * its platforms_limit, unless it has an active account on that platform that this could be a
 * reconnect of (the callback checks again, knowing the account).
 */
export const startAccountConnection = defineOperation({
  name: 'startAccountConnection',
  buckets: ['write'],
  input: ConnectRequest,
  output: SocialAccountConnect,
  errors: {
    platform_not_configured: "the service's OAuth app for the platform is not configured",
    quota_exceeded: "the plan's platforms_limit of active accounts is reached",
  },
  run({ db, config, clock, workspace }, input) {
    const { platform } = input;
    const app = oauthApp(config, platform);
    const provider = oauthProvider(config, clock, platform);
    if (!app || !provider) {
      const [idVariable, secretVariable] = config.live[platform].credentialVariables;
      throw new ServiceError(
        'platform_not_configured',
        `${platform} accounts cannot be connected: the service's ${platform} app is not configured. ` +
          `The operator must set ${idVariable} and ${secretVariable}.`,
      );
    }
    const hasActiveOnPlatform = db
      .select({ id: socialAccounts.id })
      .from(socialAccounts)
      .where(
        and(
          eq(socialAccounts.workspaceId, workspace.id),
          eq(socialAccounts.platform, platform),
          eq(socialAccounts.isActive, true),
        ),
      )
      .get();
    if (!hasActiveOnPlatform) assertRoomForAnotherAccount(db, workspace);
    const pending = createConnectState(
      { db, config, clock },
      { workspaceId: workspace.id, platform, returnUrl: input.return_url ?? null, pkce: provider.pkce },
    );
    return {
      object: 'social_account_connect' as const,
      platform,
      authorize_url: provider.authorizeUrl(app, {
        state: pending.state,
        ...(pending.codeChallenge && { codeChallenge: pending.codeChallenge }),
      }),
      expires_at: pending.expiresAt.toISOString(),
    };
  },
});

/** One account a login offered, as the chooser shows it. */
export interface AccountChoice {
  id: string;
  name: string;
}

/** What the callback came to; the door renders it (a page, or a 303 to the return URL). */
export type ConnectionOutcome =
  | { outcome: 'connected'; accounts: SocialAccountResource[]; workspaceName: string; returnUrl: string | null }
  | { outcome: 'choose'; platform: Platform; state: string; choices: AccountChoice[]; workspaceName: string }
  | { outcome: 'cancelled'; platform: Platform; returnUrl: string | null }
  | { outcome: 'refused'; reason: ConnectionRefusal; message: string };

/**
 * - `unknown_platform`: no live client answers at this callback;
 * - `invalid_state`: the state is missing, unknown, expired or already used, or the code is missing;
 * - `invalid_choice`: the chooser's form named no account, or one the login did not offer;
 * - `quota_exceeded`: the account would pass the workspace's platforms_limit;
 * - `platform_failed`: the platform refused the authorization or the code, or could not be reached.
 */
export type ConnectionRefusal =
  'unknown_platform' | 'invalid_state' | 'invalid_choice' | 'quota_exceeded' | 'platform_failed';

/** What LinkedIn (`user_cancelled_*`) and X (`access_denied`) send back when the user declines. */
const CANCELLATIONS = new Set(['access_denied', 'user_cancelled_authorize', 'user_cancelled_login']);

const refused = (reason: ConnectionRefusal, message: string): ConnectionOutcome => ({
  outcome: 'refused',
  reason,
  message,
});

const queryValue = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * GET /callbacks/{platform}/oauth: finishes a connection. The state is consumed first (whatever
 * follows, it cannot be used again); then the code is exchanged, the profile read, and the account
 * upserted with its tokens and its `social_account.connected` event in one transaction.
 */
export async function completeConnection(
  runtime: Runtime,
  platform: string,
  query: Record<string, unknown>,
): Promise<ConnectionOutcome> {
  const provider = oauthProvider(runtime.config, runtime.clock, platform);
  if (!provider) return refused('unknown_platform', `No OAuth connection is served for platform "${platform}".`);
  const consumed = consumeConnectState(runtime, platform, query.state);
  if (!consumed.ok) return invalidState(consumed.reason);
  const { pending } = consumed;
  // The chooser's page loaded again: it shows the same choices (the code is spent).
  if (pending.choices !== null) {
    return offerChoices(runtime, provider.platform, query.state as string, pending, pending.choices);
  }

  const error = queryValue(query.error);
  if (error !== undefined) {
    if (CANCELLATIONS.has(error))
      return { outcome: 'cancelled', platform: provider.platform, returnUrl: pending.returnUrl };
    const description = queryValue(query.error_description)?.slice(0, 300);
    return refused(
      'platform_failed',
      `${PLATFORM_NAMES[provider.platform]} refused the authorization with "${error.slice(0, 100)}"${description ? `: ${description}` : ''}.`,
    );
  }
  const code = queryValue(query.code);
  if (!code) return refused('invalid_state', 'The platform sent no authorization code. Start the connection again.');

  const app = oauthApp(runtime.config, platform);
  if (!app) {
    return refused(
      'platform_failed',
      `The service's ${PLATFORM_NAMES[provider.platform]} app is no longer configured.`,
    );
  }

  let offered: ConnectableAccount[];
  try {
    const grant = await provider.exchangeCode(app, {
      code,
      ...(pending.codeVerifier && { codeVerifier: pending.codeVerifier }),
    });
    offered = provider.connectableAccounts
      ? await provider.connectableAccounts(app, grant)
      : [{ profile: await provider.profile(grant.accessToken), grant }];
  } catch (failure) {
    if (!(failure instanceof PlatformError)) throw failure;
    return refused('platform_failed', failure.message);
  }
  const name = PLATFORM_NAMES[provider.platform];
  if (offered.length === 0) {
    return refused('platform_failed', `The ${name} login gave access to no account that can be connected.`);
  }
  if (offered.length > 1) {
    return offerChoices(runtime, provider.platform, query.state as string, pending, serializeChoices(offered));
  }
  return connectAccounts(runtime, provider, pending, offered);
}

/**
 * POST /callbacks/{platform}/oauth: the chooser's form came back with the accounts to connect (ids
 * among those the login offered) and the same state, which is spent here.
 */
export function completeChoice(runtime: Runtime, platform: string, form: Record<string, unknown>): ConnectionOutcome {
  const provider = oauthProvider(runtime.config, runtime.clock, platform);
  if (!provider) return refused('unknown_platform', `No OAuth connection is served for platform "${platform}".`);
  const consumed = consumeConnectState(runtime, platform, form.state);
  if (!consumed.ok) return invalidState(consumed.reason);
  const { pending } = consumed;
  if (pending.choices === null) return invalidState('unknown');
  const offered = parseChoices(pending.choices);
  const picked = [form.account].flat().filter((id): id is string => typeof id === 'string');
  const chosen = offered.filter((account) => picked.includes(account.profile.platformUserId));
  if (chosen.length === 0 || chosen.length !== new Set(picked).size) {
    // Nothing was stored, and the choice may be made again.
    parkConnectState(runtime, form.state as string, pending, pending.choices);
    return refused('invalid_choice', 'Choose at least one of the accounts listed, then connect again.');
  }
  return connectAccounts(runtime, provider, pending, chosen);
}

function invalidState(reason: 'unknown' | 'expired'): ConnectionOutcome {
  return refused(
    'invalid_state',
    reason === 'expired'
      ? 'This connection link has expired (links are good for 15 minutes). Start the connection again.'
      : 'This connection link is not valid: it was already used, or it was not made by this service. Start the connection again.',
  );
}

/**
 * Parks the state with the accounts offered (again, on a reload of the chooser: consuming it spent it)
 * and answers the chooser.
 */
function offerChoices(
  runtime: Runtime,
  platform: Platform,
  state: string,
  pending: ConsumedConnectState,
  offered: string,
): ConnectionOutcome {
  const workspace = findWorkspace(runtime.db, pending.workspaceId);
  if (!workspace) return refused('invalid_state', 'The workspace this connection was started for no longer exists.');
  parkConnectState(runtime, state, pending, offered);
  const choices = parseChoices(offered).map(({ profile }) => ({
    id: profile.platformUserId,
    name: profile.displayName ?? profile.username,
  }));
  return { outcome: 'choose', platform, state, choices, workspaceName: workspace.name };
}

/** Connects every account given, all or none: one transaction, so the quota is judged on the whole set. */
function connectAccounts(
  runtime: Runtime,
  provider: OAuthProvider,
  pending: ConsumedConnectState,
  accounts: ConnectableAccount[],
): ConnectionOutcome {
  try {
    const stored = writeTransaction(runtime.db, () =>
      accounts.map(({ grant, profile }) =>
        storeConnection(runtime, pending.workspaceId, provider.platform, provider.scopes, grant, profile),
      ),
    );
    return {
      outcome: 'connected',
      accounts: stored.map((one) => one.account),
      workspaceName: stored[0]!.workspaceName,
      returnUrl: pending.returnUrl,
    };
  } catch (failure) {
    if (failure instanceof ServiceError && failure.code === 'quota_exceeded') {
      return refused('quota_exceeded', failure.message);
    }
    if (failure instanceof ServiceError && failure.code === 'not_found') {
      return refused('invalid_state', 'The workspace this connection was started for no longer exists.');
    }
    throw failure;
  }
}

/**
 * Upserts the account, unique per (workspace, platform, platform user id): a reconnect keeps the id
 * and replaces the tokens. Taking an inactive or new account active counts against platforms_limit.
 */
function storeConnection(
  runtime: Runtime,
  workspaceId: string,
  platform: Platform,
  requestedScopes: readonly string[],
  grant: TokenGrant,
  profile: LiveProfile,
): { account: SocialAccountResource; workspaceName: string } {
  const { db } = runtime;
  const now = runtime.clock.now();
  return writeTransaction(db, () => {
    const workspace = findWorkspace(db, workspaceId);
    if (!workspace) throw new ServiceError('not_found', `No workspace with id ${workspaceId}.`);
    const existing = db
      .select()
      .from(socialAccounts)
      .where(
        and(
          eq(socialAccounts.workspaceId, workspace.id),
          eq(socialAccounts.platform, platform),
          eq(socialAccounts.platformUserId, profile.platformUserId),
        ),
      )
      .get();
    if (!existing?.isActive) assertRoomForAnotherAccount(db, workspace);
    const fields = {
      username: profile.username,
      displayName: profile.displayName,
      mode: 'live' as const,
      status: 'active' as const,
      // Platforms that do not echo the grant's scopes granted what was asked.
      scopes: grant.scopes ?? [...requestedScopes],
      profileUrl: profile.profileUrl,
      connectedAt: now,
      // A refresh in flight holds tokens from before this consent: dropping its lease makes its
      // write (conditional on the lease) a no-op, so it cannot overwrite the pair stored here.
      refreshLeaseToken: null,
      refreshLeaseUntil: null,
    };
    const accountId = existing?.id ?? newId();
    if (existing) {
      db.update(socialAccounts).set(fields).where(eq(socialAccounts.id, accountId)).run();
    } else {
      db.insert(socialAccounts)
        .values({
          id: accountId,
          workspaceId: workspace.id,
          platform,
          platformUserId: profile.platformUserId,
          createdAt: now,
          ...fields,
        })
        .run();
    }
    storeTokens(runtime, accountId, grant);
    const row = db.select().from(socialAccounts).where(eq(socialAccounts.id, accountId)).get()!;
    recordEvent(db, {
      workspaceId: workspace.id,
      type: 'social_account.connected',
      data: {
        platform,
        account: { id: row.id, platform_user_id: row.platformUserId, platform_username: row.username },
        reconnected: existing !== undefined,
      },
      at: now,
    });
    return { account: toSocialAccountResource(row, now), workspaceName: workspace.name };
  });
}

/** The offered accounts, tokens included, as the parked state keeps them (encrypted by connect-states.ts). */
function serializeChoices(accounts: ConnectableAccount[]): string {
  return JSON.stringify(accounts);
}

function parseChoices(json: string): ConnectableAccount[] {
  const date = (value: unknown) => (typeof value === 'string' ? new Date(value) : null);
  return (JSON.parse(json) as ConnectableAccount[]).map(({ profile, grant }) => ({
    profile,
    grant: {
      ...grant,
      expiresAt: date(grant.expiresAt),
      refreshTokenExpiresAt: date(grant.refreshTokenExpiresAt),
    },
  }));
}
