import { and, count, eq, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import { preparedStatements, writeTransaction, type Db } from '../../../db/client.ts';
import { PLAN_NAMES, type PlanName } from '../../../db/plans.ts';
import { apiKeys, plans, workspaces } from '../../../db/schema/index.ts';
import type { Runtime } from '../context.ts';
import { ServiceError, validationError } from '../errors.ts';
import { newId, prefixedId } from '../ids.ts';
import { issueApiKey } from './api-keys.ts';

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
  createdAt: Date;
  /** IANA time zone for people's pages (calendar days, local times); UTC unless set. */
  timezone: string;
  /** When true, a person cannot approve an item they created. */
  approverMustDiffer: boolean;
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
    createdAt: row.createdAt,
    timezone: row.timezone,
    approverMustDiffer: row.approverMustDiffer,
  };
}

export function findWorkspace(db: Db, id: string): Workspace | undefined {
  const row = statements(db).workspaceWithPlan.get({ id });
  return row && toWorkspace(row.workspace, row.plan);
}

const statements = preparedStatements((db) => ({
  // Prepared: campaign generation reads the plan's AI credits twice a batch; building this join
  // costs far more than running it (see preparedStatements).
  workspaceWithPlan: db
    .select({ workspace: workspaces, plan: plans })
    .from(workspaces)
    .innerJoin(plans, eq(plans.name, workspaces.plan))
    .where(eq(workspaces.id, sql.placeholder('id')))
    .prepare(),
}));

export function getWorkspace(db: Db, id: string): Workspace {
  const workspace = findWorkspace(db, id);
  if (!workspace) throw new ServiceError('not_found', `No workspace with id ${id}.`);
  return workspace;
}

const CreateWorkspaceInput = z.object({
  name: z.string().trim().min(1).max(160),
  plan: z.enum(PLAN_NAMES).default('pro'),
  status: z.enum(PLAN_STATUSES).default('active'),
});

/** Creates a workspace with its first API key; the raw key is returned once and never stored. */
export function createWorkspace(
  runtime: Runtime,
  input: z.input<typeof CreateWorkspaceInput>,
): { workspace: Workspace; apiKey: string; keyId: string } {
  const parsed = CreateWorkspaceInput.safeParse(input);
  if (!parsed.success) throw validationError(parsed.error);
  const { db, clock } = runtime;
  return writeTransaction(db, () => {
    const row = db
      .insert(workspaces)
      .values({
        id: newId(),
        orgId: prefixedId('org'),
        name: parsed.data.name,
        plan: parsed.data.plan,
        planStatus: parsed.data.status,
        createdAt: clock.now(),
      })
      .returning()
      .get();
    const key = issueApiKey(db, { workspaceId: row.id, now: clock.now(), expiresAt: null });
    return { workspace: getWorkspace(db, row.id), apiKey: key.apiKey, keyId: key.keyId };
  });
}

const SetPlanInput = z
  .object({ plan: z.enum(PLAN_NAMES).optional(), status: z.enum(PLAN_STATUSES).optional() })
  .refine((v) => v.plan !== undefined || v.status !== undefined, { message: 'Give a plan, a status or both.' });

export function setWorkspacePlan(
  runtime: Runtime,
  workspaceId: string,
  input: { plan?: string; status?: string },
): Workspace {
  const parsed = SetPlanInput.safeParse(input);
  if (!parsed.success) throw validationError(parsed.error);
  getWorkspace(runtime.db, workspaceId);
  runtime.db
    .update(workspaces)
    .set({ plan: parsed.data.plan, planStatus: parsed.data.status })
    .where(eq(workspaces.id, workspaceId))
    .run();
  return getWorkspace(runtime.db, workspaceId);
}

export function listWorkspaces(db: Db): Array<Workspace & { activeKeys: number }> {
  const rows = db
    .select({ workspace: workspaces, plan: plans })
    .from(workspaces)
    .innerJoin(plans, eq(plans.name, workspaces.plan))
    .orderBy(workspaces.createdAt)
    .all();
  return rows.map((r) => ({
    ...toWorkspace(r.workspace, r.plan),
    activeKeys: db
      .select({ n: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.workspaceId, r.workspace.id), isNull(apiKeys.revokedAt)))
      .get()!.n,
  }));
}

export function countWorkspaces(db: Db): number {
  return db.select({ n: count() }).from(workspaces).get()!.n;
}

/**
 * On an empty database, creates the default workspace and returns its key (shown once). Runs under
 * one write lock so two processes starting together create one workspace, not two.
 */
export function ensureDefaultWorkspace(runtime: Runtime): { workspace: Workspace; apiKey: string } | null {
  return writeTransaction(runtime.db, () => {
    if (countWorkspaces(runtime.db) > 0) return null;
    const { workspace, apiKey } = createWorkspace(runtime, { name: 'Default workspace' });
    return { workspace, apiKey };
  });
}
