/**
 * Connecting a live account. Over OAuth 2.0 (authorization code): the API hands out the platform's
 * consent URL with a single-use state bound to the workspace (connect-states.ts), and the platform
 * sends the user back to the callback, which trades the code for tokens and reads the profile; the
 * person then confirms, in that same browser, which workspace gets the account, and only then is it
 * stored. With credentials (platforms whose entry says `connect: 'credentials'`): the same request
 * carries an identifier and an app password, the service signs in once, forgets the password and
 * stores the account with the session's tokens. Every failure leaves nothing behind: no account row,
 * no tokens, no event.
 */
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { savepoint, writeTransaction } from '../../../db/client.ts';
import { socialAccounts, type Platform } from '../../../db/schema/index.ts';
import { findWorkspace } from '../accounts/workspaces.ts';
import { inNextCommit } from '../batch.ts';
import type { Runtime, ServiceContext } from '../context.ts';
import { ServiceError, type ErrorCode } from '../errors.ts';
import { recordEvent } from '../events/record-event.ts';
import { newId } from '../ids.ts';
import { defineOperation } from '../operation.ts';
import { resolveSession } from '../people/sessions.ts';
import {
  PlatformError,
  type ConnectableAccount,
  type LiveProfile,
  type OAuthProvider,
} from '../platforms/platform-client.ts';
import {
  accountHandle,
  CREDENTIALS_PLATFORMS,
  isCredentialsPlatform,
  isOAuthPlatform,
  oauthApp,
  oauthAppConfig,
  oauthProvider,
  PLATFORM_NAMES,
  platformIdList,
  PLATFORMS,
  sessionsProvider,
} from '../platforms/registry.ts';
import {
  confirmationMatches,
  consumeConnectState,
  createConnectState,
  parkConnectState,
  restoreConnectState,
  type ConsumedConnectState,
} from './connect-states.ts';
import { assertRoomForAnotherAccount } from './operations.ts';
import { SocialAccountConnected, type SocialAccountConnect as ConsentUrlSchema } from './schemas.ts';
import { toSocialAccountResource, type SocialAccountResource } from './serialize.ts';
import { storeTokens, type TokenGrant } from './tokens.ts';

const LIVE_LIST = PLATFORMS.join(', ');

const unknownPlatformMessage = (input: unknown): string =>
  `Unknown platform "${String(input)}"; the platforms that can be connected are ${LIVE_LIST}.`;

/** The request's fields that only a platform connecting with credentials takes. */
const CREDENTIAL_FIELDS = ['identifier', 'app_password', 'service'] as const;

export const ConnectRequest = z
  .object({
    platform: z
      .string({ error: `Give a platform id: one of ${LIVE_LIST}.` })
      .trim()
      .toLowerCase()
      .pipe(z.enum(PLATFORMS, { error: (issue) => unknownPlatformMessage(issue.input) }))
      .describe('The platform to connect an account of.'),
    return_url: z
      .url({
        protocol: /^https?$/,
        error: 'return_url must be an absolute http or https URL, such as https://app.example.com/settings.',
      })
      .max(2000, 'return_url is longer than 2000 characters.')
      .optional()
      .describe(
        "OAuth platforms: where the callback sends the user afterwards (303), on the service's own origin or one the operator allowed, " +
          'with social_account_id and platform added to the query (or error=access_denied when the user cancelled). ' +
          'Without it, the callback answers a small HTML page.',
      ),
    identifier: z
      .string()
      .trim()
      .min(1, 'identifier must not be empty.')
      .max(320, 'identifier is longer than 320 characters.')
      .optional()
      .describe("Platforms that connect with credentials: the account's handle or e-mail."),
    app_password: z
      .string()
      .min(1, 'app_password must not be empty.')
      .max(256, 'app_password is longer than 256 characters.')
      .optional()
      .describe(
        "Platforms that connect with credentials: an app password made in the platform's settings. Used once to sign in, never stored.",
      ),
    service: z
      .url({ protocol: /^https?$/, error: 'service must be an absolute http or https URL.' })
      .max(2000, 'service is longer than 2000 characters.')
      .optional()
      .describe(
        "Platforms that connect with credentials: the account's server; only the service's configured one is accepted.",
      ),
  })
  .superRefine((input, ctx) => {
    if (isCredentialsPlatform(input.platform)) {
      for (const field of ['identifier', 'app_password'] as const) {
        if (input[field] === undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [field],
            message: `${PLATFORM_NAMES[input.platform]} connects with credentials: give identifier and app_password.`,
          });
        }
      }
      if (input.return_url !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['return_url'],
          message: `${PLATFORM_NAMES[input.platform]} connects without a consent page, so there is nothing to return from: leave return_url out.`,
        });
      }
      return;
    }
    for (const field of CREDENTIAL_FIELDS) {
      if (input[field] !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `${PLATFORM_NAMES[input.platform]} connects over OAuth: ${field} is only for ${platformIdList(CREDENTIALS_PLATFORMS)}.`,
        });
      }
    }
  });

