import type { Db } from '../../../db/client.ts';
import { aiCreditsUsedIn, usagePeriod } from '../accounts/usage.ts';
import { defineOperation } from '../operation.ts';
import { listEnvelope } from '../pagination.ts';
import {
  accessRefusal,
  allowedActionsSchema,
  subjectOf,
  verdict,
  type PolicySubject,
  type Verdict,
} from '../policy.ts';
import { launchCampaign, listCampaigns } from './operations.ts';
import { CampaignResource as CampaignResourceSchema, ListCampaignsInput } from './schemas.ts';
import type { CampaignRow } from './serialize.ts';

/** What people and assistants do with a campaign (the dashboard's Launch, POST /campaigns/{id}/launch). */
export const CAMPAIGN_ACTIONS = ['launch'] as const;
export type CampaignAction = (typeof CAMPAIGN_ACTIONS)[number];

/** What the policy needs beyond the row: the AI credits the workspace has spent this month. */
export interface CampaignFacts {
  aiCreditsUsed: number;
}

export const campaignFacts = (db: Db, subject: PolicySubject): CampaignFacts => ({
  aiCreditsUsed: aiCreditsUsedIn(db, subject.workspace.id, usagePeriod(subject.now)),
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
    () => accessRefusal(subject, launchCampaign),
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

/**
 * The campaigns list with each campaign's `allowed_actions`: what the dashboard renders its buttons
 * from. No REST route or tool serves it (the contract's list has no such field).
 */
export const listCampaignsWithActions = defineOperation({
  name: 'listCampaignsWithActions',
  buckets: ['read'],
  scope: 'read',
  input: ListCampaignsInput,
  output: listEnvelope(CampaignResourceSchema.extend({ allowed_actions: allowedActionsSchema(CAMPAIGN_ACTIONS) })),
  run(ctx, input) {
    const page = listCampaigns.run(ctx, input);
    const subject = subjectOf(ctx);
    const facts = campaignFacts(ctx.db, subject);
    return { ...page, data: page.data.map((c) => ({ ...c, allowed_actions: campaignPolicy(subject, c, facts) })) };
  },
});
