import { sql } from 'drizzle-orm';
import { preparedStatements, savepoint, type Db } from '../../../db/client.ts';
import { content, workspaces } from '../../../db/schema/index.ts';
import { inNextCommit, retriedWhileUnreachable } from '../batch.ts';
import type { Runtime } from '../context.ts';
import { platformAccountsOf, type AccountOfLookup } from '../social-accounts/operations.ts';
import type { Claim } from './claim.ts';
import type { Connectors, PlatformConnector, PlatformPost, PublishOutcome, PublishTarget } from './connector.ts';
import { checkPlatform, refusalOf } from './readiness.ts';
import {
  attemptsOf,
  finishRun,
  HELD_UNDER_LEASE,
  recordAttempt,
  RUN_ITEM_COLUMNS,
  settleAttempt,
  startAttempt,
  type StartedAttempt,
  UNKNOWN_OUTCOME,
  type AttemptRow,
  type RunItem,
} from './finish.ts';
import { closeCheckpoint, hasCheckpoint, openCheckpoint } from './live-connector.ts';
import { composePost, type PostDefaults } from './post.ts';

interface PlatformCall {
  attemptId: string;
  connector: PlatformConnector;
  post: PlatformPost;
  target: PublishTarget;
}

const targetOf = (account: AccountOfLookup, attemptId: string): PublishTarget => ({
  account: {
    id: account.id,
    workspaceId: account.workspaceId,
    platformUserId: account.platformUserId,
    username: account.username,
    mode: account.mode,
  },
  attemptId,
});

export type FanOutResult = 'published' | 'failed' | 'lease_lost';

/**
 * Publishes one claimed item to every target platform, in three steps: (1) decide every platform
 * and record each attempt, as `pending` for the platforms about to be called (so a crash leaves a
 * trace) or `rejected` for those refused here, committed before any call; (2) call the platforms
 * at once, recording each answer as it comes (a sandbox call has a deadline; a live connector
 * bounds each of its requests itself); (3) finish the item, in the commit that records the last
 * answers. A reclaimed item keeps its recorded outcomes and only calls platforms never tried. An
 * attempt its dead holder left pending is reported unknown (that platform is never called again
 * blind), unless it is a live one with a checkpoint: that one is handed back to its connector,
 * which resumes what is left before the create call, or looks for the post when the create call
 * had gone out. Every write checks the lease first: a holder that lost it stops without writing.
 */
export async function fanOut(runtime: Runtime, connectors: Connectors, claim: Claim): Promise<FanOutResult> {
  const { db, clock, outcomes } = runtime;
  const prepared = await inCommit(db, async () => {
    // Read together (one round trip on PostgreSQL): the claim names the item's workspace.
    const [held, accountFor] = await Promise.all([heldItem(db, claim), platformAccountsOf(db, claim.workspaceId)]);
    if (!held) return null;
    const { defaultLanguage, ...item } = held;
    const now = clock.now();
    const defaults: PostDefaults = { defaultLanguage };
    // A new run has tried nothing yet: only a run taken over has leftovers to read.
    const { tried, resumable } = claim.fresh ? NOTHING_TRIED : await settleLeftovers(db, claim, now);
    const calls: PlatformCall[] = [];
    for (const attempt of resumable) {
      const connector = connectors.get(attempt.platform);
      const lookup = accountFor(attempt.platform);
      if (connector && lookup.state === 'active' && lookup.account.id === attempt.socialAccountId) {
        const post = composePost(item, connector.platform, defaults);
        calls.push({ attemptId: attempt.id, connector, post, target: targetOf(lookup.account, attempt.id) });
      } else {
        await settleAttempt(db, attempt.id, { status: 'unknown', error: UNKNOWN_OUTCOME }, now);
        await closeCheckpoint(db, attempt.id);
      }
    }
    // Each attempt's insert is sent as it is decided and all are awaited together (one round trip on PostgreSQL).
    const attempts: StartedAttempt[] = [];
    for (const platform of item.targetPlatforms) {
      if (tried.has(platform)) continue;
      const attempt = { runId: claim.runId, workspaceId: item.workspaceId, contentId: item.id, platform, at: now };
      const check = checkPlatform(connectors, accountFor, item, platform, defaults);
      const socialAccountId = check.lookup && check.lookup.state !== 'none' ? check.lookup.account.id : null;
      if (check.problems.length > 0 || !check.connector || check.lookup.state !== 'active') {
        attempts.push(startAttempt(db, { ...attempt, socialAccountId, status: 'rejected', error: refusalOf(check) }));
        continue;
      }
      const { connector, post, lookup } = check;
      const started = startAttempt(db, { ...attempt, socialAccountId, status: 'pending', error: null });
      attempts.push(started);
      if (lookup.account.mode === 'live') await openCheckpoint(db, started.id, now);
      calls.push({ attemptId: started.id, connector, post, target: targetOf(lookup.account, started.id) });
    }
    await Promise.all(attempts.map((attempt) => attempt.written));
    if (calls.length === 0)
      return { item, calls, finished: await finishRun(db, item, claim.runId, now, claim.leaseToken) };
    return { item, calls, finished: null };
  });
  if (!prepared) return 'lease_lost';
  if (prepared.finished) return reportRun(runtime, prepared.finished);

  // Each answer is recorded as soon as it comes (a crash then loses only the calls still out), in the
  // next group commit; the answers that come in the same turn (a sandbox fan-out's, usually all)
  // share one lease check and savepoint there instead of one each, and the commit of the last
  // answers finishes the item too.
  const timeoutMs = runtime.config.publishing.platformTimeoutSeconds * 1000;
  const record = answerRecorder(runtime, claim, prepared.calls.length, (now) =>
    // The row as read at the start, not read again: while the lease holds, an item mid-publish
    // refuses every change (content/state.ts). A campaign deleted meanwhile clears its
    // campaign_id, which the finish only uses to look for that campaign, which is gone then.
    // The finish's first write carries the lease token and stops when it is gone.
    finishRun(db, prepared.item, claim.runId, now, claim.leaseToken),
  );
  const recorded = await Promise.all(
    prepared.calls.map(async (call) => {
      const outcome = await callPlatform(call, call.target.account.mode === 'live' ? null : timeoutMs);
      const answer = await record(call, outcome);
      if (answer.held)
        outcomes.report({
          kind: 'platform_call',
          platform: call.connector.platform,
          result: outcome?.status ?? 'unknown',
        });
      return answer;
    }),
  );
  if (!recorded.every((answer) => answer.held)) return 'lease_lost';
  return reportRun(runtime, recorded.find((answer) => answer.finished)!.finished!);
}

