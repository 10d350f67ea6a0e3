import { and, asc, eq, isNull } from 'drizzle-orm';
import { createHash, randomBytes } from 'node:crypto';
import { writeTransaction, type Db } from '../../../db/client.ts';
import {
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
import { hashPassword, passwordProblem } from './passwords.ts';
import { assertNotLastAdmin, membershipOf } from './memberships.ts';

export const SETUP_LINK_LIFETIME_MS = 24 * 60 * 60 * 1000;
export const INVITE_LINK_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

export const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex');

/** One address per person, whatever its case or surrounding spaces. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function checkedEmail(email: string): string {
  const normalized = normalizeEmail(email);
  if (!EMAIL.test(normalized) || normalized.length > 254)
    throw fieldError('email', 'Give an email address, such as ana@example.com.');
  return normalized;
}

export function checkedRole(role: string | undefined): Role {
  if (!ROLES.includes(role as Role)) throw fieldError('role', `The role is one of ${ROLES.join(', ')}.`);
  return role as Role;
}

/** The workspaces a person belongs to, oldest membership first (the first is where they land). */
export function workspacesOf(db: Db, userId: string): Array<{ workspaceId: string; name: string; role: Role }> {
  return db
    .select({ workspaceId: memberships.workspaceId, name: workspaces.name, role: memberships.role })
    .from(memberships)
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt), asc(memberships.workspaceId))
    .all();
}

export const findUserByEmail = (db: Db, email: string) =>
  db
    .select()
    .from(users)
    .where(eq(users.email, normalizeEmail(email)))
    .get();

/** A fresh one-time link token of `kind`; only its hash is stored. */
function issueLink(
  db: Db,
  link: { kind: PasswordLinkKind; workspaceId: string | null; userId: string | null; now: Date; lifetimeMs: number },
): string {
  const token = randomBytes(32).toString('base64url');
  db.insert(passwordLinks)
    .values({
      tokenHash: sha256Hex(token),
      kind: link.kind,
      workspaceId: link.workspaceId,
      userId: link.userId,
      createdAt: link.now,
      expiresAt: new Date(link.now.getTime() + link.lifetimeMs),
    })
    .run();
  return token;
}

const linkPath = (kind: PasswordLinkKind, token: string) =>
  `/app/${kind === 'setup' ? 'setup' : 'invite'}?token=${encodeURIComponent(token)}`;

/** The absolute URL a person opens, on the service's public address. */
export const linkUrl = (runtime: Runtime, path: string): string =>
  new URL(path, runtime.config.publicBaseUrl).toString();

/**
 * The first start's setup link for a workspace with no people yet: it creates the first admin, works
 * once, within 24 hours. Answers the path (`/app/setup?token=…`).
 */
export function issueSetupLink(runtime: Runtime, workspaceId: string): string {
  const token = issueLink(runtime.db, {
    kind: 'setup',
    workspaceId,
    userId: null,
    now: runtime.clock.now(),
    lifetimeMs: SETUP_LINK_LIFETIME_MS,
  });
  return linkPath('setup', token);
}

/**
 * Adds a person to a workspace with a role (creating them if new) and answers an invite link on
 * which they set their password, valid 7 days. A person already in the workspace has their role changed.
 */
export function inviteUser(
  runtime: Runtime,
  input: { workspaceId: string; email: string; role: string },
): { userId: string; email: string; role: Role; path: string | null } {
  const email = checkedEmail(input.email);
  const role = checkedRole(input.role);
  getWorkspace(runtime.db, input.workspaceId);
  const now = runtime.clock.now();
  const { db } = runtime;
  return writeTransaction(db, () => {
    let user = findUserByEmail(db, email);
    if (!user) {
      user = { id: newId(), email, passwordHash: null, createdAt: now };
      db.insert(users).values(user).run();
    }
    if (role !== 'admin' && membershipOf(db, input.workspaceId, user.id)?.role === 'admin') {
      assertNotLastAdmin(db, input.workspaceId, user.id);
    }
    db.insert(memberships)
      .values({ workspaceId: input.workspaceId, userId: user.id, role, createdAt: now })
      .onConflictDoUpdate({ target: [memberships.workspaceId, memberships.userId], set: { role } })
      .run();
    // Someone who already has a password signs in with it; a link is for setting one.
    const path =
      user.passwordHash === null
        ? linkPath(
            'invite',
            issueLink(db, {
              kind: 'invite',
              workspaceId: input.workspaceId,
              userId: user.id,
              now,
              lifetimeMs: INVITE_LINK_LIFETIME_MS,
            }),
          )
        : null;
    return { userId: user.id, email, role, path };
  });
}

