import type { Db } from '../../../db/client.ts';
import { aiCreditsUsedIn, usagePeriod } from '../accounts/usage.ts';
import { accessRefusal, verdict, type PolicySubject, type Verdict } from '../policy.ts';
import type { CampaignRow } from './serialize.ts';

/** What people and assistants do with a campaign (the dashboard's Launch, POST /campaigns/{id}/launch). */
export const CAMPAIGN_ACTIONS = ['launch'] as const;
export type CampaignAction = (typeof CAMPAIGN_ACTIONS)[number];

/** What launching needs of a credential: `publish`, so a person an approver's role (launchCampaign declares it from here). */
export const LAUNCH_ACCESS = { scope: 'publish' } as const;

/** What the policy needs beyond the row: the AI credits the workspace has spent this month. */
export interface CampaignFacts {
  aiCreditsUsed: number;
}

export const campaignFacts = async (db: Db, subject: PolicySubject): Promise<CampaignFacts> => ({
  aiCreditsUsed: await aiCreditsUsedIn(db, subject.workspace.id, usagePeriod(subject.now)),
});

/**
 * Launching: the plan, the publish scope and an approver's role (launching leads to posts going
 * out), a draft or paused campaign, and an AI credit left this month (each generated post takes one).
 */
export function judgeCampaignAction(
  subject: PolicySubject,
  row: Pick<CampaignRow, 'status'>,
  facts: CampaignFacts,
  action: CampaignAction,
): Verdict<CampaignAction> {
  const credits = subject.workspace.features.monthly_ai_credits;
  return verdict(
    action,
    () => accessRefusal(subject, LAUNCH_ACCESS),
    () =>
      row.status === 'draft' || row.status === 'paused'
        ? null
        : {
            code: 'invalid_state',
            reason: `The campaign is ${row.status}; only a draft or paused campaign can be launched. A PATCH of status sets any status without this check.`,
          },
    () =>
      facts.aiCreditsUsed < credits
        ? null
        : {
            code: 'quota_exceeded',
            reason: `The plan's ${credits} AI credits for this month are used up, and each generated post takes one; GET /api/v1/me shows usage.`,
          },
  );
}

/** Every action's verdict for the campaign, in CAMPAIGN_ACTIONS order: what reads give back as `allowed_actions`. */
export const campaignPolicy = (
  subject: PolicySubject,
  row: Pick<CampaignRow, 'status'>,
  facts: CampaignFacts,
): Verdict<CampaignAction>[] => CAMPAIGN_ACTIONS.map((action) => judgeCampaignAction(subject, row, facts, action));
