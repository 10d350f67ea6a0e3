import { sql } from 'drizzle-orm';
import { preparedStatements, writeTransaction, type Db } from '../../../db/client.ts';
import { prepareSql } from '../../../db/engine/session.ts';
import type { EngineSql } from '../../../db/engine/store.ts';
import { content, plans, workspaces } from '../../../db/schema/index.ts';
import { isActiveStatus, type PlanStatus } from '../accounts/workspaces.ts';
import { approvalRefusal } from '../content/approval.ts';
import { recordPublishingStep } from '../content/history.ts';
import { postsPublishedIn, usagePeriod } from '../accounts/usage.ts';
import type { Runtime } from '../context.ts';
import { RateLimitError } from '../errors.ts';
import { newId, randomBase62 } from '../ids.ts';
import { consumeRateLimit } from '../rate-limits.ts';
import { HELD_UNDER_LEASE, rejectEveryPlatform, startRun } from './finish.ts';

/** An item this process now holds: only the holder of `leaseToken` may record its attempts or finish it. */
export interface Claim {
  contentId: string;
  workspaceId: string;
  runId: string;
  leaseToken: string;
  /** A new run (not one taken over from a holder whose lease ran out): it has no attempts yet. */
  fresh?: true;
}

export interface ClaimResult {
  claims: Claim[];
  /** Items finished at once without a fan-out: quota reached, subscription inactive, or approved by their author. */
  refused: number;
  /** Due items left queued: their workspace's publish bucket is empty, or its last posts of the month are in flight. */
  deferred: number;
}

// The queue as the partial index content_publish_due_idx defines it: keep these exactly in step (on
// SQLite `true` is spelt `1`, as in the index; PostgreSQL folds `= true` to the bare column itself).
const DUE_KEY = sql`coalesce(${content.scheduledFor}, 0)`;
const queued = (engine: EngineSql) =>
  sql`${content.publishQueued} = ${engine.true} and ${content.status} in ('approved', 'scheduled')`;
const CANDIDATES_PER_QUERY = 200;
/** Far above a request's hold on its bucket (a few ms), far below the server's deadlock check (1 s). */
const CLAIM_LOCK_WAIT_MS = 200;
const LEASE_EXPIRED = sql`${content.status} = 'publishing' and ${content.leaseExpiresAt} <= ${sql.placeholder('now')}`;

/**
 * Takes up to `limit` items for publishing, in one write transaction: first items whose holder's
 * lease ran out (continued under their run), then queued items that are due, oldest due first.
 * Each claimed item becomes `publishing` under a fresh lease. Per workspace, the monthly post quota
 * is reserved at claim time (published plus in flight), so concurrent runs never overshoot it: an
 * item past the quota is finished as failed on every platform at once, and one that fits only if
 * an item in flight fails waits for that outcome. An item that came due by its schedule (status
 * `scheduled`) takes one from the workspace's publish bucket, as a publish request would; when the
 * bucket is empty it stays queued for the next window. Items POST …/publish queued for now
 * (status `approved`) took theirs at the request.
 */
