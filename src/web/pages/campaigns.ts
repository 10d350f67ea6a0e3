import { Router } from 'express';
import type { z } from 'zod';
import type { Runtime } from '../../core/context.ts';
import { getAccount } from '../../core/accounts/get-account.ts';
import type { AccountResource } from '../../core/accounts/schemas.ts';
import { getCampaign, launchCampaign } from '../../core/campaigns/operations.ts';
import { listCampaignsWithActions } from '../../core/campaigns/views.ts';
import type { CampaignResource } from '../../core/campaigns/serialize.ts';
import type { ListEnvelope } from '../../core/pagination.ts';
import { allows, type Verdict } from '../../core/policy.ts';
import { foundOr404, type PageKit } from './kit.ts';

const CAMPAIGNS_PER_PAGE = 50;
const CAMPAIGN_STATUS_LABELS: Record<CampaignResource['status'], string> = {
  draft: 'Draft',
  active: 'Active',
  paused: 'Paused',
  completed: 'Completed',
  archived: 'Archived',
};

/** /app/campaigns: generation progress, the drafts in the inbox, and launching (approvers) after seeing its cost. */
export function campaignPages(_runtime: Runtime, kit: PageKit): Router {
  const router = Router();

  router.get('/campaigns', async (req, res) => {
    const who = kit.signedIn(req, res);
    if (!who) return;
    const cursor = typeof req.query.cursor === 'string' && req.query.cursor !== '' ? req.query.cursor : undefined;
    const list = await kit.run<ListEnvelope<CampaignResource & { allowed_actions: Verdict[] }>>(
      who,
      listCampaignsWithActions,
      {
        limit: CAMPAIGNS_PER_PAGE,
        cursor,
      },
    );
    await kit.page(
      res,
      'Campaigns',
      'pages/campaigns',
      {
        campaigns: list.data.map((c) => ({
          id: c.id,
          name: c.name,
          statusLabel: CAMPAIGN_STATUS_LABELS[c.status],
          generated: c.generated_posts,
          total: c.total_posts,
          // Launch shows exactly when launching would be accepted (the campaign policy).
          launchable: allows(c.allowed_actions, 'launch'),
        })),
        // Forward paging by cursor, as on the inbox and the content list; the first page is a link away.
        next: list.next_cursor ? `/app/campaigns?${new URLSearchParams({ cursor: list.next_cursor })}` : null,
        first: cursor ? '/app/campaigns' : null,
        notice: req.query.done === 'launched' ? 'Campaign launched: its posts are being generated.' : undefined,
      },
      'campaigns',
    );
  });

  router.get('/campaigns/:id/launch', async (req, res) => {
    const who = kit.signedIn(req, res);
    if (!who) return;
    const campaign = await foundOr404(
      kit,
      res,
      () => kit.run<CampaignResource>(who, getCampaign, { id: req.params.id }),
      {
        message: 'There is no such campaign in this workspace.',
        back: { href: '/app/campaigns', text: 'Back to campaigns' },
      },
    );
    if (!campaign) return;
    const account = await kit.run<z.output<typeof AccountResource>>(who, getAccount, {});
    const { features, usage } = account;
    const creditsLeft = features.monthly_ai_credits - usage.ai_credits_used;
    const postsLeft = features.posts_per_month - usage.posts_published;
    const warning =
      creditsLeft < campaign.total_posts
        ? `Only ${Math.max(creditsLeft, 0)} AI credits are left this month: generation stops when they run out.`
        : postsLeft < campaign.total_posts
          ? `Only ${Math.max(postsLeft, 0)} posts are left this month: publishing stops at the plan's limit.`
          : null;
    await kit.page(res, `Launch “${campaign.name}”?`, 'pages/launch', {
      id: campaign.id,
      name: campaign.name,
      total: campaign.total_posts,
      perDay: campaign.posts_per_day,
      days: campaign.campaign_length_days,
      postsUsed: usage.posts_published,
      postsLimit: features.posts_per_month,
      creditsUsed: usage.ai_credits_used,
      creditsLimit: features.monthly_ai_credits,
      warning,
    });
  });
  router.post(
    '/campaigns/:id/launch',
    kit.act(async (who, req) => {
      await kit.run(who, launchCampaign, { id: req.params.id });
      return '/app/campaigns?done=launched';
    }),
  );
  return router;
}
