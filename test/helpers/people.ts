import type { Role } from '../../db/schema/index.ts';
import type { Runtime } from '../../src/core/context.ts';
import { inviteUser, usePasswordLink } from '../../src/core/people/users.ts';

export const TEST_PASSWORD = 'a long test password';

let counter = 0;

/** A person with a password in a workspace, through the invite link as an admin's invite makes them. */
export async function makePerson(
  runtime: Runtime,
  workspaceId: string,
  role: Role,
  email = `person${++counter}-${role}@example.com`,
): Promise<{ userId: string; email: string; password: string }> {
  const invited = inviteUser(runtime, { workspaceId, email, role });
  const token = new URL(invited.path!, 'http://x').searchParams.get('token')!;
  const used = await usePasswordLink(runtime, { token, kind: 'invite', password: TEST_PASSWORD });
  if ('refused' in used) throw new Error(used.refused);
  return { userId: invited.userId, email: invited.email, password: TEST_PASSWORD };
}
