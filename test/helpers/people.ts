import type { Role } from '../../db/schema/index.ts';
import type { Runtime } from '../../src/core/context.ts';
import { acceptInvitation, invitePerson } from '../../src/core/people/invitations.ts';

export const TEST_PASSWORD = 'a long test password';

let counter = 0;

/** The token of a link path such as `/app/invite?token=…`. */
export const tokenOf = (path: string) => new URL(path, 'http://x').searchParams.get('token')!;

/**
 * A person with a password in a workspace, as an admin's invitation makes them: invited, then
 * accepted on the link (a new person chooses TEST_PASSWORD there; one with an account gives it).
 */
export async function makePerson(
  runtime: Runtime,
  workspaceId: string,
  role: Role,
  email = `person${++counter}-${role}@example.com`,
): Promise<{ userId: string; email: string; password: string }> {
  const invited = await invitePerson(runtime, { workspaceId, email, role, invitedBy: null });
  const accepted = await acceptInvitation(runtime, {
    token: tokenOf(invited.path),
    password: TEST_PASSWORD,
    address: 'test-helper',
  });
  if (accepted instanceof Error) throw accepted;
  return { userId: accepted.userId, email: invited.email, password: TEST_PASSWORD };
}
