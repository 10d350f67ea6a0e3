import { Router } from 'express';
import { updateAccount } from '../../core/accounts/get-account.ts';
import type { Runtime } from '../../core/context.ts';
import { noticeOf } from '../format.ts';
import type { PageKit } from './kit.ts';

/** /app/settings: the workspace's time zone, approval rule and default language (admins). */
export function settingsPage(_runtime: Runtime, kit: PageKit): Router {
  const router = Router();
  const zones = Intl.supportedValuesOf('timeZone');
  router.get('/settings', async (req, res) => {
    const who = kit.signedIn(req, res);
    if (!who) return;
    if (who.principal.role !== 'admin') {
      res.status(403);
      return kit.page(res, 'Settings are for admins', 'message', {
        message: 'Ask an admin of this workspace to change its settings.',
      });
    }
    await kit.page(
      res,
      'Settings',
      'settings',
      {
        timezone: who.workspace.timezone,
        approverMustDiffer: who.workspace.approverMustDiffer,
        defaultLanguage: who.workspace.defaultLanguage,
        zones,
        notice: noticeOf(req.query.done),
      },
      'settings',
    );
  });
  router.post(
    '/settings',
    kit.act(async (who, req) => {
      await kit.run(who, updateAccount, {
        timezone: String(req.body.timezone ?? '').trim(),
        approver_must_differ: req.body.approver_must_differ === 'on',
        default_language: String(req.body.default_language ?? '').trim() || null,
      });
      return '/app/settings?done=saved';
    }),
  );
  return router;
}
