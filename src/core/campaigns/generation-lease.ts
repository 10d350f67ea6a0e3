import { and, eq, sql } from 'drizzle-orm';
import { preparedStatements, writeTransaction } from '../../../db/client.ts';
import { prepareSql } from '../../../db/engine/session.ts';
import { campaigns } from '../../../db/schema/index.ts';
import { inNextCommit } from '../batch.ts';
import type { Runtime } from '../context.ts';
import { randomBase62 } from '../ids.ts';

/** A campaign this process is generating for, under its lease. */
export interface GenerationClaim {
  campaignId: string;
  workspaceId: string;
  leaseToken: string;
}

/** Marks a campaign to be generated for (a launch). Runs inside the launch's transaction. */
export async function scheduleGeneration(runtime: Runtime, campaignId: string, now: Date): Promise<void> {
  await runtime.db
    .update(campaigns)
    .set({ generationDueAt: now, generationLeaseToken: null })
    .where(eq(campaigns.id, campaignId))
    .run();
  runtime.wake('generation');
}

/**
 * Takes up to `free` campaigns whose generation is due, each under a lease: launched ones, and ones
 * whose holder's lease ran out. On PostgreSQL the candidates are locked as they are read, passing
 * over those another process is claiming; each claim asks again that the campaign is due under the
 * lease it was read with, and counts as a claim only if it changed the row.
 */
export async function claimDueGenerations(runtime: Runtime, free: number): Promise<GenerationClaim[]> {
  const { db, clock } = runtime;
  const now = clock.now();
  if (free <= 0) return [];
  return writeTransaction(db, async () => {
    const s = statements(db);
    const due = await s.dueGenerations.all({ now: now.getTime(), limit: free });
    const claims: GenerationClaim[] = [];
    for (const row of due) {
      const leaseToken = randomBase62(22);
      const claimed = await s.claimGeneration.run({
        id: row.id,
        now: now.getTime(),
        oldToken: row.leaseToken ?? '',
        leaseToken,
        dueAt: now.getTime() + generationLeaseMs(runtime),
      });
      if (claimed.changes === 1) claims.push({ campaignId: row.id, workspaceId: row.workspaceId, leaseToken });
    }
    return claims;
  });
}

/** When the next campaign comes due for generation after `now` (ms), or null. */
export async function nextGenerationDueAfter(runtime: Runtime, now: Date): Promise<number | null> {
  const row = await runtime.db
    .select({ due: sql<number>`min(${campaigns.generationDueAt})` })
    .from(campaigns)
    .where(sql`${campaigns.generationDueAt} > ${now.getTime()}`)
    .get();
  return row?.due ?? null;
}

/** Extends the leases of the campaigns in hand, while a slow generator writes a batch. */
export async function renewGenerationLeases(runtime: Runtime, claims: Iterable<GenerationClaim>): Promise<number> {
  const { db, clock } = runtime;
  const dueAt = clock.now().getTime() + generationLeaseMs(runtime);
  let renewed = 0;
  await writeTransaction(db, async () => {
    for (const claim of claims) {
      const { changes } = await statements(db).renewGeneration.run({
        id: claim.campaignId,
        leaseToken: claim.leaseToken,
        dueAt,
      });
      renewed += changes;
    }
  });
  return renewed;
}

/** Lets a campaign go under its lease, due at once, so the next run (another process's) resumes it. */
export async function handBackGeneration(
  runtime: Runtime,
  claim: GenerationClaim,
): Promise<'lease_lost' | 'handed_back'> {
  const { db, clock } = runtime;
  const { changes } = await inNextCommit(db, async () =>
    db
      .update(campaigns)
      .set({ generationDueAt: clock.now(), generationLeaseToken: null })
      .where(and(eq(campaigns.id, claim.campaignId), eq(campaigns.generationLeaseToken, claim.leaseToken)))
      .run(),
  );
  return changes === 0 ? 'lease_lost' : 'handed_back';
}

/** How long a run that failed for a reason of ours waits before the campaign is tried again. */
const RETRY_AFTER_FAILURE_MS = 60_000;

/**
 * A run that broke (every generator failed, a bug) lets the campaign go, to be tried again a minute
 * later; the batches already written stay written.
 */
export async function abandonGeneration(runtime: Runtime, claim: GenerationClaim, error: unknown): Promise<void> {
  runtime.log.error(
    { err: error, campaign_id: claim.campaignId },
    'campaign generation: the campaign failed; trying again in a minute',
  );
  const { db, clock } = runtime;
  await inNextCommit(db, async () =>
    db
      .update(campaigns)
      .set({ generationDueAt: new Date(clock.now().getTime() + RETRY_AFTER_FAILURE_MS), generationLeaseToken: null })
      .where(and(eq(campaigns.id, claim.campaignId), eq(campaigns.generationLeaseToken, claim.leaseToken)))
      .run(),
  );
}

/** How long a generation run holds a campaign without committing a batch or renewing (GENERATION_LEASE_SECONDS). */
export const generationLeaseMs = (runtime: Runtime): number => runtime.config.campaigns.leaseSeconds * 1000;

interface DueGeneration {
  id: string;
  workspaceId: string;
  leaseToken: string | null;
}

/** The campaign named by `id` is still generated for under `leaseToken` (placeholders). */
export const UNDER_GENERATION_LEASE = sql`${campaigns.id} = ${sql.placeholder('id')} and ${campaigns.generationLeaseToken} = ${sql.placeholder('leaseToken')}`;

/** Prepared: each runs once a pass or once per claim. */
const statements = preparedStatements((db) => ({
  // Raw, to end with the row lock (the builder's limit takes no SQL after it).
  dueGenerations: prepareSql<DueGeneration, { now: number; limit: number }>(
    db,
    sql`select ${campaigns.id} as "id", ${campaigns.workspaceId} as "workspaceId",
        ${campaigns.generationLeaseToken} as "leaseToken"
      from ${campaigns}
      where ${campaigns.generationDueAt} is not null and ${campaigns.generationDueAt} <= ${sql.placeholder('now')}
      order by ${campaigns.generationDueAt} limit ${sql.placeholder('limit')}${db.$store.sql.lockRowsSkipLocked}`,
  ),
  // Still due, and under the lease it was read with (none for a launch): of two processes taking
  // over one expired lease, the second changes nothing.
  claimGeneration: db
    .update(campaigns)
    .set({
      generationDueAt: sql`${sql.placeholder('dueAt')}`,
      generationLeaseToken: sql`${sql.placeholder('leaseToken')}`,
    })
    .where(
      sql`${campaigns.id} = ${sql.placeholder('id')} and ${campaigns.generationDueAt} <= ${sql.placeholder('now')}
        and coalesce(${campaigns.generationLeaseToken}, '') = ${sql.placeholder('oldToken')}`,
    )
    .prepare(),
  renewGeneration: db
    .update(campaigns)
    .set({ generationDueAt: sql`${sql.placeholder('dueAt')}` })
    .where(UNDER_GENERATION_LEASE)
    .prepare(),
}));
