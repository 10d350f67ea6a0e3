import { Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import { listPersonGrants, revokePersonGrant } from '../../core/oauth/person-grants.ts';
import type { PageKit } from './kit.ts';

const SCOPE_LABELS = { read: 'read', write: 'write', publish: 'publish' } as const;

/**
 * /app/security: the signed-in person's own sign-in matters, whatever their role. It lists the
 * assistants they approved by signing in on the consent page (every workspace), each with a button
 * that ends its access; core checks the grant is theirs.
 */
export function securityPages(runtime: Runtime, kit: PageKit): Router {
  const router = Router();

  router.get('/security', async (req, res) => {
    const who = kit.signedIn(req, res);
    if (!who) return;
    const grants = (await listPersonGrants(runtime, who.user.id)).map((grant) => ({
      id: grant.id,
      client: grant.clientName ?? `Unnamed assistant (${grant.clientId})`,
      scopes: grant.scopes.map((scope) => SCOPE_LABELS[scope]).join(', '),
      workspace: grant.workspaceName,
      approved: kit.fmt(who, grant.approvedAt),
      lastUsed: kit.fmt(who, grant.lastUsedAt),
    }));
    await kit.page(
      res,
      'Security',
      'pages/security',
      {
        grants,
        notice: req.query.done === 'revoked' ? 'Access revoked: that assistant can no longer act for you.' : undefined,
      },
      'security',
    );
  });

  router.post(
    '/security/grants/:id/revoke',
    kit.act(async (who, req) => {
      await revokePersonGrant(runtime, who.user.id, String(req.params.id));
      return '/app/security?done=revoked';
    }),
  );
  return router;
}
