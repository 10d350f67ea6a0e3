import { eq, lte, or, sql } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import { preparedStatements, writeTransaction } from '../../../db/client.ts';
import { sessions } from '../../../db/schema/index.ts';
import { findWorkspace, type Workspace } from '../accounts/workspaces.ts';
import type { Runtime } from '../context.ts';
import { ServiceError } from '../errors.ts';
import { passwordMatches } from './passwords.ts';
import { personPrincipal, type Principal } from './principal.ts';
import { membershipOf } from './memberships.ts';
import { reserveSignInAttempt, signInSucceeded } from './sign-in-limits.ts';
import { findUserByEmail, normalizeEmail, sha256Hex, workspacesOf } from './users.ts';

/** A session unused this long ends. */
export const SESSION_IDLE_MS = 8 * 60 * 60 * 1000;
/** A session ends this long after sign-in, however much it is used. */
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60 * 1000;

/** One message for an unknown email and a wrong password: the page must not tell which. */
export const SIGN_IN_REFUSED = 'That email and password do not match an account. Check them and try again.';

/**
 * The cookie a session token travels in: `__Host-` prefixed whenever the service is on https (the
 * prefix requires Secure). The dashboard sets it; the account-connection callback reads it too.
 */
export const sessionCookieName = (config: { publicBaseUrl: string }): string =>
  config.publicBaseUrl.startsWith('https:') ? '__Host-np_session' : 'np_session';

/** A signed-in person, as every page request sees them. */
export interface SignedIn {
  user: { id: string; email: string };
  workspace: Workspace;
  principal: Principal;
  /** The SHA-256 of the session token: what the CSRF token is bound to. */
  sessionHash: string;
}

/**
 * Starts a session for a person in a workspace and answers its token (for the cookie). `replacing`,
 * the browser's previous session token if any, is ended: a sign-in always gets a new token.
 */
export async function startSession(
  runtime: Runtime,
  userId: string,
  workspaceId: string,
  replacing?: string,
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const now = runtime.clock.now();
  await writeTransaction(runtime.db, async () => {
    if (replacing)
      await runtime.db
        .delete(sessions)
        .where(eq(sessions.tokenHash, sha256Hex(replacing)))
        .run();
    // Ended sessions are not kept: each sign-in sweeps the expired ones.
    await runtime.db
      .delete(sessions)
      .where(or(lte(sessions.expiresAt, now), lte(sessions.lastSeenAt, new Date(now.getTime() - SESSION_IDLE_MS))))
      .run();
    await runtime.db
      .insert(sessions)
      .values({
        tokenHash: sha256Hex(token),
        userId,
        workspaceId,
        createdAt: now,
        lastSeenAt: now,
        expiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
      })
      .run();
  });
  return token;
}

/**
 * The person a session token belongs to, or null when it is unknown, ended, idle too long, past its
 * absolute expiry, or its person is no longer in the workspace. Use is noted at most once a minute.
 */
export async function resolveSession(runtime: Runtime, token: string | undefined): Promise<SignedIn | null> {
  if (!token || token.length > 100) return null;
  const tokenHash = sha256Hex(token);
  const row = await statements(runtime.db).session.get({ tokenHash });
  if (!row) return null;
  const now = runtime.clock.now();
  if (row.expiresAt <= now || now.getTime() - row.lastSeenAt.getTime() >= SESSION_IDLE_MS) {
    await runtime.db.delete(sessions).where(eq(sessions.tokenHash, tokenHash)).run();
    return null;
  }
  const member = await membershipOf(runtime.db, row.workspaceId, row.userId);
  const workspace = await findWorkspace(runtime.db, row.workspaceId);
  if (!member || !workspace) return null;
  if (now.getTime() - row.lastSeenAt.getTime() >= 60_000) {
    await runtime.db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.tokenHash, tokenHash)).run();
  }
  return { user: member.user, workspace, principal: personPrincipal(member.user, member.role), sessionHash: tokenHash };
}

// Prepared: every dashboard request reads its session.
const statements = preparedStatements((db) => ({
  session: db
    .select()
    .from(sessions)
    .where(eq(sessions.tokenHash, sql.placeholder('tokenHash')))
    .prepare(),
}));

/** Signs out: the session's row is deleted, so its cookie is worthless from now on. */
export async function endSession(runtime: Runtime, token: string | undefined): Promise<void> {
  if (!token) return;
  await runtime.db
    .delete(sessions)
    .where(eq(sessions.tokenHash, sha256Hex(token)))
    .run();
}

/**
 * Checks an email and password. The attempt is reserved first, within the sign-in limits
 * (sign-in-limits.ts): past them it throws a RateLimitError before the password is looked at. An
 * unknown email, a wrong password and a person with no workspace are refused alike, in about the same
 * time, as sign_in_refused (returned, not thrown: the reserved attempt must stay). `device` is the
 * browser's device cookie, if any; a success answers the one to set.
 */
export async function checkSignIn(
  runtime: Runtime,
  input: { email: string; password: string; address: string; device?: string },
): Promise<{ userId: string; workspaceId: string; device: string } | ServiceError> {
  const email = normalizeEmail(input.email).slice(0, 254);
  const attempt = await reserveSignInAttempt(runtime, { address: input.address, email, deviceCookie: input.device });
  const user = email === '' ? undefined : await findUserByEmail(runtime.db, email);
  const matches = await passwordMatches(user?.passwordHash ?? null, input.password.slice(0, 1024));
  const first = user && matches ? (await workspacesOf(runtime.db, user.id))[0] : undefined;
  // Refused: the reserved attempt stays, as the failure.
  if (!user || !first) return new ServiceError('sign_in_refused', SIGN_IN_REFUSED);
  return { userId: user.id, workspaceId: first.workspaceId, device: await signInSucceeded(runtime, attempt) };
}
