import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import { createHash, randomBytes } from 'node:crypto';
import { preparedStatements, writeTransaction, type Db } from '../../../db/client.ts';
import {
  invitations,
  memberships,
  passwordLinks,
  ROLES,
  sessions,
  users,
  workspaces,
  type PasswordLinkKind,
  type Role,
} from '../../../db/schema/index.ts';
import { getWorkspace } from '../accounts/workspaces.ts';
import type { Runtime } from '../context.ts';
import { fieldError, ServiceError } from '../errors.ts';
import { newId } from '../ids.ts';
import { revokeGrantsOfPerson } from '../oauth/grant-admin.ts';
import { hashPassword, passwordProblem } from './passwords.ts';

export const SETUP_LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;
export const INVITE_LINK_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

export const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex');

/**
 * One address per person, whatever its case, surrounding spaces or Unicode spelling: NFKC folds
 * compatibility forms (fullwidth letters, ligatures) into the plain ones, so two addresses that look
 * alike are one address.
 */
export const normalizeEmail = (email: string): string => email.normalize('NFKC').trim().toLowerCase();

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/**
 * Control, format (zero-width space and joiners, bidi marks, the BOM, soft hyphen), private-use and
 * unassigned characters, and the other default-ignorable ones: invisible or absent in a list, so
 * an address holding one would look like another person's.
 */
const INVISIBLE = /[\p{C}\p{Default_Ignorable_Code_Point}]/u;

export function checkedEmail(email: string): string {
  const normalized = normalizeEmail(email);
  if (INVISIBLE.test(normalized))
    throw fieldError('email', 'The email address holds an invisible or control character: type it again.');
  if (!EMAIL.test(normalized) || normalized.length > 254)
    throw fieldError('email', 'Give an email address, such as ana@example.com.');
  return normalized;
}

export function checkedRole(role: string | undefined): Role {
  if (!ROLES.includes(role as Role)) throw fieldError('role', `The role is one of ${ROLES.join(', ')}.`);
  return role as Role;
}

/** The workspaces a person belongs to, oldest membership first (read for every dashboard page's navigation). */
export async function workspacesOf(
  db: Db,
  userId: string,
): Promise<Array<{ workspaceId: string; name: string; role: Role }>> {
  return statements(db).workspacesOf.all({ userId });
}

const statements = preparedStatements((db) => ({
  workspacesOf: db
    .select({ workspaceId: memberships.workspaceId, name: workspaces.name, role: memberships.role })
    .from(memberships)
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(eq(memberships.userId, sql.placeholder('userId')))
    .orderBy(asc(memberships.createdAt), asc(memberships.workspaceId))
    .prepare(),
}));

export const findUserByEmail = async (db: Db, email: string) =>
  db
    .select()
    .from(users)
    .where(eq(users.email, normalizeEmail(email)))
    .get();

/** A fresh one-time link token and the hash that is stored instead of it. */
export function newLinkToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenHash: sha256Hex(token) };
}

/** A fresh one-time password link of `kind`; only its hash is stored. */
async function issueLink(
  db: Db,
  link: { kind: PasswordLinkKind; workspaceId: string | null; userId: string | null; now: Date; lifetimeMs: number },
): Promise<string> {
  const { token, tokenHash } = newLinkToken();
  await db
    .insert(passwordLinks)
    .values({
      tokenHash,
      kind: link.kind,
      workspaceId: link.workspaceId,
      userId: link.userId,
      createdAt: link.now,
      expiresAt: new Date(link.now.getTime() + link.lifetimeMs),
    })
    .run();
  return token;
}

const linkPath = (kind: PasswordLinkKind, token: string) => `/app/${kind}?token=${encodeURIComponent(token)}`;

/** The absolute URL a person opens, on the service's public address. */
export const linkUrl = (runtime: Runtime, path: string): string =>
  new URL(path, runtime.config.publicBaseUrl).toString();

/** Whether some workspace's invitation of this email is still waiting to be accepted. */
export async function hasLiveInvitation(db: Db, email: string, now: Date): Promise<boolean> {
  return (
    (await db
      .select({ id: invitations.id })
      .from(invitations)
      .where(
        and(
          eq(invitations.email, normalizeEmail(email)),
          isNull(invitations.acceptedAt),
          isNull(invitations.withdrawnAt),
          gt(invitations.expiresAt, now),
        ),
      )
      .get()) !== undefined
  );
}

/**
 * Gives a person a password, with what must go with it: their sessions end, every other link that
 * could set their password (reset links) stops working, and every OAuth grant they approved is
 * revoked, so whoever held the account before keeps no way in. Runs inside the caller's transaction.
 */
export async function givePassword(db: Db, userId: string, passwordHash: string, now: Date): Promise<void> {
  await db.update(users).set({ passwordHash }).where(eq(users.id, userId)).run();
  await db.delete(sessions).where(eq(sessions.userId, userId)).run();
  await db
    .update(passwordLinks)
    .set({ usedAt: now })
    .where(and(eq(passwordLinks.userId, userId), isNull(passwordLinks.usedAt)))
    .run();
  await revokeGrantsOfPerson(db, userId, now);
}

/**
 * The first start's setup link for a workspace with no people yet: it creates the first admin, a new
 * person, works once, within 24 hours. Answers the path (`/app/setup?token=…`).
 */
export async function issueSetupLink(runtime: Runtime, workspaceId: string): Promise<string> {
  const token = await issueLink(runtime.db, {
    kind: 'setup',
    workspaceId,
    userId: null,
    now: runtime.clock.now(),
    lifetimeMs: SETUP_LINK_LIFETIME_MS,
  });
  return linkPath('setup', token);
}