export async function claimDuePublishes(runtime: Runtime, limit: number): Promise<ClaimResult> {
  const { db, clock, config } = runtime;
  const now = clock.now();
  const result: ClaimResult = { claims: [], refused: 0, deferred: 0 };
  if (limit <= 0) return result;
  const s = statements(db);
  // Most passes find nothing: answer those without taking the write lock.
  if (!(await s.anyExpired.get({ now: now.getTime() })) && !(await s.anyDue.get({ now: now.getTime() }))) return result;

  const leaseExpiresAt = now.getTime() + config.publishing.leaseSeconds * 1000;
  const lease = () => randomBase62(22);
  return writeTransaction(db, async () => {
    // The claim locks items, then a workspace's publish bucket; a request takes its bucket, then
    // writes an item. The claim is the one to give way (and is tried again) when the two meet.
    await db.$store.waitForLocksAtMost(CLAIM_LOCK_WAIT_MS);
    // Rows another process is claiming right now are passed over (locked); a takeover re-checks that
    // the lease is still the expired one it read, so two processes never both take an item over.
    // Each takeover is a row of its own: they are sent together (one round trip on PostgreSQL).
    const expired = await s.expired.all({ now: now.getTime(), limit });
    const takenOver = await Promise.all(
      expired.map(async (row): Promise<Claim | null> => {
        const leaseToken = lease();
        const { changes } = await s.takeOver.run({
          id: row.id,
          oldToken: row.leaseToken,
          leaseToken,
          leaseExpiresAt,
          now: now.getTime(),
        });
        return changes === 1
          ? { contentId: row.id, workspaceId: row.workspaceId, runId: row.runId!, leaseToken }
          : null;
      }),
    );
    for (const claim of takenOver) if (claim) result.claims.push(claim);

    const quotas: Quotas = { budgets: new Map(), busy: new Set() };
    const blocked = new Set<string>();
    // Below any due time: a scheduled_for before 1970 is a negative one.
    let after = { due: Number.MIN_SAFE_INTEGER, id: '' };
    let undecided: DueRow[] = [];
    let lastPage = false;
    while (result.claims.length < limit) {
      if (undecided.length === 0) {
        if (lastPage) break;
        undecided = await s.due.all({
          now: now.getTime(),
          afterDue: after.due,
          afterId: after.id,
          limit: CANDIDATES_PER_QUERY,
        });
        lastPage = undecided.length < CANDIDATES_PER_QUERY;
        if (undecided.length === 0) break;
        const last = undecided.at(-1)!;
        after = { due: last.due, id: last.id };
      }
      // As many candidates as there are slots left are decided at a time, each step's statements for
      // all of them sent together (one round trip per step on PostgreSQL, not one per item): their
      // workspaces' quotas are counted, then each is decided in queue order, then the chosen are
      // claimed. Candidates a decision passes over leave room for the next ones.
      const candidates = undecided.splice(0, limit - result.claims.length);
      await countQuotas(db, quotas, candidates, now);
      // Each workspace's candidates are decided in queue order, one after another (each sees what the
      // one before took: a place in the quota, a take from the bucket); the workspaces side by side,
      // so that their statements (a refusal, a take) go out together.
      const chosen: Array<{ index: number; item: DueRow; claim: Claim; budget: WorkspaceBudget }> = [];
      const decided = await Promise.allSettled(
        [...byWorkspace(candidates)].map(async ([workspaceId, items]) => {
          const budget = quotas.budgets.get(workspaceId);
          if (!budget) {
            // Another process is counting this workspace's quota now: its items wait for a later pass.
            result.deferred += items.length;
            return;
          }
          for (const { index, item } of items) {
            // The approval rule once more, on the approver recorded: an author's own approval that got
            // in some other way (made while the setting was off, or before every path checked it) never
            // goes out.
            const refusal = approvalRefusal(
              budget,
              item,
              item.approvedByType && { type: item.approvedByType, id: item.approvedById },
            );
            if (refusal) {
              await rejectEveryPlatform(
                db,
                item.id,
                `not published: ${refusal.charAt(0).toLowerCase()}${refusal.slice(1)}`,
                now,
              );
              result.refused += 1;
              continue;
            }
            const verdict = budget.verdict();
            if (verdict === 'wait') {
              result.deferred += 1;
              continue;
            }
            if (verdict !== 'go') {
              await rejectEveryPlatform(db, item.id, verdict.refuse, now);
              result.refused += 1;
              continue;
            }
            if (item.status === 'scheduled') {
              if (blocked.has(item.workspaceId)) {
                result.deferred += 1;
                continue;
              }
              try {
                await consumeRateLimit(runtime, item.workspaceId, ['publish']);
              } catch (error) {
                if (!(error instanceof RateLimitError)) throw error;
                blocked.add(item.workspaceId);
                result.deferred += 1;
                continue;
              }
            }
            const claim: Claim = {
              contentId: item.id,
              workspaceId: item.workspaceId,
              runId: newId(),
              leaseToken: lease(),
              fresh: true,
            };
            // Counted in flight as it is chosen, so the workspace's next candidate sees it.
            budget.inFlight += 1;
            chosen.push({ index, item, claim, budget });
          }
        }),
      );
      // Every workspace's decisions have ended before a failure leaves the unit: none sends a statement after it.
      const failed = decided.find((outcome) => outcome.status === 'rejected');
      if (failed) throw failed.reason;
      // In queue order, as they were taken.
      chosen.sort((a, b) => a.index - b.index);
      const claimed = await Promise.all(
        chosen.map(
          async ({ claim }) =>
            (
              await s.claim.run({
                id: claim.contentId,
                runId: claim.runId,
                leaseToken: claim.leaseToken,
                leaseExpiresAt,
                now: now.getTime(),
              })
            ).changes === 1,
        ),
      );
      // An item claimed by another process after the read is theirs (the candidate select locks the
      // rows on PostgreSQL, so this is a guard, not a path); counting it in flight until then only
      // made its workspace's later candidates wait.
      const held = chosen.filter((_, i) => claimed[i]);
      for (const [i, { budget }] of chosen.entries()) if (!claimed[i]) budget.inFlight -= 1;
      await Promise.all(
        held.flatMap(({ item, claim }) => [
          startRun(db, { id: claim.runId, workspaceId: item.workspaceId, contentId: item.id, at: now }),
          recordPublishingStep(db, {
            stage: 'started',
            workspaceId: item.workspaceId,
            contentId: item.id,
            from: item.status,
            at: now,
          }),
        ]),
      );
      result.claims.push(...held.map(({ claim }) => claim));
    }
    return result;
  });
}

