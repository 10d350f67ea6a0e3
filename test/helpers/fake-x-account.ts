import type { FakeX } from '../../fakes/x.ts';
import type { Workspace } from '../../src/core/accounts/workspaces.ts';
import type { Runtime } from '../../src/core/context.ts';
import { connectLiveAccount } from './publishing.ts';

/** A live X account of the fake X's first user, connected to `workspace` as the OAuth callback leaves it. */
export async function connectFakeXAccount(runtime: Runtime, workspace: Workspace, x: FakeX) {
  const author = x.users[0]!;
  const issued = x.issueTokens(author.id);
  return connectLiveAccount(
    runtime,
    workspace,
    'twitter',
    {
      accessToken: issued.accessToken,
      refreshToken: issued.refreshToken,
      expiresAt: new Date(runtime.clock.now().getTime() + issued.expiresIn * 1000),
      scopes: issued.scopes,
    },
    { platformUserId: author.id, username: author.username },
  );
}
