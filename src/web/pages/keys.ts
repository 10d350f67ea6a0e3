import { Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import { createKey, listKeys, revokeKey, type KeySummary } from '../../core/accounts/key-admin.ts';
import { ServiceError } from '../../core/errors.ts';
import { adminOf, field, flash, foundOr404, takeFlash, type PageKit } from './kit.ts';

/** /app/keys: the workspace's API keys, a new key shown once, and revoking with a confirmation. */
export function keyPages(runtime: Runtime, kit: PageKit): Router {
  const router = Router();

  router.get('/keys', async (req, res) => {
    const who = await adminOf(kit, req, res, 'API keys');
    if (!who) return;
    const keys = await kit.run<KeySummary[]>(who, listKeys, {});
    const fresh = takeFlash(runtime, req, res, who, 'key');
    const created = fresh ? (JSON.parse(fresh) as { name: string; key: string }) : null;
    const now = runtime.clock.now();
    await kit.page(
      res,
      'API keys',
      'pages/keys',
      {
        created,
        keys: keys.map((key) => ({
          id: key.id,
          name: key.name,
          masked: key.masked,
          created: kit.fmt(who, key.created_at),
          lastUsed: kit.fmt(who, key.last_used_at),
          expires: kit.fmt(who, key.expires_at),
          status: key.revoked_at ? 'Revoked' : key.expires_at && key.expires_at <= now ? 'Expired' : 'Active',
          revocable: !key.revoked_at,
        })),
        notice:
          req.query.done === 'revoked' ? 'Key revoked: it no longer works.' : created ? 'Key created.' : undefined,
      },
      'keys',
    );
  });

  router.post('/keys', (req, res, next) =>
    kit.act(async (who) => {
      const expiresOn = field(req.body, 'expires_on');
      if (expiresOn !== '' && !/^\d{4}-\d{2}-\d{2}$/.test(expiresOn)) {
        throw new ServiceError('invalid_body', 'Give the expiry as a date, such as 2027-01-31.');
      }
      const made = await kit.run<{ name: string; api_key: string }>(who, createKey, {
        name: field(req.body, 'name'),
        // The end of the day chosen, in UTC.
        ...(expiresOn !== '' && { expires_at: `${expiresOn}T23:59:59Z` }),
      });
      flash(runtime, res, who, 'key', JSON.stringify({ name: made.name, key: made.api_key }));
      return '/app/keys';
    })(req, res, next),
  );

  router.get('/keys/:id/revoke', async (req, res) => {
    const who = await adminOf(kit, req, res, 'API keys');
    if (!who) return;
    const key = await foundOr404(
      kit,
      res,
      async () => (await kit.run<KeySummary[]>(who, listKeys, {})).find((k) => k.id === req.params.id && !k.revoked_at),
      {
        message: 'There is no such key in this workspace, or it is revoked already.',
        back: { href: '/app/keys', text: 'Back to API keys' },
      },
    );
    if (!key) return;
    await kit.page(res, 'Revoke this key?', 'pages/confirm', {
      question: `Revoke “${key.name}” (${key.masked})?`,
      detail: 'Every request made with it is refused from now on. This cannot be undone.',
      action: `/app/keys/${key.id}/revoke`,
      button: 'Revoke',
      back: '/app/keys',
    });
  });
  router.post(
    '/keys/:id/revoke',
    kit.act(async (who, req) => {
      await kit.run(who, revokeKey, { id: req.params.id });
      return '/app/keys?done=revoked';
    }),
  );
  return router;
}
