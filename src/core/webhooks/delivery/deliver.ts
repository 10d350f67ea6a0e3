import type { Runtime } from '../../context.ts';
import { boundedMemo } from '../../bounded-memo.ts';
import { newDeliveryId } from '../delivery-log.ts';
import { envelopeBody, signedHeaders } from '../envelope.ts';
import { decryptSecret } from '../../secrets.ts';
import { postWebhook, type AttemptResult } from '../transport.ts';
import type { DeliveryClaim, DeliveryOutcome } from './claim.ts';
import { isDelivered } from './policy.ts';
import { recordInNextCommit, type Attempt } from './record-attempt.ts';

/** Deliveries one slot makes in a row to the same subscription before going back to the worker. */
const CHAIN_LENGTH = 100;

/**
 * Makes a delivery and, in the same slot, its subscription's next due ones: each attempt is signed
 * afresh and recorded with one log row (`delivered`; `pending_retry` with the next attempt
 * scheduled; or `failed` after the last attempt, dead-lettered), and the subscription auto-disabled
 * on its fifth failed attempt in an hour. Returns the last attempt's outcome. When `stopping` is
 * aborted (the process is shutting down), the attempt in flight is cut short and its job handed
 * back to the queue unrecorded, to be made again (delivery is at least once).
 */
export async function deliver(
  runtime: Runtime,
  first: DeliveryClaim,
  stopping?: AbortSignal,
): Promise<DeliveryOutcome> {
  let claim: DeliveryClaim | null = first;
  let outcome: DeliveryOutcome = 'lease_lost';
  // The slot goes straight on to the subscription's next due job, handed out in the commit that
  // records this attempt: no pass between two deliveries. Bounded, so the worker still rebalances
  // its slots between subscriptions.
  for (let made = 1; claim; made++) {
    const attempt = await attemptDelivery(runtime, claim, stopping);
    if (stopping?.aborted && !isDelivered(attempt.result)) return handBack(claim);
    ({ outcome, next: claim } = await recordInNextCommit(runtime, attempt, made < CHAIN_LENGTH && !stopping?.aborted));
    reportAttempt(runtime, outcome);
  }
  return outcome;
}

/** One attempt. A failure of our own (a secret that no longer decrypts, a bug) is a failed attempt too. */
async function attemptDelivery(
  runtime: Runtime,
  claim: DeliveryClaim,
  signal: AbortSignal | undefined,
): Promise<Attempt> {
  const { config, clock } = runtime;
  const deliveryId = newDeliveryId();
  const sentAt = clock.now();
  const { url, secretCiphertext } = claim.queue;
  try {
    const body = envelopeBody(claim.event, deliveryId, claim.attempt);
    const headers = signedHeaders(secretOf(runtime, secretCiphertext), claim.event.id, body, sentAt);
    const result = await postWebhook(url, body, headers, {
      timeoutMs: config.webhooks.timeoutMs,
      allowPrivateUrls: config.webhooks.allowPrivateUrls,
      signal,
    });
    return { claim, deliveryId, sentAt, result };
  } catch (cause) {
    return { claim, deliveryId, sentAt, result: internalError(cause) };
  }
}

const internalError = (cause: unknown): AttemptResult => ({
  statusCode: 0,
  responseBody: null,
  durationMs: 0,
  error: `internal error: ${cause instanceof Error ? cause.message : String(cause)}`,
});

/** Decrypted once per stored value (a rotation stores a new one); AES-GCM per attempt was measurable. */
const decryptedSecrets = boundedMemo<string>(10_000);
const secretOf = (runtime: Runtime, ciphertext: string): string =>
  decryptedSecrets(ciphertext, () => decryptSecret(runtime.config, ciphertext));

/**
 * Finishes a claim whose `deliver` threw (recording an attempt failed: a bug, a database error) with
 * a failed attempt, so the retry ladder and the dead letter still apply. When even that fails, the
 * job is let go of: still queued, it is handed out again (at least once).
 */
export async function abandonDelivery(
  runtime: Runtime,
  claim: DeliveryClaim,
  cause: unknown,
): Promise<DeliveryOutcome> {
  try {
    const attempt = { claim, deliveryId: newDeliveryId(), sentAt: runtime.clock.now(), result: internalError(cause) };
    const { outcome } = await recordInNextCommit(runtime, attempt, false);
    reportAttempt(runtime, outcome);
    return outcome;
  } catch (error) {
    claim.queue.inHand.delete(claim.jobId);
    throw error;
  }
}

/**
 * An attempt cut short by the shutdown is not recorded: its job, still queued, is let go of, and the
 * subscription is given back when the worker has stopped (releaseHeldDeliveries), so it is sent again.
 */
function handBack(claim: DeliveryClaim): DeliveryOutcome {
  claim.queue.inHand.delete(claim.jobId);
  return 'handed_back';
}

/** Tells the outcome listeners about a recorded attempt, by its delivery-log status. */
function reportAttempt(runtime: Runtime, outcome: DeliveryOutcome): void {
  const status =
    outcome === 'delivered'
      ? 'delivered'
      : outcome === 'retry'
        ? 'pending_retry'
        : outcome === 'dead'
          ? 'failed'
          : null;
  if (status) runtime.outcomes.report({ kind: 'webhook_delivery', status });
}
