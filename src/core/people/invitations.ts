import { and, asc, eq, gt, isNull, lt, ne, or } from 'drizzle-orm';
import { writeTransaction, type Db } from '../../../db/client.ts';
import { invitations, memberships, users, type Role } from '../../../db/schema/index.ts';
import { getWorkspace } from '../accounts/workspaces.ts';
import type { Runtime } from '../context.ts';
import { ServiceError } from '../errors.ts';
import { newId } from '../ids.ts';
import { hashPassword, passwordMatches, passwordProblem } from './passwords.ts';
import { membershipOf } from './memberships.ts';
import { checkSignIn } from './sessions.ts';
import {
  checkedEmail,
  checkedRole,
  findUserByEmail,
  givePassword,
  INVITE_LINK_LIFETIME_MS,
  LINK_REFUSED,
  linkRefused,
  newLinkToken,
  sha256Hex,
  workspacesOf,
} from './users.ts';

/*
 * A workspace invites an email; the person joins only by accepting on the invitation's link. A
 * person is one account across the deployment, and no workspace's admin can set, or cause to be
 * set, the password of a person who has one:
 * - a new person (no password yet) chooses their password on the link, unless another workspace
 *   invited them first: then that first invitation's link is the one that sets it;
 * - a person with a password accepts by giving it (throttled as a sign-in is), or by being signed in.
 * An invite answers alike whether or not the email has an account elsewhere: always a link.
 */

export type InvitationRow = typeof invitations.$inferSelect;

export interface Invited {
  invitationId: string;
  email: string;
  role: Role;
  /** `/app/invite?token=…`, to hand to the person (no email is sent). */
  path: string;
  expiresAt: Date;
}

/**
 * Invites an email to a workspace with a role and answers the link, valid 7 days. A live invitation
 * of the same email to the same workspace is replaced: its link stops working. Someone already in
 * the workspace is refused (their role is changed instead). Nothing else about the email is looked
 * at: whether it has an account, or invitations elsewhere, changes nothing in the answer.
 */
export async function invitePerson(
  runtime: Runtime,
  input: { workspaceId: string; email: string; role: string; invitedBy: string | null },
): Promise<Invited> {
  const email = checkedEmail(input.email);
  const role = checkedRole(input.role);
  await getWorkspace(runtime.db, input.workspaceId);
  const { db } = runtime;
  const now = runtime.clock.now();
  return writeTransaction(db, async () => {
    const existing = await findUserByEmail(db, email);
    const member = existing && (await membershipOf(db, input.workspaceId, existing.id));
    if (member) {
      throw new ServiceError(
        'invalid_state',
        `${email} is already ${member.role === 'admin' ? 'an' : 'a'} ${member.role} in this workspace; change their role in the list instead.`,
      );
    }
    await db
      .update(invitations)
      .set({ withdrawnAt: now })
      .where(and(eq(invitations.workspaceId, input.workspaceId), eq(invitations.email, email), isLive(now)))
      .run();
    const { token, tokenHash } = newLinkToken();
    const invitation = {
      id: newId(),
      workspaceId: input.workspaceId,
      email,
      role,
      invitedBy: input.invitedBy,
      tokenHash,
      createdAt: now,
      expiresAt: new Date(now.getTime() + INVITE_LINK_LIFETIME_MS),
    };
    await db.insert(invitations).values(invitation).run();
    return {
      invitationId: invitation.id,
      email,
      role,
      path: `/app/invite?token=${encodeURIComponent(token)}`,
      expiresAt: invitation.expiresAt,
    };
  });
}

const isLive = (now: Date) =>
  and(isNull(invitations.acceptedAt), isNull(invitations.withdrawnAt), gt(invitations.expiresAt, now));

/** A workspace's invitations still waiting, soonest to expire first. */
export async function liveInvitationsOf(db: Db, workspaceId: string, now: Date): Promise<InvitationRow[]> {
  return db
    .select()
    .from(invitations)
    .where(and(eq(invitations.workspaceId, workspaceId), isLive(now)))
    .orderBy(asc(invitations.expiresAt), asc(invitations.email))
    .all();
}