/** The candidates by workspace, each with its place in the queue, in queue order. */
function byWorkspace(candidates: readonly DueRow[]): Map<string, Array<{ index: number; item: DueRow }>> {
  const grouped = new Map<string, Array<{ index: number; item: DueRow }>>();
  for (const [index, item] of candidates.entries()) {
    const items = grouped.get(item.workspaceId);
    if (items) items.push({ index, item });
    else grouped.set(item.workspaceId, [{ index, item }]);
  }
  return grouped;
}

/** The quotas counted in one claim, by workspace; `busy`: workspaces another process was counting. */
interface Quotas {
  budgets: Map<string, WorkspaceBudget>;
  busy: Set<string>;
}

/**
 * Counts the quotas of the candidates' workspaces not counted yet. Each is counted (published + in
 * flight) and reserved by one unit at a time, held until this unit commits its claims: two processes
 * counting at once would each see room for the last post and both claim one. A workspace another
 * unit holds is `busy`.
 */
async function countQuotas(db: Db, quotas: Quotas, candidates: readonly DueRow[], now: Date): Promise<void> {
  const uncounted = [...new Set(candidates.map((item) => item.workspaceId))].filter(
    (id) => !quotas.budgets.has(id) && !quotas.busy.has(id),
  );
  const locked = await Promise.all(uncounted.map((id) => db.$store.tryLock(`quota:${id}`)));
  const counting = uncounted.filter((_, i) => locked[i]);
  for (const [i, id] of uncounted.entries()) if (!locked[i]) quotas.busy.add(id);
  const budgets = await workspaceBudgets(db, counting, now);
  for (const [i, id] of counting.entries()) quotas.budgets.set(id, budgets[i]!);
}

/**
 * Extends the leases this process still holds, so a long platform call never loses its item while
 * a short lease still lets another process take over quickly after a crash. Returns how many were
 * extended (a lease already taken over is not).
 */
export async function renewLeases(runtime: Runtime, claims: Iterable<Claim>): Promise<number> {
  const { db, clock, config } = runtime;
  const leaseExpiresAt = clock.now().getTime() + config.publishing.leaseSeconds * 1000;
  const s = statements(db);
  let renewed = 0;
  await writeTransaction(db, async () => {
    for (const claim of claims)
      renewed += (await s.extendLease.run({ id: claim.contentId, leaseToken: claim.leaseToken, leaseExpiresAt }))
        .changes;
  });
  return renewed;
}

/** When the earliest queued item comes due after `now` (ms), or null when nothing is queued for later. */
export async function nextDueAfter(db: Db, now: Date): Promise<number | null> {
  return (await statements(db).nextDue.get({ now: now.getTime() }))?.due ?? null;
}

interface WorkspaceBudget {
  inFlight: number;
  /** The workspace's "approver must differ from author" setting, which the run enforces too. */
  approverMustDiffer: boolean;
  /** Whether the next item may go, must wait for items in flight, or cannot publish at all (and why). */
  verdict(): 'go' | 'wait' | { refuse: string };
}

