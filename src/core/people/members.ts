import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../../db/client.ts';
import { memberships, ROLES, sessions, users, type Role } from '../../../db/schema/index.ts';
import { notFound } from '../errors.ts';
import { assertNotLastAdmin } from './memberships.ts';
import { defineOperation } from '../operation.ts';
import { invitePerson, liveInvitationsOf, withdrawInvitation, withdrawInvitationsOf } from './invitations.ts';
import { linkUrl } from './users.ts';

/**
 * The workspace's people as an admin manages them: on the dashboard's members page and in the admin
 * CLI, never on the public API. One rule holds whoever asks: the workspace always keeps an admin who
 * can sign in, so the last one cannot be removed or demoted.
 */

const role = z.enum(ROLES, { error: `The role is one of ${ROLES.join(', ')}.` });
const userId = z.string().min(1).max(64);

async function memberInWorkspace(db: Db, workspaceId: string, id: string) {
  const row = await db
    .select({ id: users.id, email: users.email, role: memberships.role })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, id)))
    .get();
  if (!row) throw notFound('member');
  return row;
}

export const MemberSummary = z.object({
  user_id: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  /** False only for a person made before invitations who never set a password. */
  active: z.boolean(),
  joined_at: z.date(),
});
export type MemberSummary = z.output<typeof MemberSummary>;

/** Everyone in the workspace, oldest first, with whether they have set their password yet. */
export const listMembers = defineOperation({
  name: 'listMembers',
  role: 'admin',
  buckets: ['read'],
  scope: 'read',
  input: z.object({}),
  output: z.array(MemberSummary),
  async run({ db, workspace }): Promise<MemberSummary[]> {
    return (
      await db
        .select({ users, memberships })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(eq(memberships.workspaceId, workspace.id))
        .orderBy(asc(memberships.createdAt), asc(users.email))
        .all()
    ).map((row) => ({
      user_id: row.users.id,
      email: row.users.email,
      role: row.memberships.role,
      active: row.users.passwordHash !== null,
      joined_at: row.memberships.createdAt,
    }));
  },
});

export const PendingInvite = z.object({
  invitation_id: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  expires_at: z.date(),
});
export type PendingInvite = z.output<typeof PendingInvite>;

/** This workspace's invitations not accepted, withdrawn or expired yet, soonest to expire first. */
export const listPendingInvites = defineOperation({
  name: 'listPendingInvites',
  role: 'admin',
  buckets: ['read'],
  scope: 'read',
  input: z.object({}),
  output: z.array(PendingInvite),
  async run({ db, workspace, clock }): Promise<PendingInvite[]> {
    return (await liveInvitationsOf(db, workspace.id, clock.now())).map((row) => ({
      invitation_id: row.id,
      email: row.email,
      role: row.role,
      expires_at: row.expiresAt,
    }));
  },
});

/**
 * Invites a person by email with a role: answers the invite link to hand them (no email is sent),
 * the same whether or not the email has an account elsewhere. They are a member once they accept.
 * Someone already in the workspace is refused: their role is changed in the list instead.
 */
export const inviteMember = defineOperation({
  name: 'inviteMember',
  role: 'admin',
  buckets: ['write'],
  scope: 'write',
  input: z.object({ email: z.string({ error: 'Give an email address, such as ana@example.com.' }), role }),
  output: z.object({
    invitation_id: z.string(),
    email: z.string(),
    role: z.enum(ROLES),
    invite_url: z.string(),
    expires_at: z.date(),
  }),
  async run(ctx, input) {
    const invited = await invitePerson(ctx, {
      workspaceId: ctx.workspace.id,
      email: input.email,
      role: input.role,
      invitedBy: ctx.principal.type === 'user' ? ctx.principal.id : null,
    });
    return {
      invitation_id: invited.invitationId,
      email: invited.email,
      role: invited.role,
      invite_url: linkUrl(ctx, invited.path),
      expires_at: invited.expiresAt,
    };
  },
});

/** Gives a member another role; the last admin keeps theirs. */
export const changeMemberRole = defineOperation({
  name: 'changeMemberRole',
  role: 'admin',
  buckets: ['write'],
  scope: 'write',
  input: z.object({ user_id: userId, role }),
  output: z.object({ user_id: z.string(), email: z.string(), role: z.enum(ROLES) }),
  async run({ db, workspace }, input) {
    const member = await memberInWorkspace(db, workspace.id, input.user_id);
    if (member.role === 'admin' && input.role !== 'admin') await assertNotLastAdmin(db, workspace.id, member.id);
    await db
      .update(memberships)
      .set({ role: input.role })
      .where(and(eq(memberships.workspaceId, workspace.id), eq(memberships.userId, member.id)))
      .run();
    return { user_id: member.id, email: member.email, role: input.role as Role };
  },
});

/**
 * Takes a person out of the workspace: their sessions in it end and their invitations to it still
 * waiting stop working at once. The last admin stays.
 */
export const removeMember = defineOperation({
  name: 'removeMember',
  role: 'admin',
  buckets: ['write'],
  scope: 'write',
  input: z.object({ user_id: userId }),
  output: z.object({ user_id: z.string(), email: z.string(), removed: z.literal(true) }),
  async run({ db, workspace, clock }, input) {
    const member = await memberInWorkspace(db, workspace.id, input.user_id);
    if (member.role === 'admin') await assertNotLastAdmin(db, workspace.id, member.id);
    await dropFromWorkspace(db, workspace.id, member, clock.now());
    return { user_id: member.id, email: member.email, removed: true as const };
  },
});

/** Withdraws a pending invitation: its link stops working. */
export const withdrawInvite = defineOperation({
  name: 'withdrawInvite',
  role: 'admin',
  buckets: ['write'],
  scope: 'write',
  input: z.object({ invitation_id: z.string().min(1).max(64) }),
  output: z.object({ invitation_id: z.string(), email: z.string(), withdrawn: z.literal(true) }),
  async run({ db, workspace, clock }, input) {
    const row = await withdrawInvitation(db, workspace.id, input.invitation_id, clock.now());
    return { invitation_id: row.id, email: row.email, withdrawn: true as const };
  },
});

async function dropFromWorkspace(
  db: Db,
  workspaceId: string,
  member: { id: string; email: string },
  now: Date,
): Promise<void> {
  await db
    .delete(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, member.id)))
    .run();
  await db
    .delete(sessions)
    .where(and(eq(sessions.workspaceId, workspaceId), eq(sessions.userId, member.id)))
    .run();
  await withdrawInvitationsOf(db, workspaceId, member.email, now);
}
