/**
 * Connecting a live account over OAuth, step two: GET /callbacks/{platform}/oauth, where the platform
 * sends the person back with a code. What a callback or a confirmation comes to (ConnectionOutcome)
 * is said here; nothing is stored until the person confirms (connect-confirmation.ts), unless the
 * dashboard session that started it came back.
 */
import type { Platform } from '../../../db/schema/index.ts';
import { findWorkspace } from '../accounts/workspaces.ts';
import { writeTransaction } from '../../../db/client.ts';
import type { Runtime } from '../context.ts';
import { ServiceError, type ErrorCode } from '../errors.ts';
import { resolveSession } from '../people/sessions.ts';
import { PlatformError, type ConnectableAccount, type OAuthProvider } from '../platforms/platform-client.ts';
import { accountHandle, isOAuthPlatform, oauthApp, oauthProvider, PLATFORM_NAMES } from '../platforms/registry.ts';
import {
  confirmationMatches,
  consumeConnectState,
  parkConnectState,
  restoreConnectState,
  type ConsumedConnectState,
} from './connect-states.ts';
import { parseChoices, serializeChoices, storeConnection } from './connect-storage.ts';
import type { SocialAccountResource } from './serialize.ts';

/** One account a login offered, as the chooser shows it. */
export interface AccountChoice {
  id: string;
  name: string;
}

/**
 * What the callback came to; the door renders it (a page, or a 303 to the return URL). `confirm`: the
 * accounts the login offered, waiting for the person to confirm them in this browser; the door gives
 * the browser `confirmation` (a cookie) and the form echoes it with the state.
 */
export type ConnectionOutcome =
  | { outcome: 'connected'; accounts: SocialAccountResource[]; workspaceName: string; returnUrl: string | null }
  | {
      outcome: 'confirm';
      platform: Platform;
      state: string;
      confirmation: string;
      expiresAt: Date;
      choices: AccountChoice[];
      workspaceName: string;
    }
  | { outcome: 'cancelled'; platform: Platform; returnUrl: string | null }
  | { outcome: 'refused'; error: ServiceError & { code: ConnectionRefusal } };

/**
 * Why a callback connected nothing, as codes of the one error model (errors.ts); the door gives each
 * its status:
 * - `not_found`: no live client answers at this callback;
 * - `invalid_connect_state`: the state is missing, unknown, expired or already used, or the code is
 *   missing, or the confirmation came from another browser than the one that brought the code, or the
 *   workspace is gone;
 * - `invalid_body`: the chooser's form named no account, or one the login did not offer;
 * - `quota_exceeded`: the account would pass the workspace's platforms_limit;
 * - `platform_unavailable`: the platform refused the authorization or the code, or could not be reached.
 */
export type ConnectionRefusal = Extract<
  ErrorCode,
  'not_found' | 'invalid_connect_state' | 'invalid_body' | 'quota_exceeded' | 'platform_unavailable'
>;

/** What LinkedIn (`user_cancelled_*`) and X (`access_denied`) send back when the user declines. */
const CANCELLATIONS = new Set(['access_denied', 'user_cancelled_authorize', 'user_cancelled_login']);

export const refused = (code: ConnectionRefusal, message: string): ConnectionOutcome => ({
  outcome: 'refused',
  error: new ServiceError(code, message) as ServiceError & { code: ConnectionRefusal },
});