/**
 * A return_url must lead back to the service or to an origin the operator named: anything else would
 * make the callback a redirect to anywhere under the service's name. Credentials in the URL
 * (`https://service@evil.example/`) are refused outright, whatever the origin.
 */
function assertAllowedReturnUrl(config: Runtime['config'], returnUrl: string): void {
  const url = new URL(returnUrl);
  const allowed = [new URL(config.publicBaseUrl).origin, ...config.connectReturnOrigins];
  if (url.username === '' && url.password === '' && allowed.includes(url.origin)) return;
  throw new ServiceError(
    'invalid_return_url',
    `return_url must be on ${allowed.join(' or ')}, without user name or password; ` +
      'the operator can allow more origins with CONNECT_RETURN_ORIGINS.',
  );
}

/**
 * POST /social-accounts/connect. For an OAuth platform: the consent URL. Refused when the platform's
 * app is not configured (platform_not_configured, naming the variables), and when the workspace is at
 * its platforms_limit, unless it has an active account on that platform that this could be a
 * reconnect of (the callback checks again, knowing the account). For a platform that connects with
 * credentials: signs in and answers the connected account (see connectWithCredentials).
 */
export const startAccountConnection = defineOperation({
  name: 'startAccountConnection',
  // Webhooks and accounts are an admin's (the dashboard's roles); API keys keep full access.
  role: 'admin',
  buckets: ['write'],
  scope: 'write',
  input: ConnectRequest,
  output: SocialAccountConnected,
  errors: {
    invalid_return_url: "return_url is not on the service's origin nor on one in CONNECT_RETURN_ORIGINS",
    platform_not_configured: "the service's OAuth app for the platform is not configured",
    credentials_refused: 'the platform refused the identifier and app password',
    platform_unavailable: 'the platform could not be reached or failed while signing in',
    quota_exceeded: "the plan's platforms_limit of active accounts is reached",
  },
  run(ctx, input): SocialAccountConnect | Promise<SocialAccountResource> {
    return beginConnection(ctx, input, null);
  },
});

/**
 * The dashboard's "Connect <platform>": startAccountConnection bound to the signed-in person's
 * session (its SHA-256, never sent by a caller: only the dashboard door runs this). The callback,
 * opened in that browser with that session still live, connects the account without the
 * confirmation page; opened anywhere else it asks, as for any link.
 */
export const startSessionConnection = defineOperation({
  name: 'startSessionConnection',
  role: 'admin',
  buckets: ['write'],
  scope: 'write',
  input: ConnectRequest.extend({ session_hash: z.string().regex(/^[0-9a-f]{64}$/) }),
  output: SocialAccountConnected,
  errors: startAccountConnection.errors,
  run(ctx, { session_hash: sessionHash, ...input }): SocialAccountConnect | Promise<SocialAccountResource> {
    return beginConnection(ctx, input, sessionHash);
  },
});

