import { Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import { workspaceAtAGlance, type WorkspaceGlance } from '../../core/accounts/at-a-glance.ts';
import { getAccount } from '../../core/accounts/get-account.ts';
import type { AccountResource } from '../../core/accounts/schemas.ts';
import type { z } from 'zod';
import { formatBytes } from '../../core/media/quota.ts';
import { PLATFORM_NAMES, isPlatform } from '../../core/platforms/registry.ts';
import type { PageKit } from './kit.ts';

/**
 * /app: what waits, what is next, what failed, what is disconnected, and usage against the plan. It
 * reads through operations only (the kit runs them), never the database: the runtime goes unused.
 */
export function homePage(_runtime: Runtime, kit: PageKit): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    const who = kit.signedIn(req, res);
    if (!who) return;
    const [glance, account] = await Promise.all([
      kit.run<WorkspaceGlance>(who, workspaceAtAGlance, {}),
      kit.run<z.output<typeof AccountResource>>(who, getAccount, {}),
    ]);
    const admin = who.principal.role === 'admin';
    const counts = [
      { n: glance.awaitingApproval, label: 'Awaiting approval', href: '/app/inbox' },
      {
        n: glance.scheduledNext7Days,
        label: 'Scheduled (next 7 days)',
        href: `/app/content?${new URLSearchParams({
          status: 'scheduled',
          scheduled_from: glance.scheduledFrom.toISOString(),
          scheduled_to: glance.scheduledTo.toISOString(),
        })}`,
      },
      {
        n: glance.failedLast24Hours,
        label: 'Failed (last 24 hours)',
        href: `/app/content?failed_since=${encodeURIComponent(glance.failedSince.toISOString())}`,
      },
      { n: glance.accountsToReconnect, label: 'Accounts to reconnect', href: admin ? '/app/accounts' : null },
      { n: glance.disabledWebhooks, label: 'Disabled webhooks', href: admin ? '/app/webhooks' : null },
    ];
    const day = (iso: string) => kit.fmt(who, new Date(iso));
    await kit.page(
      res,
      `${who.workspace.name}: home`,
      'pages/home',
      {
        counts,
        next: glance.nextScheduled.map((row) => ({
          id: row.id,
          iso: row.scheduledFor!.toISOString(),
          when: kit.fmt(who, row.scheduledFor),
          title: [...row.caption.split('\n')[0]!].slice(0, 60).join('') || '(no caption)',
          platforms: row.targetPlatforms.map((p) => (isPlatform(p) ? PLATFORM_NAMES[p] : p)).join(', '),
        })),
        plan: account.plan,
        usage: [
          { label: 'Posts published', used: account.usage.posts_published, limit: account.features.posts_per_month },
          {
            label: 'Active accounts',
            used: glance.activeAccounts,
            limit: account.features.platforms_limit,
          },
          { label: 'AI credits', used: account.usage.ai_credits_used, limit: account.features.monthly_ai_credits },
          {
            label: 'Media storage (now)',
            used: formatBytes(account.usage.storage_used_bytes),
            limit: formatBytes(account.usage.storage_limit_bytes),
            href: '/app/media',
          },
        ],
        period: `${day(account.usage.period_start)} to ${day(account.usage.period_end)}`,
        timezone: who.workspace.timezone,
      },
      'home',
    );
  });
  return router;
}
