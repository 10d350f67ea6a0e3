import { and, eq } from 'drizzle-orm';
import { writeTransaction, type Db } from '../../../db/client.ts';
import { sessions, users } from '../../../db/schema/index.ts';
import type { Runtime } from '../context.ts';
import { ServiceError } from '../errors.ts';
import { sha256Hex, workspacesOf } from './users.ts';

/*
 * Which workspace a signed-in person's pages show. A person of one workspace lands in it. A person of
 * several lands in the one they last chose (at sign-in, from the header, or by accepting an
 * invitation); with no such choice yet, sign-in asks. A session shows one workspace at a time.
 */

/** Where a sign-in lands, and whether the person should be asked to choose; null for no membership. */
export async function landingOf(db: Db, userId: string): Promise<{ workspaceId: string; choose: boolean } | null> {
  const all = await workspacesOf(db, userId);
  const first = all[0];
  if (!first) return null;
  if (all.length === 1) return { workspaceId: first.workspaceId, choose: false };
  const last = (await db.select({ id: users.lastWorkspaceId }).from(users).where(eq(users.id, userId)).get())?.id;
  const remembered = all.find((w) => w.workspaceId === last);
  return remembered
    ? { workspaceId: remembered.workspaceId, choose: false }
    : { workspaceId: first.workspaceId, choose: true };
}

/**
 * Moves a session to another of the person's workspaces and remembers it as their choice. A
 * workspace they are not a member of is not found, and the session stays where it was.
 */
export async function chooseWorkspace(
  runtime: Runtime,
  sessionToken: string,
  userId: string,
  workspaceId: string,
): Promise<void> {
  const { db } = runtime;
  if (!(await workspacesOf(db, userId)).some((w) => w.workspaceId === workspaceId)) {
    throw new ServiceError('not_found', 'You are not a member of that workspace.');
  }
  await writeTransaction(db, async () => {
    await db
      .update(sessions)
      .set({ workspaceId })
      .where(and(eq(sessions.tokenHash, sha256Hex(sessionToken)), eq(sessions.userId, userId)))
      .run();
    await db.update(users).set({ lastWorkspaceId: workspaceId }).where(eq(users.id, userId)).run();
  });
}