interface RecordedAnswers {
  /** False when the lease was lost: nothing was written then. */
  held: boolean;
  /** How the item was finished, by the commit that recorded its last answers. */
  finished: FanOutResult | null;
}

/**
 * Records platform answers under the lease: each joins the next group commit, with every other answer
 * of this run queued since that commit's work for it was queued; the commit recording the last of
 * the `expected` answers also runs `finish`. Resolves once committed. The run's commits follow one
 * another (on PostgreSQL a commit in flight beside another would not see its answers, and the finish
 * reads them all), and one that meets the database out of reach is tried again while the lease may
 * hold: the answers are in memory only, and a platform is never asked twice.
 */
function answerRecorder(
  runtime: Runtime,
  claim: Claim,
  expected: number,
  finish: (now: Date) => Promise<FanOutResult>,
): (call: PlatformCall, outcome: PublishOutcome | null) => Promise<RecordedAnswers> {
  const { db, clock } = runtime;
  const leaseMs = runtime.config.publishing.leaseSeconds * 1000;
  let answered = 0;
  let previous: Promise<unknown> = Promise.resolve();
  let waiting: {
    answers: Array<[PlatformCall, PublishOutcome | null]>;
    recorded: Promise<RecordedAnswers>;
  } | null = null;
  const commit = (answers: Array<[PlatformCall, PublishOutcome | null]>) =>
    inCommit(db, async () => {
      // An answer that comes after this runs waits for the next commit.
      if (waiting?.answers === answers) waiting = null;
      if (!(await holdsLease(db, claim))) return { held: false, finished: null, total: answered };
      const now = clock.now();
      // Sent together (one round trip on PostgreSQL): each answer is a row of its own.
      await Promise.all(answers.map(([call, outcome]) => recordAnswer(db, call, outcome, now)));
      const total = answered + answers.length;
      return { held: true, finished: total === expected ? await finish(now) : null, total };
    });
  return (call, outcome) => {
    if (!waiting) {
      const answers: Array<[PlatformCall, PublishOutcome | null]> = [];
      const recorded = previous.then(async (): Promise<RecordedAnswers> => {
        const { held, finished, total } = await retriedWhileUnreachable(() => commit(answers), leaseMs);
        answered = total;
        return { held, finished };
      });
      // The next commit waits for this one, whatever became of it.
      previous = recorded.catch(() => {});
      waiting = { answers, recorded };
    }
    waiting.answers.push([call, outcome]);
    return waiting.recorded;
  };
}