/** A credentials platform connects at once; an OAuth platform answers its consent URL, bound to the session if any. */
function beginConnection(
  ctx: ServiceContext,
  input: z.output<typeof ConnectRequest>,
  sessionHash: string | null,
): SocialAccountConnect | Promise<SocialAccountResource> {
  const { db, config, clock, workspace } = ctx;
  const { platform } = input;
  if (isCredentialsPlatform(platform)) return connectWithCredentials(ctx, platform, input);
  if (input.return_url !== undefined) assertAllowedReturnUrl(config, input.return_url);
  const app = oauthApp(config, platform);
  const provider = oauthProvider(config, clock, platform);
  if (!app || !provider) {
    const [idVariable, secretVariable] = oauthAppConfig(config, platform)!.credentialVariables;
    throw new ServiceError(
      'platform_not_configured',
      `${platform} accounts cannot be connected: the service's ${platform} app is not configured. ` +
        `The operator must set ${idVariable} and ${secretVariable}.`,
    );
  }
  if (!hasActiveAccountOn(db, workspace.id, platform)) assertRoomForAnotherAccount(db, workspace);
  const pending = createConnectState(
    { db, config, clock },
    { workspaceId: workspace.id, platform, returnUrl: input.return_url ?? null, pkce: provider.pkce, sessionHash },
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
}

/** The consent URL answer of an OAuth platform. */
type SocialAccountConnect = z.output<typeof ConsentUrlSchema>;

function hasActiveAccountOn(db: Runtime['db'], workspaceId: string, platform: Platform): boolean {
  const found = db
    .select({ id: socialAccounts.id })
    .from(socialAccounts)
    .where(
      and(
        eq(socialAccounts.workspaceId, workspaceId),
        eq(socialAccounts.platform, platform),
        eq(socialAccounts.isActive, true),
      ),
    )
    .get();
  return found !== undefined;
}

/**
 * A platform that connects with credentials: one sign-in (never one per publish: platforms limit
 * how often an account may sign in), then the account is stored with the session's tokens in the
 * next group commit, exactly as an OAuth connection stores it. The app password lives only in this
 * call: it is not stored, not logged, and not part of any answer or error. A refused sign-in answers
 * credentials_refused and stores nothing.
 */
async function connectWithCredentials(
  ctx: ServiceContext,
  platform: Platform,
  input: z.output<typeof ConnectRequest>,
): Promise<SocialAccountResource> {
  const { db, config, clock, workspace } = ctx;
  const sessions = sessionsProvider(config, clock, platform)!;
  const name = PLATFORM_NAMES[platform];
  const configuredService = config.live[platform].apiBaseUrl;
  if (input.service !== undefined && new URL(input.service).origin !== new URL(configuredService).origin) {
    // The session's host would have to be kept per account; until then one server per platform.
    throw new ServiceError(
      'invalid_body',
      `The request is invalid: this service connects ${name} accounts on ${configuredService} only.`,
      { formErrors: [], fieldErrors: { service: [`Only ${configuredService} is accepted; leave service out.`] } },
    );
  }
  // Before signing in: a sign-in the quota would refuse anyway is not spent.
  if (!hasActiveAccountOn(db, workspace.id, platform)) assertRoomForAnotherAccount(db, workspace);
  let account: ConnectableAccount;
  try {
    account = await sessions.signIn({ identifier: input.identifier!, secret: input.app_password! });
  } catch (failure) {
    if (!(failure instanceof PlatformError)) throw failure;
    if (failure.kind === 'reauth_required' || failure.kind === 'content_rejected') {
      throw new ServiceError('credentials_refused', failure.message);
    }
    throw new ServiceError('platform_unavailable', failure.message);
  }
  return inNextCommit(db, () =>
    savepoint(db, () => storeConnection(ctx, workspace.id, platform, [], account.grant, account.profile).account),
  );
}

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

const refused = (code: ConnectionRefusal, message: string): ConnectionOutcome => ({
  outcome: 'refused',
  error: new ServiceError(code, message) as ServiceError & { code: ConnectionRefusal },
});

const queryValue = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** How an account is named to a person (its platform's registry entry says how). */
export { accountHandle };

const otherBrowser = (): ConnectionOutcome =>
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
  const consumed = consumeConnectState(runtime, platform, query.state);
  if (!consumed.ok) return invalidState(consumed.reason);
  const { pending } = consumed;
  const state = query.state as string;
  // The confirmation page loaded again (the code is spent): only in the browser it was given to.
  if (pending.choices !== null) {
    if (!confirmationMatches(pending, browserConfirmation)) {
      restoreConnectState(runtime, state, pending);
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
  if (offered.length === 1 && startedByThisSession(runtime, pending, sessionToken)) {
    return connectAccounts(runtime, provider, pending, offered);
  }
  return offerConfirmation(runtime, provider.platform, state, pending, serializeChoices(offered));
}

/**
 * Whether the connection was started on the dashboard by the session whose token this browser sent,
 * and that session is still live, in the same workspace, for an admin (who may connect accounts).
 */
function startedByThisSession(runtime: Runtime, pending: ConsumedConnectState, sessionToken: string | undefined) {
  if (pending.sessionHash === null || sessionToken === undefined) return false;
  const session = resolveSession(runtime, sessionToken);
  return (
    session !== null &&
    session.sessionHash === pending.sessionHash &&
    session.workspace.id === pending.workspaceId &&
    session.principal.role === 'admin'
  );
}

/**
 * POST /callbacks/{platform}/oauth: the confirmation form came back with the same state, the
 * confirmation token (which must also be this browser's, `browserConfirmation`: a form posted from
 * anywhere else is refused), and either `decision=cancel` or the accounts to connect (ids among those
 * the login offered). The state is spent here, unless the form is refused as it stands.
 */
export function completeConfirmation(
  runtime: Runtime,
  platform: string,
  form: Record<string, unknown>,
  browserConfirmation: string | undefined,
): ConnectionOutcome {
  if (!isOAuthPlatform(platform)) {
    return refused('not_found', `No OAuth connection is served for platform "${platform}".`);
  }
  // An OAuth platform (checked above) always has its OAuth steps.
  const provider = oauthProvider(runtime.config, runtime.clock, platform)!;
  const consumed = consumeConnectState(runtime, platform, form.state);
  if (!consumed.ok) return invalidState(consumed.reason);
  const { pending } = consumed;
  const state = form.state as string;
  if (pending.choices === null) return invalidState('unknown');
  if (form.confirmation !== browserConfirmation || !confirmationMatches(pending, browserConfirmation)) {
    restoreConnectState(runtime, state, pending);
    return otherBrowser();
  }
  if (form.decision === 'cancel')
    return { outcome: 'cancelled', platform: provider.platform, returnUrl: pending.returnUrl };
  const offered = parseChoices(pending.choices);
  const picked = [form.account].flat().filter((id): id is string => typeof id === 'string');
  const chosen = offered.filter((account) => picked.includes(account.profile.platformUserId));
  if (chosen.length === 0 || chosen.length !== new Set(picked).size) {
    // Nothing was stored, and the same page may be sent again with a choice.
    restoreConnectState(runtime, state, pending);
    return refused('invalid_body', 'Choose at least one of the accounts listed, then connect again.');
  }
  return connectAccounts(runtime, provider, pending, chosen);
}

function invalidState(reason: 'unknown' | 'expired'): ConnectionOutcome {
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
function offerConfirmation(
  runtime: Runtime,
  platform: Platform,
  state: string,
  pending: ConsumedConnectState,
  offered: string,
): ConnectionOutcome {
  const workspace = findWorkspace(runtime.db, pending.workspaceId);
  if (!workspace)
    return refused('invalid_connect_state', 'The workspace this connection was started for no longer exists.');
  const confirmation = parkConnectState(runtime, state, pending, offered);
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
      return refused('invalid_connect_state', 'The workspace this connection was started for no longer exists.');
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