const queryValue = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** How an account is named to a person (its platform's registry entry says how). */
export { accountHandle };
export const otherBrowser = (): ConnectionOutcome =>
  refused(
    'invalid_connect_state',
    'This confirmation belongs to the browser that came back from the platform: finish it there, or start the connection again.',
  );

/**
 * GET /callbacks/{platform}/oauth: the platform sent the person back. The state is consumed first
 * (whatever follows, it cannot be used again); then the code is exchanged and the profiles read, and
 * the accounts offered wait for the person's confirmation (`completeConfirmation`): whoever made the
 * connect link is not necessarily whoever consented, so nothing is stored until the person who did
 * says which workspace gets the account. `browserConfirmation` is the token the door gave this
 * browser with an earlier confirmation page, if any.
 */
export async function completeConnection(
  runtime: Runtime,
  platform: string,
  query: Record<string, unknown>,
  browserConfirmation?: string,
  sessionToken?: string,
): Promise<ConnectionOutcome> {
  if (!isOAuthPlatform(platform)) {
    return refused('not_found', `No OAuth connection is served for platform "${platform}".`);
  }
  // An OAuth platform (checked above) always has its OAuth steps.
  const provider = oauthProvider(runtime.config, runtime.clock, platform)!;
  const consumed = await consumeConnectState(runtime, platform, query.state);
  if (!consumed.ok) return invalidState(consumed.reason);
  const { pending } = consumed;
  const state = query.state as string;
  // The confirmation page loaded again (the code is spent): only in the browser it was given to.
  if (pending.choices !== null) {
    if (!confirmationMatches(pending, browserConfirmation)) {
      await restoreConnectState(runtime, state, pending);
      return otherBrowser();
    }
    return offerConfirmation(runtime, provider.platform, state, pending, pending.choices);
  }

  const error = queryValue(query.error);
  if (error !== undefined) {
    if (CANCELLATIONS.has(error))
      return { outcome: 'cancelled', platform: provider.platform, returnUrl: pending.returnUrl };
    const description = queryValue(query.error_description)?.slice(0, 300);
    return refused(
      'platform_unavailable',
      `${PLATFORM_NAMES[provider.platform]} refused the authorization with "${error.slice(0, 100)}"${description ? `: ${description}` : ''}.`,
    );
  }
  const code = queryValue(query.code);
  if (!code)
    return refused('invalid_connect_state', 'The platform sent no authorization code. Start the connection again.');

  const app = oauthApp(runtime.config, platform);
  if (!app) {
    return refused(
      'platform_unavailable',
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
    return refused('platform_unavailable', failure.message);
  }
  const name = PLATFORM_NAMES[provider.platform];
  if (offered.length === 0) {
    return refused('platform_unavailable', `The ${name} login gave access to no account that can be connected.`);
  }
  // Started on the dashboard and back in the same signed-in browser: the person who asked is the one
  // who consented, so there is nothing to confirm. A login offering several accounts still needs the
  // person's pick (the Facebook Pages chooser).
  if (offered.length === 1 && (await startedByThisSession(runtime, pending, sessionToken))) {
    return connectAccounts(runtime, provider, pending, offered);
  }
  return offerConfirmation(runtime, provider.platform, state, pending, serializeChoices(offered));
}

/**
 * Whether the connection was started on the dashboard by the session whose token this browser sent,
 * and that session is still live, in the same workspace, for an admin (who may connect accounts).
 */
async function startedByThisSession(runtime: Runtime, pending: ConsumedConnectState, sessionToken: string | undefined) {
  if (pending.sessionHash === null || sessionToken === undefined) return false;
  const session = await resolveSession(runtime, sessionToken);
  return (
    session !== null &&
    session.sessionHash === pending.sessionHash &&
    session.workspace.id === pending.workspaceId &&
    session.principal.role === 'admin'
  );
}

export function invalidState(reason: 'unknown' | 'expired'): ConnectionOutcome {
  return refused(
    'invalid_connect_state',
    reason === 'expired'
      ? 'This connection link has expired (links are good for 15 minutes). Start the connection again.'
      : 'This connection link is not valid: it was already used, or it was not made by this service. Start the connection again.',
  );
}

/**
 * Parks the state with the accounts offered (again, on a reload of the confirmation page: consuming
 * it spent it) under a fresh confirmation token, and answers the confirmation page's contents.
 */
async function offerConfirmation(
  runtime: Runtime,
  platform: Platform,
  state: string,
  pending: ConsumedConnectState,
  offered: string,
): Promise<ConnectionOutcome> {
  const workspace = await findWorkspace(runtime.db, pending.workspaceId);
  if (!workspace)
    return refused('invalid_connect_state', 'The workspace this connection was started for no longer exists.');
  const confirmation = await parkConnectState(runtime, state, pending, offered);
  const choices = parseChoices(offered).map(({ profile }) => ({
    id: profile.platformUserId,
    name: accountHandle(platform, profile),
  }));
  return {
    outcome: 'confirm',
    platform,
    state,
    confirmation,
    expiresAt: pending.expiresAt,
    choices,
    workspaceName: workspace.name,
  };
}

/** Connects every account given, all or none: one transaction, so the quota is judged on the whole set. */
export async function connectAccounts(
  runtime: Runtime,
  provider: OAuthProvider,
  pending: ConsumedConnectState,
  accounts: ConnectableAccount[],
): Promise<ConnectionOutcome> {
  try {
    const stored = await writeTransaction(runtime.db, async () => {
      const connections = [];
      for (const { grant, profile } of accounts)
        connections.push(
          await storeConnection(runtime, pending.workspaceId, provider.platform, provider.scopes, grant, profile),
        );
      return connections;
    });
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
      return refused('invalid_connect_state', 'The workspace this connection was started for no longer exists.');
    }
    throw failure;
  }
}