/** Withdraws a workspace's live invitation: its link stops working. Another workspace's is not found. */
export async function withdrawInvitation(
  db: Db,
  workspaceId: string,
  invitationId: string,
  now: Date,
): Promise<InvitationRow> {
  const row = await db
    .select()
    .from(invitations)
    .where(and(eq(invitations.id, invitationId), eq(invitations.workspaceId, workspaceId), isLive(now)))
    .get();
  if (!row) throw new ServiceError('not_found', 'There is no such invitation waiting in this workspace.');
  await db.update(invitations).set({ withdrawnAt: now }).where(eq(invitations.id, row.id)).run();
  return row;
}

/** Withdraws every live invitation of an email to a workspace (the person was removed from it). */
export async function withdrawInvitationsOf(db: Db, workspaceId: string, email: string, now: Date): Promise<void> {
  await db
    .update(invitations)
    .set({ withdrawnAt: now })
    .where(and(eq(invitations.workspaceId, workspaceId), eq(invitations.email, email), isLive(now)))
    .run();
}

async function liveInvitation(db: Db, token: string, now: Date): Promise<InvitationRow | undefined> {
  if (token === '' || token.length > 100) return undefined;
  return db
    .select()
    .from(invitations)
    .where(and(eq(invitations.tokenHash, sha256Hex(token)), isLive(now)))
    .get();
}

/** Another workspace's live invitation of the same email made before this one, if any. */
async function invitedFirstElsewhere(db: Db, invitation: InvitationRow, now: Date): Promise<InvitationRow | undefined> {
  return db
    .select()
    .from(invitations)
    .where(
      and(
        eq(invitations.email, invitation.email),
        ne(invitations.workspaceId, invitation.workspaceId),
        isLive(now),
        or(
          lt(invitations.createdAt, invitation.createdAt),
          and(eq(invitations.createdAt, invitation.createdAt), lt(invitations.id, invitation.id)),
        ),
      ),
    )
    .get();
}

export interface OpenInvitation {
  email: string;
  workspaceName: string;
  role: Role;
  /** The signed-in person is the one invited: they accept with one button, no password. */
  signedInAsInvitee: boolean;
}

/** What an invitation's link is for, to show its page; invalid_link when it cannot be used. */
export async function openInvitation(
  runtime: Runtime,
  token: string,
  signedInUserId?: string,
): Promise<OpenInvitation | ServiceError> {
  const row = await liveInvitation(runtime.db, token, runtime.clock.now());
  if (!row) return linkRefused();
  return {
    email: row.email,
    workspaceName: (await getWorkspace(runtime.db, row.workspaceId)).name,
    role: row.role,
    signedInAsInvitee: signedInUserId !== undefined && (await emailOf(runtime.db, signedInUserId)) === row.email,
  };
}

const emailOf = async (db: Db, userId: string) =>
  (await db.select({ email: users.email }).from(users).where(eq(users.id, userId)).get())?.email;

export const INVITED_FIRST_ELSEWHERE =
  'Another workspace invited you before this one. Set your password on the link of that first invitation; then open this link again and accept it with that password.';
export const WRONG_PASSWORD =
  'That is not the password of this account. Give the password you sign in with, or sign in first. If you never chose one, ask the operator of the service for a password reset.';
const PASSWORD_SET_MEANWHILE = 'This account has a password now: give it to accept the invitation.';

/**
 * Why an invitation was not accepted: invalid_link (used, expired or replaced), wrong_password,
 * weak_password, or invalid_state (another workspace invited them first, or the account got a
 * password meanwhile). The dashboard picks each one's page.
 */
export type AcceptRefusal = ServiceError & {
  code: 'invalid_link' | 'wrong_password' | 'weak_password' | 'invalid_state';
};
const refuse = (code: AcceptRefusal['code'], message: string) => new ServiceError(code, message) as AcceptRefusal;

