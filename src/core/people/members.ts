import { and, asc, eq, gt, isNull } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../../db/client.ts';
import { memberships, passwordLinks, ROLES, sessions, users, type Role } from '../../../db/schema/index.ts';
import { notFound, ServiceError } from '../errors.ts';
import { assertNotLastAdmin } from './memberships.ts';
import { defineOperation } from '../operation.ts';
import { findUserByEmail, inviteUser, linkUrl } from './users.ts';

/**
 * The workspace's people as an admin manages them: on the dashboard's members page and in the admin
 * CLI, never on the public API. One rule holds whoever asks: the workspace always keeps an admin who
 * can sign in, so the last one cannot be removed or demoted.
 */

const role = z.enum(ROLES, { error: `The role is one of ${ROLES.join(', ')}.` });
const userId = z.string().min(1).max(64);

function memberInWorkspace(db: Db, workspaceId: string, id: string) {
  const row = db
    .select({ id: users.id, email: users.email, role: memberships.role, passwordHash: users.passwordHash })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, id)))
    .get();
  if (!row) throw notFound('member');
  return { id: row.id, email: row.email, role: row.role, hasPassword: row.passwordHash !== null };
}

export const MemberSummary = z.object({
  user_id: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  /** False until the person has set a password on their invite link. */
  active: z.boolean(),
  joined_at: z.date(),
});
export type MemberSummary = z.output<typeof MemberSummary>;

/** Everyone in the workspace, oldest first, with whether they have set their password yet. */
export const listMembers = defineOperation({
  name: 'listMembers',
  role: 'admin',
  buckets: ['read'],
  input: z.object({}),
  output: z.array(MemberSummary),
  run({ db, workspace }): MemberSummary[] {
    return db
      .select({ users, memberships })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(eq(memberships.workspaceId, workspace.id))
      .orderBy(asc(memberships.createdAt), asc(users.email))
      .all()
      .map((row) => ({
        user_id: row.users.id,
        email: row.users.email,
        role: row.memberships.role,
        active: row.users.passwordHash !== null,
        joined_at: row.memberships.createdAt,
      }));
  },
});

export const PendingInvite = z.object({
  user_id: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  expires_at: z.date(),
});
export type PendingInvite = z.output<typeof PendingInvite>;

/** Invite links of this workspace not used yet and not expired, soonest to expire first. */
export const listPendingInvites = defineOperation({
  name: 'listPendingInvites',
  role: 'admin',
  buckets: ['read'],
  input: z.object({}),
  output: z.array(PendingInvite),
  run({ db, workspace, clock }): PendingInvite[] {
    return db
      .select({ userId: users.id, email: users.email, role: memberships.role, expiresAt: passwordLinks.expiresAt })
      .from(passwordLinks)
      .innerJoin(users, eq(users.id, passwordLinks.userId))
      .innerJoin(
        memberships,
        and(eq(memberships.userId, passwordLinks.userId), eq(memberships.workspaceId, passwordLinks.workspaceId)),
      )
      .where(
        and(
          eq(passwordLinks.workspaceId, workspace.id),
          eq(passwordLinks.kind, 'invite'),
          isNull(passwordLinks.usedAt),
          gt(passwordLinks.expiresAt, clock.now()),
        ),
      )
      .orderBy(asc(passwordLinks.expiresAt))
      .all()
      .map((row) => ({ user_id: row.userId, email: row.email, role: row.role, expires_at: row.expiresAt }));
  },
});

/**
 * Invites a person by email with a role: answers the invite link to hand them (no email is sent), or
 * null when they already have a password elsewhere and can simply sign in. Someone already in the
 * workspace is refused: their role is changed in the list instead.
 */
