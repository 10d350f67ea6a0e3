import { and, count, eq, isNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import { preparedStatements, writeTransaction, type Db } from '../../../db/client.ts';
import { PLAN_NAMES } from '../../../db/plans.ts';
import { apiKeys, plans, workspaces } from '../../../db/schema/index.ts';
import type { Runtime } from '../context.ts';
import { ServiceError, validationError } from '../errors.ts';
import { newId, prefixedId } from '../ids.ts';
import { issueApiKey } from './api-keys.ts';
import { PLAN_STATUSES, toWorkspace, type Workspace } from './workspace.ts';

// The record itself lives apart (workspace.ts), so the modules this one uses can read it without
// importing this one back.
export { isActiveStatus, PLAN_STATUSES, toWorkspace } from './workspace.ts';
export type { PlanFeatures, PlanStatus, Workspace } from './workspace.ts';

export async function findWorkspace(db: Db, id: string): Promise<Workspace | undefined> {
  const row = await statements(db).workspaceWithPlan.get({ id });
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

export async function getWorkspace(db: Db, id: string): Promise<Workspace> {
  const workspace = await findWorkspace(db, id);
  if (!workspace) throw new ServiceError('not_found', `No workspace with id ${id}.`);
  return workspace;
}

const CreateWorkspaceInput = z.object({
  name: z.string().trim().min(1).max(160),
  plan: z.enum(PLAN_NAMES).default('pro'),
  status: z.enum(PLAN_STATUSES).default('active'),
});

/** Creates a workspace with its first API key; the raw key is returned once and never stored. */
export async function createWorkspace(
  runtime: Runtime,
  input: z.input<typeof CreateWorkspaceInput>,
): Promise<{ workspace: Workspace; apiKey: string; keyId: string }> {
  const parsed = CreateWorkspaceInput.safeParse(input);
  if (!parsed.success) throw validationError(parsed.error);
  const { db, clock } = runtime;
  return writeTransaction(db, async () => {
    const row = await db
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
    const key = await issueApiKey(db, { workspaceId: row.id, now: clock.now(), expiresAt: null });
    return { workspace: await getWorkspace(db, row.id), apiKey: key.apiKey, keyId: key.keyId };
  });
}

const SetPlanInput = z
  .object({ plan: z.enum(PLAN_NAMES).optional(), status: z.enum(PLAN_STATUSES).optional() })
  .refine((v) => v.plan !== undefined || v.status !== undefined, { message: 'Give a plan, a status or both.' });

export async function setWorkspacePlan(
  runtime: Runtime,
  workspaceId: string,
  input: { plan?: string; status?: string },
): Promise<Workspace> {
  const parsed = SetPlanInput.safeParse(input);
  if (!parsed.success) throw validationError(parsed.error);
  await getWorkspace(runtime.db, workspaceId);
  await runtime.db
    .update(workspaces)
    .set({ plan: parsed.data.plan, planStatus: parsed.data.status })
    .where(eq(workspaces.id, workspaceId))
    .run();
  return getWorkspace(runtime.db, workspaceId);
}

export async function listWorkspaces(db: Db): Promise<Array<Workspace & { activeKeys: number }>> {
  const rows = await db
    .select({ workspace: workspaces, plan: plans })
    .from(workspaces)
    .innerJoin(plans, eq(plans.name, workspaces.plan))
    .orderBy(workspaces.createdAt)
    .all();
  return Promise.all(
    rows.map(async (r) => ({
      ...toWorkspace(r.workspace, r.plan),
      activeKeys: (await db
        .select({ n: count() })
        .from(apiKeys)
        .where(and(eq(apiKeys.workspaceId, r.workspace.id), isNull(apiKeys.revokedAt)))
        .get())!.n,
    })),
  );
}

export async function countWorkspaces(db: Db): Promise<number> {
  return (await db.select({ n: count() }).from(workspaces).get())!.n;
}

/**
 * On an empty database, creates the default workspace and returns its key (shown once). Processes
 * starting together (on one SQLite file, or hosts on one PostgreSQL) create one workspace, not one each.
 */
export async function ensureDefaultWorkspace(
  runtime: Runtime,
): Promise<{ workspace: Workspace; apiKey: string } | null> {
  return writeTransaction(runtime.db, async () => {
    // Processes starting at once on an empty PostgreSQL database would each count none: one at a time
    // counts, so only the first creates it and shows a key (SQLite's one writer does this already).
    await runtime.db.$store.lock('default-workspace');
    if ((await countWorkspaces(runtime.db)) > 0) return null;
    const { workspace, apiKey } = await createWorkspace(runtime, { name: 'Default workspace' });
    return { workspace, apiKey };
  });
}