/** The budgets of `workspaceIds`, each step's reads for all of them sent together. */
async function workspaceBudgets(db: Db, workspaceIds: readonly string[], now: Date): Promise<WorkspaceBudget[]> {
  const s = statements(db);
  const plansAndInFlight = await Promise.all(
    workspaceIds.map((workspaceId) => Promise.all([s.plan.get({ workspaceId }), s.inFlight.get({ workspaceId })])),
  );
  // In flight first, then published: on PostgreSQL each statement sees the commits made before it,
  // and an item another process finishes between the two reads is then counted twice (the next item
  // waits a pass), never in neither (which would let the workspace pass its quota).
  const period = usagePeriod(now);
  const publishedCounts = await Promise.all(workspaceIds.map((id) => postsPublishedIn(db, id, period)));
  return plansAndInFlight.map(([plan, inFlight], i) => budgetOf(plan, inFlight?.n ?? 0, publishedCounts[i]!));
}

function budgetOf(
  plan: { name: string; postsPerMonth: number; planStatus: string; approverMustDiffer: boolean } | undefined,
  inFlight: number,
  published: number,
): WorkspaceBudget {
  const budget: WorkspaceBudget = {
    inFlight,
    approverMustDiffer: plan?.approverMustDiffer ?? false,
    verdict() {
      if (!plan) return { refuse: 'the workspace no longer exists' };
      if (!isActiveStatus(plan.planStatus as PlanStatus)) {
        return {
          refuse: `the workspace subscription is ${plan.planStatus}: publish the item again once the subscription is active`,
        };
      }
      if (published >= plan.postsPerMonth) {
        return {
          refuse: `monthly post quota reached: the ${plan.name} plan allows ${plan.postsPerMonth} published posts per month (GET /api/v1/me shows usage)`,
        };
      }
      return published + budget.inFlight >= plan.postsPerMonth ? 'wait' : 'go';
    },
  };
  return budget;
}

/** The publishing queue at one moment, for monitoring. Ages are in seconds, 0 when nothing waits. */
export interface PublishQueueStats {
  /** Queued items that are due and not yet claimed. */
  due: number;
  /** How long the longest-waiting due item has waited: since its `scheduled_for`, or since it was queued (last updated) for a publish now. */
  oldestDueAgeSeconds: number;
  /** Items claimed by a publishing run (status `publishing`), in this process or another. */
  inFlight: number;
  /** Since the oldest claim in flight was made (or renewed by a takeover); a large value is a stuck holder. */
  oldestInFlightAgeSeconds: number;
}

/**
 * Two aggregates, each over its partial index's range (content_publish_due_idx for the due items,
 * content_publish_lease_idx for those in flight): they read only the items waiting or in flight,
 * which the run keeps few.
 */
export async function publishQueueStats(runtime: Runtime): Promise<PublishQueueStats> {
  const now = runtime.clock.now().getTime();
  const s = statements(runtime.db);
  const due = (await s.dueStats.get({ now }))!;
  const inFlight = (await s.inFlightStats.get())!;
  const age = (since: number | null) => (since === null ? 0 : Math.max(0, (now - since) / 1000));
  return {
    due: due.n,
    oldestDueAgeSeconds: age(due.since),
    inFlight: inFlight.n,
    oldestInFlightAgeSeconds: age(inFlight.since),
  };
}

interface ExpiredRow {
  id: string;
  workspaceId: string;
  runId: string | null;
  leaseToken: string | null;
}

type DueRow = Pick<
  typeof content.$inferSelect,
  'id' | 'workspaceId' | 'status' | 'createdByType' | 'createdById' | 'approvedByType' | 'approvedById'
> & { due: number };