export const inviteMember = defineOperation({
  name: 'inviteMember',
  role: 'admin',
  buckets: ['write'],
  input: z.object({ email: z.string({ error: 'Give an email address, such as ana@example.com.' }), role }),
  output: z.object({ user_id: z.string(), email: z.string(), role: z.enum(ROLES), invite_url: z.string().nullable() }),
  run(ctx, input) {
    const existing = findUserByEmail(ctx.db, input.email);
    if (existing) {
      const already = ctx.db
        .select({ role: memberships.role })
        .from(memberships)
        .where(and(eq(memberships.workspaceId, ctx.workspace.id), eq(memberships.userId, existing.id)))
        .get();
      if (already) {
        throw new ServiceError(
          'invalid_state',
          `${existing.email} is already ${already.role === 'admin' ? 'an' : 'a'} ${already.role} in this workspace; change their role in the list instead.`,
        );
      }
    }
    const invited = inviteUser(ctx, { workspaceId: ctx.workspace.id, email: input.email, role: input.role });
    return {
      user_id: invited.userId,
      email: invited.email,
      role: invited.role,
      invite_url: invited.path && linkUrl(ctx, invited.path),
    };
  },
});

/** Gives a member another role; the last admin keeps theirs. */
export const changeMemberRole = defineOperation({
  name: 'changeMemberRole',
  role: 'admin',
  buckets: ['write'],
  input: z.object({ user_id: userId, role }),
  output: z.object({ user_id: z.string(), email: z.string(), role: z.enum(ROLES) }),
  run({ db, workspace }, input) {
    const member = memberInWorkspace(db, workspace.id, input.user_id);
    if (member.role === 'admin' && input.role !== 'admin') assertNotLastAdmin(db, workspace.id, member.id);
    db.update(memberships)
      .set({ role: input.role })
      .where(and(eq(memberships.workspaceId, workspace.id), eq(memberships.userId, member.id)))
      .run();
    return { user_id: member.id, email: member.email, role: input.role as Role };
  },
});

/**
 * Takes a person out of the workspace: their sessions in it end and their unused invite links to it
 * stop working at once. The last admin stays.
 */
export const removeMember = defineOperation({
  name: 'removeMember',
  role: 'admin',
  buckets: ['write'],
  input: z.object({ user_id: userId }),
  output: z.object({ user_id: z.string(), email: z.string(), removed: z.literal(true) }),
  run({ db, workspace, clock }, input) {
    const member = memberInWorkspace(db, workspace.id, input.user_id);
    if (member.role === 'admin') assertNotLastAdmin(db, workspace.id, member.id);
    dropFromWorkspace(db, workspace.id, member.id, clock.now());
    return { user_id: member.id, email: member.email, removed: true as const };
  },
});

/**
 * Withdraws a pending invite: the link stops working, and the person, who never set a password, is
 * no longer in the workspace. Someone who has signed in already is removed with removeMember instead.
 */
export const withdrawInvite = defineOperation({
  name: 'withdrawInvite',
  role: 'admin',
  buckets: ['write'],
  input: z.object({ user_id: userId }),
  output: z.object({ user_id: z.string(), email: z.string(), withdrawn: z.literal(true) }),
  run({ db, workspace, clock }, input) {
    const member = memberInWorkspace(db, workspace.id, input.user_id);
    if (member.hasPassword) {
      throw new ServiceError(
        'invalid_state',
        `${member.email} has already accepted the invite; remove them from the workspace instead.`,
      );
    }
    dropFromWorkspace(db, workspace.id, member.id, clock.now());
    return { user_id: member.id, email: member.email, withdrawn: true as const };
  },
});

function dropFromWorkspace(db: Db, workspaceId: string, userId: string, now: Date): void {
  db.delete(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)))
    .run();
  db.delete(sessions)
    .where(and(eq(sessions.workspaceId, workspaceId), eq(sessions.userId, userId)))
    .run();
  db.update(passwordLinks)
    .set({ usedAt: now })
    .where(
      and(eq(passwordLinks.workspaceId, workspaceId), eq(passwordLinks.userId, userId), isNull(passwordLinks.usedAt)),
    )
    .run();
}
