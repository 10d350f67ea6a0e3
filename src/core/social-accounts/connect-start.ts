/**
 * Connecting a live account, step one: POST /social-accounts/connect. For an OAuth platform the API
 * hands out the platform's consent URL with a single-use state bound to the workspace
 * (connect-states.ts); the platform then sends the person back to the callback (connect-callback.ts),
 * who confirms which workspace gets the account (connect-confirmation.ts) before it is stored
 * (connect-storage.ts). A platform that connects with credentials signs in at once
 * (connect-credentials.ts). Every failure leaves nothing behind: no account row, no tokens, no event.
 */
import { z } from 'zod';
import type { Runtime, ServiceContext } from '../context.ts';
import { ServiceError } from '../errors.ts';
import { defineOperation } from '../operation.ts';
import {
  CREDENTIALS_PLATFORMS,
  isCredentialsPlatform,
  oauthApp,
  oauthAppConfig,
  oauthProvider,
  PLATFORM_NAMES,
  platformIdList,
  PLATFORMS,
} from '../platforms/registry.ts';
import { connectWithCredentials } from './connect-credentials.ts';
import { hasActiveAccountOn } from './connect-storage.ts';
import { createConnectState } from './connect-states.ts';
import { assertRoomForAnotherAccount } from './operations.ts';
import { SocialAccountConnected, type SocialAccountConnect as ConsentUrlSchema } from './schemas.ts';
import type { SocialAccountResource } from './serialize.ts';

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
  async run(ctx, input): Promise<SocialAccountConnect | Promise<SocialAccountResource>> {
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
  async run(
    ctx,
    { session_hash: sessionHash, ...input },
  ): Promise<SocialAccountConnect | Promise<SocialAccountResource>> {
    return beginConnection(ctx, input, sessionHash);
  },
});

/** A credentials platform connects at once; an OAuth platform answers its consent URL, bound to the session if any. */
export async function beginConnection(
  ctx: ServiceContext,
  input: z.output<typeof ConnectRequest>,
  sessionHash: string | null,
): Promise<SocialAccountConnect | Promise<SocialAccountResource>> {
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
  if (!(await hasActiveAccountOn(db, workspace.id, platform))) await assertRoomForAnotherAccount(db, workspace);
  const pending = await createConnectState(
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
export type SocialAccountConnect = z.output<typeof ConsentUrlSchema>;
