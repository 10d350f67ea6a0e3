import { and, eq, lt } from 'drizzle-orm';
import { createHash } from 'node:crypto';
import { writeTransaction } from '../../db/client.ts';
import { idempotencyKeys } from '../../db/schema/index.ts';
import type { Runtime } from './context.ts';
import { fieldError, ServiceError } from './errors.ts';
import { assertInputDepth } from './operation.ts';

/** Idempotency-Key: the same key and body within 24 hours replays the stored answer. */
const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** A first request that never finished (its process died) stops blocking the key after this. */
const ABANDONED_AFTER_MS = 2 * 60 * 1000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export interface StoredResponse {
  status: number;
  body: unknown;
}

export interface IdempotentRequest {
  workspaceId: string;
  key: string;
  method: string;
  path: string;
  body: unknown;
}

const fingerprintOf = (request: IdempotentRequest): string =>
  createHash('sha256')
    .update(`${request.method} ${request.path}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex');

const keyOf = (request: { workspaceId: string; key: string }) =>
  and(eq(idempotencyKeys.workspaceId, request.workspaceId), eq(idempotencyKeys.key, request.key));

/**
 * Claims the key for this request, or returns the stored answer to replay. Throws
 * idempotency_conflict while the first request is still running, and idempotency_key_reused when
 * the key came with another request.
 */
export function claimIdempotencyKey(runtime: Runtime, request: IdempotentRequest): StoredResponse | null {
  if (request.key.length === 0 || request.key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw fieldError(
      'Idempotency-Key',
      `The Idempotency-Key header must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`,
    );
  }
  // Before the fingerprint, which walks the whole body.
  assertInputDepth(request.body);
  const now = runtime.clock.now();
  const fingerprint = fingerprintOf(request);
  const { db } = runtime;
  return writeTransaction(db, () => {
    const existing = db.select().from(idempotencyKeys).where(keyOf(request)).get();
    const age = existing ? now.getTime() - existing.createdAt.getTime() : Infinity;
    const finished = existing?.responseStatus != null;
    const live = existing && (finished ? age < REPLAY_WINDOW_MS : age < ABANDONED_AFTER_MS);
    if (existing && live) {
      if (existing.fingerprint !== fingerprint) {
        throw new ServiceError(
          'idempotency_key_reused',
          'This Idempotency-Key was used with a different request; use a new key.',
        );
      }
      if (!finished) {
        throw new ServiceError(
          'idempotency_conflict',
          'A request with this Idempotency-Key is still in progress; retry shortly.',
        );
      }
      return { status: existing.responseStatus!, body: existing.responseBody };
    }
    db.insert(idempotencyKeys)
      .values({ workspaceId: request.workspaceId, key: request.key, fingerprint, createdAt: now })
      .onConflictDoUpdate({
        target: [idempotencyKeys.workspaceId, idempotencyKeys.key],
        set: { fingerprint, createdAt: now, responseStatus: null, responseBody: null },
      })
      .run();
    return null;
  });
}

/** Stores the answer to replay for the claimed key. */
export function storeIdempotentResponse(
  runtime: Runtime,
  request: { workspaceId: string; key: string },
  response: StoredResponse,
): void {
  runtime.db
    .update(idempotencyKeys)
    .set({ responseStatus: response.status, responseBody: response.body })
    .where(keyOf(request))
    .run();
}

/** Frees the key when the answer is not worth replaying (a 5xx or a 429): a retry should run anew. */
export function releaseIdempotencyKey(runtime: Runtime, request: { workspaceId: string; key: string }): void {
  runtime.db.delete(idempotencyKeys).where(keyOf(request)).run();
}

/** Drops stored answers past the replay window; called by the maintenance job. */
export function pruneIdempotencyKeys(runtime: Runtime): number {
  const cutoff = new Date(runtime.clock.now().getTime() - REPLAY_WINDOW_MS);
  return runtime.db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, cutoff)).run().changes;
}
