import { and, count, eq, isNotNull, ne, sql } from 'drizzle-orm';
import { preparedStatements, type Db } from '../../../db/client.ts';
import { ServiceError } from '../errors.ts';
import { memberships, users, type Role } from '../../../db/schema/index.ts';

/**
 * A person's place in a workspace. Apart from users.ts, which creates workspaces' people and reads
 * workspaces, so that API-key and token authentication can ask it without an import circle.
 */
export interface Member {
  user: { id: string; email: string };
  role: Role;
}

/** A person's membership of a workspace, or undefined: another workspace's people are not found. */
export async function membershipOf(db: Db, workspaceId: string, userId: string): Promise<Member | undefined> {
  const row = await statements(db).membership.get({ workspaceId, userId });
  return row && { user: { id: row.id, email: row.email }, role: row.role };
}

// Prepared: every dashboard request asks it, through its session.
const statements = preparedStatements((db) => ({
  membership: db
    .select({ id: users.id, email: users.email, role: memberships.role })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(
      and(
        eq(memberships.workspaceId, sql.placeholder('workspaceId')),
        eq(memberships.userId, sql.placeholder('userId')),
      ),
    )
    .prepare(),
}));

export const LAST_ADMIN_REFUSAL =
  'This is the last admin of the workspace, who cannot be removed or given another role: make someone else admin first.';

/**
 * Refuses a change that would leave the workspace without an admin who can sign in: `userId` is
 * about to stop being one. Admins still waiting to set their password do not count.
 */
export async function assertNotLastAdmin(db: Db, workspaceId: string, userId: string): Promise<void> {
  const others = (await db
    .select({ n: count() })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(
      and(
        eq(memberships.workspaceId, workspaceId),
        eq(memberships.role, 'admin'),
        ne(memberships.userId, userId),
        isNotNull(users.passwordHash),
      ),
    )
    .get())!.n;
  if (others === 0) throw new ServiceError('invalid_state', LAST_ADMIN_REFUSAL);
}