const statements = preparedStatements((db) => {
  const engine = db.$store.sql;
  const QUEUED = queued(engine);
  return {
    anyExpired: db.select({ id: content.id }).from(content).where(LEASE_EXPIRED).limit(1).prepare(),
    anyDue: db
      .select({ id: content.id })
      .from(content)
      .where(sql`${QUEUED} and ${DUE_KEY} <= ${sql.placeholder('now')}`)
      .limit(1)
      .prepare(),
    // Raw, to end with the row lock (the builder's limit takes no SQL after it): on PostgreSQL the rows
    // are this unit's until it commits, and rows another process's claim holds are passed over.
    expired: prepareSql<ExpiredRow, { now: number; limit: number }>(
      db,
      sql`select ${content.id} as "id", ${content.workspaceId} as "workspaceId", ${content.publishRunId} as "runId",
        ${content.leaseToken} as "leaseToken"
      from ${content} where ${LEASE_EXPIRED}
      order by ${content.leaseExpiresAt} limit ${sql.placeholder('limit')}${engine.lockRowsSkipLocked}`,
    ),
    // Only the lease that ran out, as read: a takeover made meanwhile (or a finish) changes nothing.
    takeOver: db
      .update(content)
      .set({
        leaseToken: sql`${sql.placeholder('leaseToken')}`,
        leaseExpiresAt: sql`${sql.placeholder('leaseExpiresAt')}`,
        updatedAt: sql`${sql.placeholder('now')}`,
      })
      .where(
        sql`${content.id} = ${sql.placeholder('id')} and ${LEASE_EXPIRED} and ${content.leaseToken} = ${sql.placeholder('oldToken')}`,
      )
      .prepare(),
    extendLease: db
      .update(content)
      .set({ leaseExpiresAt: sql`${sql.placeholder('leaseExpiresAt')}` })
      .where(HELD_UNDER_LEASE)
      .prepare(),
    due: prepareSql<DueRow, { now: number; afterDue: number; afterId: string; limit: number }>(
      db,
      sql`select ${content.id} as "id", ${content.workspaceId} as "workspaceId", ${content.status} as "status",
        ${DUE_KEY} as "due", ${content.createdByType} as "createdByType", ${content.createdById} as "createdById",
        ${content.approvedByType} as "approvedByType", ${content.approvedById} as "approvedById"
      from ${content}
      where ${QUEUED} and ${DUE_KEY} <= ${sql.placeholder('now')}
        and (${DUE_KEY}, ${content.id}) > (${sql.placeholder('afterDue')}, ${sql.placeholder('afterId')})
      order by ${DUE_KEY}, ${content.id} limit ${sql.placeholder('limit')}${engine.lockRowsSkipLocked}`,
    ),
    nextDue: db
      .select({ due: sql<number>`${DUE_KEY}` })
      .from(content)
      .where(sql`${QUEUED} and ${DUE_KEY} > ${sql.placeholder('now')}`)
      .orderBy(DUE_KEY)
      .limit(1)
      .prepare(),
    claim: db
      .update(content)
      .set({
        status: 'publishing',
        publishRunId: sql`${sql.placeholder('runId')}`,
        leaseToken: sql`${sql.placeholder('leaseToken')}`,
        leaseExpiresAt: sql`${sql.placeholder('leaseExpiresAt')}`,
        updatedAt: sql`${sql.placeholder('now')}`,
      })
      .where(sql`${content.id} = ${sql.placeholder('id')} and ${QUEUED}`)
      .prepare(),
    plan: db
      .select({
        name: plans.name,
        postsPerMonth: plans.postsPerMonth,
        planStatus: workspaces.planStatus,
        approverMustDiffer: workspaces.approverMustDiffer,
      })
      .from(workspaces)
      .innerJoin(plans, sql`${plans.name} = ${workspaces.plan}`)
      .where(sql`${workspaces.id} = ${sql.placeholder('workspaceId')}`)
      .prepare(),
    inFlight: db
      .select({ n: sql<number>`count(*)` })
      .from(content)
      .where(sql`${content.workspaceId} = ${sql.placeholder('workspaceId')} and ${content.status} = 'publishing'`)
      .prepare(),
    dueStats: db
      .select({
        n: sql<number>`count(*)`,
        since: sql<number | null>`min(coalesce(${content.scheduledFor}, ${content.updatedAt}))`,
      })
      .from(content)
      .where(sql`${QUEUED} and ${DUE_KEY} <= ${sql.placeholder('now')}`)
      .prepare(),
    inFlightStats: db
      .select({ n: sql<number>`count(*)`, since: sql<number | null>`min(${content.updatedAt})` })
      .from(content)
      .where(sql`${content.status} = 'publishing'`)
      .prepare(),
  };
});