/**
 * Accepts an invitation on its link: the person becomes a member with the invitation's role, and
 * this workspace's other invitations of them are spent with it. The invitee accepts while signed in
 * as themselves, or with their account's password (checked by checkSignIn, so the sign-in limits
 * bound the guesses here too), or, having no password yet, by choosing one, unless another workspace
 * invited them first. Answers who joined where; may throw checkSignIn's RateLimitError.
 */
export async function acceptInvitation(
  runtime: Runtime,
  input: { token: string; password?: string; signedInUserId?: string; address: string },
): Promise<{ userId: string; workspaceId: string } | AcceptRefusal> {
  const { db } = runtime;
  const invitation = await liveInvitation(db, input.token, runtime.clock.now());
  if (!invitation) return refuse('invalid_link', LINK_REFUSED);
  const password = (input.password ?? '').slice(0, 1024);

  const signedIn = input.signedInUserId;
  if (signedIn !== undefined && (await emailOf(db, signedIn)) === invitation.email) {
    return joinWith(runtime, input.token, signedIn);
  }

  const user = await findUserByEmail(db, invitation.email);
  if (user?.passwordHash) {
    if (password === '') return refuse('wrong_password', WRONG_PASSWORD);
    const outcome = await checkSignIn(runtime, { email: invitation.email, password, address: input.address });
    // checkSignIn refuses a person of no workspace even with the right password; for them it is asked
    // once more, after checkSignIn has counted the attempt, so the limits still bound the guesses.
    const matched =
      !(outcome instanceof ServiceError) ||
      ((await workspacesOf(db, user.id)).length === 0 && (await passwordMatches(user.passwordHash, password)));
    if (!matched) return refuse('wrong_password', WRONG_PASSWORD);
    return joinWith(runtime, input.token, user.id);
  }

  const problem = passwordProblem(password, { email: invitation.email });
  if (problem) return refuse('weak_password', problem);
  if (await invitedFirstElsewhere(db, invitation, runtime.clock.now()))
    return refuse('invalid_state', INVITED_FIRST_ELSEWHERE);
  const passwordHash = await hashPassword(password);
  const now = runtime.clock.now();
  return writeTransaction(db, async () => {
    // Read again after the hash: the link, or the account, may have changed meanwhile.
    const row = await liveInvitation(db, input.token, now);
    if (!row) return refuse('invalid_link', LINK_REFUSED);
    const person = await findUserByEmail(db, row.email);
    if (person?.passwordHash) return refuse('invalid_state', PASSWORD_SET_MEANWHILE);
    if (await invitedFirstElsewhere(db, row, now)) return refuse('invalid_state', INVITED_FIRST_ELSEWHERE);
    const userId = person?.id ?? newId();
    if (!person) {
      await db.insert(users).values({ id: userId, email: row.email, passwordHash: null, createdAt: now }).run();
    }
    await givePassword(db, userId, passwordHash, now);
    await join(db, row, userId, now);
    return { userId, workspaceId: row.workspaceId };
  });
}

async function joinWith(
  runtime: Runtime,
  token: string,
  userId: string,
): Promise<{ userId: string; workspaceId: string } | AcceptRefusal> {
  const now = runtime.clock.now();
  return writeTransaction(runtime.db, async () => {
    const row = await liveInvitation(runtime.db, token, now);
    if (!row) return refuse('invalid_link', LINK_REFUSED);
    await join(runtime.db, row, userId, now);
    return { userId, workspaceId: row.workspaceId };
  });
}

async function join(db: Db, invitation: InvitationRow, userId: string, now: Date): Promise<void> {
  await db
    .insert(memberships)
    .values({ workspaceId: invitation.workspaceId, userId, role: invitation.role, createdAt: now })
    .onConflictDoNothing()
    .run();
  await db
    .update(invitations)
    .set({ acceptedAt: now })
    .where(
      and(eq(invitations.workspaceId, invitation.workspaceId), eq(invitations.email, invitation.email), isLive(now)),
    )
    .run();
  // Where they just joined is where the next sign-in lands.
  await db.update(users).set({ lastWorkspaceId: invitation.workspaceId }).where(eq(users.id, userId)).run();
}
