import { and, eq } from 'drizzle-orm';
import type { Db } from '../../../db/client.ts';
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
export function membershipOf(db: Db, workspaceId: string, userId: string): Member | undefined {
  const row = db
    .select({ id: users.id, email: users.email, role: memberships.role })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)))
    .get();
  return row && { user: { id: row.id, email: row.email }, role: row.role };
}
