import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { socialAccounts } from '../../../db/schema/index.ts';
import { notFound } from '../errors.ts';
import { defineOperation } from '../operation.ts';
import { disconnectSocialAccount } from './operations.ts';
import type { SocialAccountResource } from './serialize.ts';

/**
 * The dashboard's "Disconnect": the account of this workspace (another workspace's is not found)
 * becomes `disconnected`, kept in the list so a reconnect reuses it. An admin's, like connecting.
 */
export const disconnectAccount = defineOperation({
  name: 'disconnectAccount',
  role: 'admin',
  buckets: ['write'],
  scope: 'write',
  input: z.object({ id: z.string().min(1).max(64) }),
  output: z.custom<SocialAccountResource>(),
  async run(ctx, input): Promise<SocialAccountResource> {
    const row = await ctx.db
      .select({ id: socialAccounts.id })
      .from(socialAccounts)
      .where(and(eq(socialAccounts.workspaceId, ctx.workspace.id), eq(socialAccounts.id, input.id)))
      .get();
    if (!row) throw notFound('social account');
    return disconnectSocialAccount(ctx, row.id);
  },
});