/**
 * The admin CLI's recovery: a new link on which the person sets a new password (7 days); earlier
 * unused links stop working. Only the operator issues it, never a workspace's admin.
 */
export async function issuePasswordReset(runtime: Runtime, email: string): Promise<{ userId: string; path: string }> {
  const { db } = runtime;
  const user = await findUserByEmail(db, email);
  if (!user) throw new ServiceError('not_found', `No person with the email ${normalizeEmail(email)}.`);
  const now = runtime.clock.now();
  return writeTransaction(db, async () => {
    await db
      .update(passwordLinks)
      .set({ usedAt: now })
      .where(and(eq(passwordLinks.userId, user.id), isNull(passwordLinks.usedAt)))
      .run();
    const token = await issueLink(db, {
      kind: 'reset',
      workspaceId: null,
      userId: user.id,
      now,
      lifetimeMs: INVITE_LINK_LIFETIME_MS,
    });
    return { userId: user.id, path: linkPath('reset', token) };
  });
}

export interface OpenLink {
  kind: PasswordLinkKind;
  /** The person's email; null for a setup link (they choose it). */
  email: string | null;
  workspaceName: string | null;
}

export const LINK_REFUSED =
  'This link is not valid: it was already used, has expired, or was replaced by a newer one. Ask for a new link.';

/** The setup link's refusal of an email that has an account or an invitation already. */
export const SETUP_EMAIL_TAKEN =
  'That email already has an account or an invitation waiting: the setup link only creates a new person. Give another email.';

/** A link that cannot be used, whatever the reason (used, expired, replaced, or never issued). */
export const linkRefused = (): ServiceError => new ServiceError('invalid_link', LINK_REFUSED);

async function liveLink(runtime: Runtime, token: string, kind: PasswordLinkKind) {
  const row = await runtime.db
    .select()
    .from(passwordLinks)
    .where(eq(passwordLinks.tokenHash, sha256Hex(token)))
    .get();
  if (!row || row.kind !== kind || row.usedAt !== null || row.expiresAt <= runtime.clock.now()) return null;
  return row;
}

/** What a link is for, to show its page; invalid_link when it cannot be used. */
export async function openLink(
  runtime: Runtime,
  token: string,
  kind: PasswordLinkKind,
): Promise<OpenLink | ServiceError> {
  const row = await liveLink(runtime, token, kind);
  if (!row) return linkRefused();
  const user = row.userId ? await runtime.db.select().from(users).where(eq(users.id, row.userId)).get() : undefined;
  const workspace = row.workspaceId ? await getWorkspace(runtime.db, row.workspaceId) : undefined;
  return { kind: row.kind, email: user?.email ?? null, workspaceName: workspace?.name ?? null };
}

/**
 * Sets the password on a link and spends it. A setup link creates the workspace's first admin, a
 * new person: an email that has an account, or an invitation waiting, is refused. A reset link sets
 * the person's new password (givePassword: sessions end, grants are revoked). Answers who they are
 * and where they land: null for a person of no workspace, who joins one by accepting an invitation.
 */
export async function usePasswordLink(
  runtime: Runtime,
  input: { token: string; kind: PasswordLinkKind; email?: string; password: string },
): Promise<{ userId: string; workspaceId: string | null } | ServiceError> {
  const email = input.kind === 'setup' ? checkedEmail(input.email ?? '') : null;
  const link = await liveLink(runtime, input.token, input.kind);
  if (!link) return linkRefused();
  // The email the password is for: the one typed on a setup link, the person's own otherwise.
  const person = link.userId ? await runtime.db.select().from(users).where(eq(users.id, link.userId)).get() : undefined;
  const problem = passwordProblem(input.password, { email: email ?? person?.email });
  if (problem) return new ServiceError('weak_password', problem);
  const { db } = runtime;
  if (
    email !== null &&
    ((await findUserByEmail(db, email)) || (await hasLiveInvitation(db, email, runtime.clock.now())))
  )
    return new ServiceError('email_taken', SETUP_EMAIL_TAKEN);
  const passwordHash = await hashPassword(input.password);
  const now = runtime.clock.now();
  return writeTransaction(db, async () => {
    // Read again after the hash: a link spent meanwhile (a double submit) works only once.
    const row = await liveLink(runtime, input.token, input.kind);
    if (!row) return linkRefused();
    if (row.kind === 'setup') {
      if ((await findUserByEmail(db, email!)) || (await hasLiveInvitation(db, email!, now)))
        return new ServiceError('email_taken', SETUP_EMAIL_TAKEN);
      const workspaceId = row.workspaceId!;
      const user = { id: newId(), email: email!, passwordHash, createdAt: now, lastWorkspaceId: null };
      await db.insert(users).values(user).run();
      await db.insert(memberships).values({ workspaceId, userId: user.id, role: 'admin', createdAt: now }).run();
      // The setup link is for one first admin: every setup link of the workspace stops working.
      await db
        .update(passwordLinks)
        .set({ usedAt: now })
        .where(
          and(
            eq(passwordLinks.workspaceId, workspaceId),
            eq(passwordLinks.kind, 'setup'),
            isNull(passwordLinks.usedAt),
          ),
        )
        .run();
      return { userId: user.id, workspaceId };
    }
    const userId = row.userId!;
    await givePassword(db, userId, passwordHash, now);
    // A person of no workspace (yet) has a password now, and joins by accepting an invitation.
    return { userId, workspaceId: (await workspacesOf(db, userId))[0]?.workspaceId ?? null };
  });
}
