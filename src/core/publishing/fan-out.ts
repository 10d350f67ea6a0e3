import { preparedStatements, savepoint, type Db } from '../../../db/client.ts';
import { content, PLATFORMS } from '../../../db/schema/index.ts';
import { inNextCommit } from '../batch.ts';
import type { ContentRow } from '../content/serialize.ts';
import type { Runtime } from '../context.ts';
import { platformAccountsOf, unavailableAccountReason } from '../social-accounts/operations.ts';
import { HELD_UNDER_LEASE, type Claim } from './claim.ts';
import type { Connectors, PlatformConnector, PlatformPost, PublishOutcome, PublishTarget } from './connector.ts';
import { attemptsOf, finishRun, recordAttempt, settleAttempt, UNKNOWN_OUTCOME } from './finish.ts';
import { composePost } from './post.ts';

interface PlatformCall {
  attemptId: string;
  connector: PlatformConnector;
  post: PlatformPost;
  target: PublishTarget;
}

export type FanOutResult = 'published' | 'failed' | 'lease_lost';

/**
 * Publishes one claimed item to every target platform. Three steps, each
 * committed before the next: (1) decide every platform and record each attempt, as `pending` for
 * the platforms about to be called (so a crash leaves a trace) or `rejected` for those refused
 * here; (2) call the platforms at once, with a deadline, recording each answer as it comes;
 * (3) finish the item. A reclaimed item keeps its recorded outcomes, reports attempts its dead holder left
 * pending as unknown (never calls those platforms again) and only calls platforms never tried.
 * Every write checks the lease first: a holder that lost it stops without writing.
 */
export async function fanOut(runtime: Runtime, connectors: Connectors, claim: Claim): Promise<FanOutResult> {
  const { db, clock, outcomes } = runtime;
  const prepared = await inCommit(db, () => {
    const item = heldItem(db, claim);
    if (!item) return null;
    const now = clock.now();
    const tried = settleLeftovers(db, claim, now);
    const calls: PlatformCall[] = [];
    const accountFor = platformAccountsOf(db, item.workspaceId);
    for (const platform of item.targetPlatforms) {
      if (tried.has(platform)) continue;
      const attempt = { runId: claim.runId, workspaceId: item.workspaceId, contentId: item.id, platform, at: now };
      const connector = connectors.get(platform);
      if (!connector) {
        const error = `Unknown platform "${platform}": the known platform ids are ${PLATFORMS.join(', ')}.`;
        recordAttempt(db, { ...attempt, socialAccountId: null, status: 'rejected', error });
        continue;
      }
      const lookup = accountFor(platform);
      const socialAccountId = lookup.state === 'none' ? null : lookup.account.id;
      const post = composePost(item, connector.platform);
      const refusal = unavailableAccountReason(platform, lookup) ?? validate(connector, post);
      if (refusal || lookup.state !== 'active') {
        recordAttempt(db, { ...attempt, socialAccountId, status: 'rejected', error: refusal });
        continue;
      }
      const attemptId = recordAttempt(db, { ...attempt, socialAccountId, status: 'pending', error: null });
      const account = { platformUserId: lookup.account.platformUserId, username: lookup.account.username };
      calls.push({ attemptId, connector, post, target: { account, attemptId } });
    }
    if (calls.length === 0) return { calls, finished: finishRun(db, item, claim.runId, now) };
    return { calls, finished: null };
  });
  if (!prepared) return 'lease_lost';
  if (prepared.finished) return reportRun(runtime, prepared.finished);

  // Each answer is recorded as soon as it comes (a crash then loses only the calls still out).
  const timeoutMs = runtime.config.publishing.platformTimeoutSeconds * 1000;
  const held = await Promise.all(
    prepared.calls.map(async (call) => {
      const outcome = await callPlatform(call, timeoutMs);
      const recorded = await inCommit(db, () => {
        if (!holdsLease(db, claim)) return false;
        const now = clock.now();
        if (outcome === null) settleAttempt(db, call.attemptId, { status: 'unknown', error: UNKNOWN_OUTCOME }, now);
        else if (outcome.status === 'published')
          settleAttempt(db, call.attemptId, { status: 'published', platformPostId: outcome.platformPostId }, now);
        else settleAttempt(db, call.attemptId, { status: 'rejected', error: outcome.error }, now);
        return true;
      });
      if (recorded)
        outcomes.report({
          kind: 'platform_call',
          platform: call.connector.platform,
          result: outcome?.status ?? 'unknown',
        });
      return recorded;
    }),
  );
  if (!held.every(Boolean)) return 'lease_lost';

  return reportRun(
    runtime,
    await inCommit(db, () => {
      const item = heldItem(db, claim);
      if (!item) return 'lease_lost' as const;
      return finishRun(db, item, claim.runId, clock.now());
    }),
  );
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
  const result = await inCommit(db, () => {
    const item = heldItem(db, claim);
    if (!item) return 'lease_lost' as const;
    const now = clock.now();
    const tried = settleLeftovers(db, claim, now);
    for (const platform of item.targetPlatforms) {
      if (tried.has(platform)) continue;
      recordAttempt(db, {
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
    return finishRun(db, item, claim.runId, now);
  });
  return reportRun(runtime, result);
}

/** Group-committed, in a savepoint: a step that throws leaves nothing half-written (batch.ts). */
const inCommit = <T>(db: Db, work: () => T): Promise<T> => inNextCommit(db, () => savepoint(db, work));

/**
 * The platforms this run already tried; attempts a dead holder left pending are reported unknown,
 * never called again.
 */
function settleLeftovers(db: Db, claim: Claim, now: Date): Set<string> {
  const tried = new Set<string>();
  for (const attempt of attemptsOf(db, claim.runId)) {
    tried.add(attempt.platform);
    if (attempt.status === 'pending') settleAttempt(db, attempt.id, { status: 'unknown', error: UNKNOWN_OUTCOME }, now);
  }
  return tried;
}

/** A connector's rules, where a throw is a refusal with its message rather than a failed run. */
function validate(connector: PlatformConnector, post: PlatformPost): string | null {
  try {
    return connector.validate(post);
  } catch (error) {
    return `${connector.platform}: the post could not be checked (${error instanceof Error ? error.message : String(error)})`;
  }
}

/** The platform's answer, or null when none came in time or the call failed without one. */
async function callPlatform(call: PlatformCall, timeoutMs: number): Promise<PublishOutcome | null> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  try {
    return await Promise.race([call.connector.publish(call.post, call.target), deadline]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** The item, if this claim still holds its lease. */
function heldItem(db: Db, claim: Claim): ContentRow | undefined {
  return statements(db).held.get({ id: claim.contentId, leaseToken: claim.leaseToken });
}

function holdsLease(db: Db, claim: Claim): boolean {
  return statements(db).holds.get({ id: claim.contentId, leaseToken: claim.leaseToken }) !== undefined;
}

const statements = preparedStatements((db) => ({
  holds: db.select({ id: content.id }).from(content).where(HELD_UNDER_LEASE).prepare(),
  held: db.select().from(content).where(HELD_UNDER_LEASE).prepare(),
}));