/** A new link on which the person sets a new password (7 days); earlier unused links stop working. */
export function issuePasswordReset(runtime: Runtime, email: string): { userId: string; path: string } {
  const { db } = runtime;
  const user = findUserByEmail(db, email);
  if (!user) throw new ServiceError('not_found', `No person with the email ${normalizeEmail(email)}.`);
  const now = runtime.clock.now();
  return writeTransaction(db, () => {
    db.update(passwordLinks)
      .set({ usedAt: now })
      .where(and(eq(passwordLinks.userId, user.id), isNull(passwordLinks.usedAt)))
      .run();
    const token = issueLink(db, {
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

const LINK_REFUSED =
  'This link is not valid: it was already used, has expired, or was replaced by a newer one. Ask an admin for a new link.';

function liveLink(runtime: Runtime, token: string, kind: 'setup' | 'invite') {
  const row = runtime.db
    .select()
    .from(passwordLinks)
    .where(eq(passwordLinks.tokenHash, sha256Hex(token)))
    .get();
  const kindMatches = row && (kind === 'setup' ? row.kind === 'setup' : row.kind !== 'setup');
  if (!row || !kindMatches || row.usedAt !== null || row.expiresAt <= runtime.clock.now()) return null;
  return row;
}

/** What a link is for, to show its page; `refused` when it cannot be used. */
export function openLink(runtime: Runtime, token: string, kind: 'setup' | 'invite'): OpenLink | { refused: string } {
  const row = liveLink(runtime, token, kind);
  if (!row) return { refused: LINK_REFUSED };
  const user = row.userId ? runtime.db.select().from(users).where(eq(users.id, row.userId)).get() : undefined;
  const workspace = row.workspaceId ? getWorkspace(runtime.db, row.workspaceId) : undefined;
  return { kind: row.kind, email: user?.email ?? null, workspaceName: workspace?.name ?? null };
}

/**
 * Sets the password on a link and spends it. A setup link creates the workspace's first admin with
 * the email given; an invite or reset link sets the invited person's password. Setting a password
 * ends every session the person had. Answers who they are and where they land.
 */
export async function usePasswordLink(
  runtime: Runtime,
  input: { token: string; kind: 'setup' | 'invite'; email?: string; password: string },
): Promise<{ userId: string; workspaceId: string } | { refused: string }> {
  const email = input.kind === 'setup' ? checkedEmail(input.email ?? '') : null;
  const link = liveLink(runtime, input.token, input.kind);
  if (!link) return { refused: LINK_REFUSED };
  // The email the password is for: the one typed on a setup link, the invited person's otherwise.
  const invited = link.userId ? runtime.db.select().from(users).where(eq(users.id, link.userId)).get() : undefined;
  const problem = passwordProblem(input.password, { email: email ?? invited?.email });
  if (problem) return { refused: problem };
  const passwordHash = await hashPassword(input.password);
  const { db } = runtime;
  const now = runtime.clock.now();
  return writeTransaction(db, () => {
    // Read again after the hash: a link spent meanwhile (a double submit) works only once.
    const row = liveLink(runtime, input.token, input.kind);
    if (!row) return { refused: LINK_REFUSED };
    db.update(passwordLinks).set({ usedAt: now }).where(eq(passwordLinks.tokenHash, row.tokenHash)).run();
    if (row.kind === 'setup') {
      const workspaceId = row.workspaceId!;
      let user = findUserByEmail(db, email!);
      if (user) {
        db.update(users).set({ passwordHash }).where(eq(users.id, user.id)).run();
      } else {
        user = { id: newId(), email: email!, passwordHash, createdAt: now };
        db.insert(users).values(user).run();
      }
      db.insert(memberships)
        .values({ workspaceId, userId: user.id, role: 'admin', createdAt: now })
        .onConflictDoUpdate({ target: [memberships.workspaceId, memberships.userId], set: { role: 'admin' } })
        .run();
      // The setup link is for one first admin: any other setup link of the workspace stops working too.
      db.update(passwordLinks)
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
    db.update(users).set({ passwordHash }).where(eq(users.id, userId)).run();
    db.delete(sessions).where(eq(sessions.userId, userId)).run();
    const first = workspacesOf(db, userId)[0];
    if (!first) return { refused: 'You are not a member of any workspace any more; ask an admin to invite you again.' };
    return { userId, workspaceId: row.workspaceId ?? first.workspaceId };
  });
}
