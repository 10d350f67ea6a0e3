/**
 * Connecting a live account of a platform that signs in with credentials (Bluesky's app password):
 * the same request that starts a connection carries them (connect-start.ts).
 */
import { savepoint } from '../../../db/client.ts';
import type { Platform } from '../../../db/schema/index.ts';
import { inNextCommit } from '../batch.ts';
import type { ServiceContext } from '../context.ts';
import { ServiceError } from '../errors.ts';
import { PlatformError, type ConnectableAccount } from '../platforms/platform-client.ts';
import { PLATFORM_NAMES, sessionsProvider } from '../platforms/registry.ts';
import { hasActiveAccountOn, storeConnection } from './connect-storage.ts';
import { assertRoomForAnotherAccount } from './operations.ts';
import type { SocialAccountResource } from './serialize.ts';

/**
 * A platform that connects with credentials: one sign-in (never one per publish: platforms limit
 * how often an account may sign in), then the account is stored with the session's tokens in the
 * next group commit, exactly as an OAuth connection stores it. The app password lives only in this
 * call: it is not stored, not logged, and not part of any answer or error. A refused sign-in answers
 * credentials_refused and stores nothing.
 */
export async function connectWithCredentials(
  ctx: ServiceContext,
  platform: Platform,
  input: { identifier?: string; app_password?: string; service?: string },
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
  if (!(await hasActiveAccountOn(db, workspace.id, platform))) await assertRoomForAnotherAccount(db, workspace);
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
  return inNextCommit(db, async () =>
    savepoint(
      db,
      async () => (await storeConnection(ctx, workspace.id, platform, [], account.grant, account.profile)).account,
    ),
  );
}
