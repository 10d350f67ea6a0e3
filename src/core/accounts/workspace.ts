/**
 * A workspace as the core passes it around (the request context carries one), read from its row and
 * its plan's. It imports nothing of the core, so the context, API keys and OAuth grants can all use
 * it without an import circle.
 */
import type { PlanName } from '../../../db/plans.ts';
import type { plans, workspaces } from '../../../db/schema/index.ts';

export const PLAN_STATUSES = ['active', 'trialing', 'past_due', 'canceled'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

export interface PlanFeatures {
  posts_per_month: number;
  platforms_limit: number;
  api_access: boolean;
  monthly_ai_credits: number;
  analytics_history_days: number;
}

export interface Workspace {
  id: string;
  orgId: string;
  name: string;
  plan: PlanName;
  planStatus: PlanStatus;
  features: PlanFeatures;
  /** The plan's media storage quota, in bytes (the sum of the library's files may not pass it). */
  storageLimitBytes: number;
  createdAt: Date;
  /** IANA time zone for people's pages (calendar days, local times); UTC unless set. */
  timezone: string;
  /** When true, a person cannot approve an item they created. */
  approverMustDiffer: boolean;
  /** The BCP 47 tag posts are written in unless an item says otherwise; null when not set. */
  defaultLanguage: string | null;
}

export const isActiveStatus = (status: PlanStatus): boolean => status === 'active' || status === 'trialing';

type WorkspaceRow = typeof workspaces.$inferSelect;
type PlanRow = typeof plans.$inferSelect;

export function toWorkspace(row: WorkspaceRow, plan: PlanRow): Workspace {
  return {
    id: row.id,
    orgId: row.orgId,
    name: row.name,
    plan: row.plan as PlanName,
    planStatus: row.planStatus,
    features: {
      posts_per_month: plan.postsPerMonth,
      platforms_limit: plan.platformsLimit,
      api_access: plan.apiAccess,
      monthly_ai_credits: plan.monthlyAiCredits,
      analytics_history_days: plan.analyticsHistoryDays,
    },
    storageLimitBytes: plan.storageBytes,
    createdAt: row.createdAt,
    timezone: row.timezone,
    approverMustDiffer: row.approverMustDiffer,
    defaultLanguage: row.defaultLanguage,
  };
}