async function recordAnswer(db: Db, call: PlatformCall, outcome: PublishOutcome | null, now: Date): Promise<void> {
  if (outcome === null) await settleAttempt(db, call.attemptId, { status: 'unknown', error: UNKNOWN_OUTCOME }, now);
  else if (outcome.status === 'published') {
    const { platformPostId, url, notice } = outcome;
    await settleAttempt(db, call.attemptId, { status: 'published', platformPostId, url, notice }, now);
  } else await settleAttempt(db, call.attemptId, { status: outcome.status, error: outcome.error }, now);
  if (call.target.account.mode === 'live') await closeCheckpoint(db, call.attemptId);
}

/** Tells the outcome listeners how a run ended, once that is committed. */
function reportRun(runtime: Runtime, result: FanOutResult): FanOutResult {
  if (result !== 'lease_lost') runtime.outcomes.report({ kind: 'publish_run', result });
  return result;
}

/**
 * Ends a run that failed for a reason of our own (a bug, a broken connector): attempts still pending
 * are reported unknown, platforms never tried are rejected with the error, and the item is finished.
 * Without this, every holder that reclaimed the item would fail the same way, forever.
 */
export async function abandonRun(runtime: Runtime, claim: Claim, cause: unknown): Promise<FanOutResult> {
  const { db, clock } = runtime;
  const error = `internal error while publishing: ${cause instanceof Error ? cause.message : String(cause)}`;
  const result = await inCommit(db, async () => {
    const item = await heldItem(db, claim);
    if (!item) return 'lease_lost' as const;
    const now = clock.now();
    const { tried, resumable } = await settleLeftovers(db, claim, now);
    for (const attempt of resumable) {
      await settleAttempt(db, attempt.id, { status: 'unknown', error: UNKNOWN_OUTCOME }, now);
      await closeCheckpoint(db, attempt.id);
    }
    for (const platform of item.targetPlatforms) {
      if (tried.has(platform)) continue;
      await recordAttempt(db, {
        runId: claim.runId,
        workspaceId: item.workspaceId,
        contentId: item.id,
        platform,
        socialAccountId: null,
        status: 'rejected',
        error,
        at: now,
      });
    }
    return finishRun(db, item, claim.runId, now, claim.leaseToken);
  });
  return reportRun(runtime, result);
}

/** Group-committed, in a savepoint: a step that throws leaves nothing half-written (batch.ts). */
const inCommit = <T>(db: Db, work: () => Promise<T> | T): Promise<T> => inNextCommit(db, () => savepoint(db, work));

const NOTHING_TRIED: { tried: ReadonlySet<string>; resumable: readonly AttemptRow[] } = {
  tried: new Set(),
  resumable: [],
};

/**
 * The platforms this run already tried. Attempts a dead holder left pending are reported unknown,
 * never called again, except live ones with a checkpoint: those are answered as `resumable`.
 */
async function settleLeftovers(
  db: Db,
  claim: Claim,
  now: Date,
): Promise<{ tried: Set<string>; resumable: AttemptRow[] }> {
  const tried = new Set<string>();
  const resumable: AttemptRow[] = [];
  for (const attempt of await attemptsOf(db, claim.runId)) {
    tried.add(attempt.platform);
    if (attempt.status !== 'pending') continue;
    if (await hasCheckpoint(db, attempt.id)) resumable.push(attempt);
    else await settleAttempt(db, attempt.id, { status: 'unknown', error: UNKNOWN_OUTCOME }, now);
  }
  return { tried, resumable };
}

/** The platform's answer, or null when none came in time (`timeoutMs`, when given) or the call failed without one. */
async function callPlatform(call: PlatformCall, timeoutMs: number | null): Promise<PublishOutcome | null> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<null>((resolve) => {
    if (timeoutMs !== null) timer = setTimeout(() => resolve(null), timeoutMs);
  });
  try {
    return await Promise.race([call.connector.publish(call.post, call.target), deadline]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The item, if this claim still holds its lease, with what its workspace says for every post (its
 * default language) read in the same statement.
 */
async function heldItem(db: Db, claim: Claim): Promise<(RunItem & PostDefaults) | undefined> {
  return statements(db).held.get({ id: claim.contentId, leaseToken: claim.leaseToken });
}

async function holdsLease(db: Db, claim: Claim): Promise<boolean> {
  return (await statements(db).holds.get({ id: claim.contentId, leaseToken: claim.leaseToken })) !== undefined;
}

const statements = preparedStatements((db) => ({
  holds: db.select({ id: content.id }).from(content).where(HELD_UNDER_LEASE).prepare(),
  held: db
    .select({
      ...RUN_ITEM_COLUMNS,
      defaultLanguage: sql<
        string | null
      >`(select ${workspaces.defaultLanguage} from ${workspaces} where ${workspaces.id} = ${content.workspaceId})`,
    })
    .from(content)
    .where(HELD_UNDER_LEASE)
    .prepare(),
}));
