import { and, eq, lt } from 'drizzle-orm';
import { createHash, createHmac } from 'node:crypto';
import { z } from 'zod';
import { writeTransaction } from '../../db/client.ts';
import { idempotencyKeys } from '../../db/schema/index.ts';
import type { Runtime, ServiceContext } from './context.ts';
import { fieldError, ServiceError, type RateLimitState } from './errors.ts';
import { inNextCommit } from './batch.ts';
import { assertInputDepth, executeOperation, operationFor, runInCommit, type Operation } from './operation.ts';
import { consumeRateLimit } from './rate-limits.ts';
import { decryptSecret, derivedKey, encryptSecret, type SecretsConfig } from './secrets.ts';

/**
 * Idempotency-Key (a REST header, or a creating tool's idempotency_key argument): the same key and
 * the same call within 24 hours replays the stored answer, whichever door made either.
 */
const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** A first request that never finished (its process died) stops blocking the key after this. */
const ABANDONED_AFTER_MS = 2 * 60 * 1000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** The `idempotency_key` argument of a creating tool, as its inputSchema advertises it. */
export const IdempotencyKeyArgument = z
  .string()
  .min(1)
  .max(MAX_IDEMPOTENCY_KEY_LENGTH)
  .describe("Optional: a UUID that makes a retry safe, as REST's Idempotency-Key (see the server's instructions).");

/**
 * The tool argument read: a key, none (absent or null, as agents send optional fields), or an
 * invalid_body naming the argument. Its length is checked with the header's, when the key is claimed.
 */
export function idempotencyKeyArgument(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    throw fieldError(
      'idempotency_key',
      `idempotency_key must be a string of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`,
    );
  }
  return value;
}

/**
 * An answer as stored: a result, or the error envelope `{ error: { code, … } }`. REST stores its
 * status; a tool call, having none, stores TOOL_CALL_STATUS. Neither door replays the stored status
 * as such: REST answers a result with the route's status and an error with its code's, so an answer
 * replays alike through both doors.
 */
export interface StoredResponse {
  status: number;
  body: unknown;
}

export const TOOL_CALL_STATUS = { result: 200, error: 400 } as const;

/** Whether a stored answer is an error (its body the error envelope). */
export const isStoredError = (response: StoredResponse): boolean => response.status >= 400;

/**
 * One keyed call, as either door sees it: the operation and its whole input (a REST body with the
 * path's ids, or a tool's arguments without the key). The fingerprint is taken over these, so the
 * same call made over REST and then as a tool replays.
 */
export interface IdempotentCall {
  workspaceId: string;
  key: string;
  /** How the caller sent the key, for the message of a bad one: the header or the tool argument. */
  keyField: 'Idempotency-Key' | 'idempotency_key';
  operation: string;
  input: unknown;
}

/** JSON with every object's keys sorted: the same input, whatever order a client wrote its fields in. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, child: unknown) =>
    typeof child === 'object' && child !== null && !Array.isArray(child)
      ? Object.fromEntries(Object.entries(child).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : child,
  );
}

/**
 * What the fingerprint is taken over: the operation and its whole input, secrets included (a Bluesky
 * app password), so a retry with another password is another request.
 */
const fingerprintText = (call: IdempotentCall): string => `${call.operation}\n${canonicalJson(call.input)}`;

/**
 * The stored fingerprint: an HMAC-SHA256 under a key derived from the encryption key. A plain hash
 * of an input holding a secret, stored beside the account it connected, would let whoever reads the
 * database test guesses of the secret offline; without the key, the fingerprint tells nothing.
 */
const fingerprintOf = (config: SecretsConfig, call: IdempotentCall): string =>
  createHmac('sha256', derivedKey(config, 'idempotency-fingerprint')).update(fingerprintText(call)).digest('hex');

/**
 * The unkeyed SHA-256 that keys claimed before the fingerprint was keyed still carry: compared (never
 * stored again), so a retry across the upgrade replays instead of answering idempotency_key_reused.
 * Such rows are pruned with the rest within the 24-hour window.
 */
const unkeyedFingerprintOf = (call: IdempotentCall): string =>
  createHash('sha256').update(fingerprintText(call)).digest('hex');

const keyOf = (request: { workspaceId: string; key: string }) =>
  and(eq(idempotencyKeys.workspaceId, request.workspaceId), eq(idempotencyKeys.key, request.key));

/**
 * Claims the key for this request, or returns the stored answer to replay. Throws
 * idempotency_conflict while the first request is still running, and idempotency_key_reused when
 * the key came with another request.
 */
export async function claimIdempotencyKey(
  runtime: Runtime,
  request: IdempotentCall,
  now: Date = runtime.clock.now(),
): Promise<StoredResponse | null> {
  if (request.key.length === 0 || request.key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    const what = request.keyField === 'Idempotency-Key' ? 'The Idempotency-Key header' : 'idempotency_key';
    throw fieldError(request.keyField, `${what} must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`);
  }
  if (request.key.includes('\u0000')) throw fieldError(request.keyField, 'must not contain the NUL character (U+0000)');
  // Before the fingerprint, which walks the whole input.
  assertInputDepth(request.input);
  const fingerprint = fingerprintOf(runtime.config, request);
  const { db } = runtime;
  return writeTransaction(db, async () => {
    // Claimed by an insert that cannot race: of two requests with one new key, exactly one inserts
    // (on PostgreSQL the other waits for the first's transaction, then finds its row). A select
    // first and an insert after would let both find nothing and both run.
    const claimed = await db
      .insert(idempotencyKeys)
      .values({ workspaceId: request.workspaceId, key: request.key, fingerprint, createdAt: now })
      .onConflictDoNothing({ target: [idempotencyKeys.workspaceId, idempotencyKeys.key] })
      .returning({ key: idempotencyKeys.key })
      .get();
    if (claimed) return null;
    const existing = await db.select().from(idempotencyKeys).where(keyOf(request)).get();
    // Gone since the insert found it: its request released it (PostgreSQL; on SQLite the unit holds the writer).
    if (!existing) throw inProgress(request);
    const age = now.getTime() - existing.createdAt.getTime();
    const finished = existing.responseStatus != null;
    const live = finished ? age < REPLAY_WINDOW_MS : age < ABANDONED_AFTER_MS;
    if (!live) {
      // A stale row (replay window over, or its first request abandoned) is taken over only as it
      // was read: when another request took it over meanwhile, that one is now in progress.
      const takenOver = await db
        .update(idempotencyKeys)
        .set({ fingerprint, createdAt: now, responseStatus: null, responseBodyEncrypted: null, responseBody: null })
        .where(and(keyOf(request), eq(idempotencyKeys.createdAt, existing.createdAt)))
        .returning({ key: idempotencyKeys.key })
        .get();
      if (takenOver) return null;
      throw inProgress(request);
    }
    if (existing.fingerprint !== fingerprint && existing.fingerprint !== unkeyedFingerprintOf(request)) {
      throw new ServiceError(
        'idempotency_key_reused',
        `This ${request.keyField} was used with a different request; use a new key.`,
      );
    }
    if (!finished) throw inProgress(request);
    const body =
      existing.responseBodyEncrypted === null
        ? existing.responseBody
        : JSON.parse(decryptSecret(runtime.config, existing.responseBodyEncrypted));
    return { status: existing.responseStatus!, body };
  });
}

const inProgress = (request: IdempotentCall): ServiceError =>
  new ServiceError(
    'idempotency_conflict',
    `A request with this ${request.keyField} is still in progress; retry shortly.`,
  );

/**
 * A claimed key: with `claimedAt`, only the claim made then. A call that ran past ABANDONED_AFTER_MS
 * may have been taken over by a retry with the same key, whose row its answer must not overwrite or free.
 */
interface ClaimedKey {
  workspaceId: string;
  key: string;
  claimedAt?: Date;
}

const claimOf = (request: ClaimedKey) =>
  request.claimedAt ? and(keyOf(request), eq(idempotencyKeys.createdAt, request.claimedAt)) : keyOf(request);

/** Stores the answer to replay for the claimed key, its body encrypted (it may hold a secret shown once). */
export async function storeIdempotentResponse(
  runtime: Runtime,
  request: ClaimedKey,
  response: StoredResponse,
): Promise<void> {
  await runtime.db
    .update(idempotencyKeys)
    .set({
      responseStatus: response.status,
      responseBodyEncrypted: encryptSecret(runtime.config, JSON.stringify(response.body ?? null)),
    })
    .where(claimOf(request))
    .run();
}

/** Frees the key when the answer is not worth replaying (a 5xx or a 429): a retry should run anew. */
export async function releaseIdempotencyKey(runtime: Runtime, request: ClaimedKey): Promise<void> {
  await runtime.db.delete(idempotencyKeys).where(claimOf(request)).run();
}

/**
 * Runs a keyed call once: the first call with a key runs `run` and its answer is stored; a repeat of
 * the same call replays it (`replayed: true`, nothing run; `onReplay` then runs in its place). Client
 * errors are stored and replayed too (the same call would fail the same way; `failed` shapes them as
 * the door answers them); a 5xx or a 429 frees the key so a retry runs anew. Errors are rethrown
 * after they are stored. It all runs in the next group commit, so the claim, the operation's writes
 * and the stored answer are one write transaction; for an operation that awaits the network
 * (`outsideCommit`), the key is claimed in a commit of its own, the operation runs outside it, and
 * its answer is stored once it has settled.
 */
export async function runIdempotently(
  runtime: Runtime,
  call: IdempotentCall,
  run: () => Promise<StoredResponse>,
  failed: (error: ServiceError) => StoredResponse,
  onReplay: () => Promise<void> | void = () => {},
  outsideCommit = false,
): Promise<KeyedOutcome> {
  const scope = { workspaceId: call.workspaceId, key: call.key, claimedAt: runtime.clock.now() };
  const stored = async (response: StoredResponse) => {
    await storeIdempotentResponse(runtime, scope, response);
    return { replayed: false, response };
  };
  const refused = async (error: unknown): Promise<never> => {
    if (!(error instanceof ServiceError) || error.code === 'internal' || error.code === 'rate_limit_exceeded') {
      await releaseIdempotencyKey(runtime, scope);
    } else await storeIdempotentResponse(runtime, scope, failed(error));
    throw error;
  };
  const once = async (): Promise<KeyedOutcome | null> => {
    const replay = await claimIdempotencyKey(runtime, call, scope.claimedAt);
    if (!replay) return null;
    await onReplay();
    return { replayed: true, response: replay };
  };
  const runAndStore = async (): Promise<KeyedOutcome> => {
    let response: StoredResponse;
    try {
      response = await run();
    } catch (error) {
      return refused(error);
    }
    return stored(response);
  };
  if (outsideCommit) return (await inNextCommit(runtime.db, once)) ?? runAndStore();
  return inNextCommit(runtime.db, async () => (await once()) ?? runAndStore());
}

type KeyedOutcome = { replayed: boolean; response: StoredResponse };

/** A call's idempotency key as a door received it, and the input its fingerprint is taken over. */
export interface CallKey {
  key: string;
  keyField: IdempotentCall['keyField'];
  input: unknown;
}

/**
 * How every door runs an operation for a call that may carry an idempotency key: without one, or
 * for a dry run, it simply runs (a dry run changes nothing, so there is nothing to protect, and a
 * second preview must see the item as it is then); with one, it runs once (runIdempotently), and a
 * replay, which runs nothing, still counts on the buckets of the operation the call chose. `answer`
 * says how the door stores a success (its status) and a client error.
 */
export async function executeCall(
  ctx: ServiceContext,
  operation: Operation,
  raw: unknown,
  key: CallKey | undefined,
  onRateLimit: (state: RateLimitState) => void,
  answer: { status: number; failed: (error: ServiceError) => StoredResponse },
): Promise<{ replayed: boolean; response: StoredResponse }> {
  const chosen = operationFor(operation, raw);
  if (key === undefined || chosen !== operation) {
    const body = await executeOperation(ctx, operation, raw, onRateLimit);
    return { replayed: false, response: { status: answer.status, body } };
  }
  const call = { workspaceId: ctx.workspace.id, key: key.key, keyField: key.keyField, operation: operation.name };
  const awaitsNetwork = chosen.awaitsNetwork === true;
  const run = async (): Promise<StoredResponse> => ({
    status: answer.status,
    body: awaitsNetwork
      ? await executeOperation(ctx, operation, raw, onRateLimit)
      : await runInCommit(ctx, operation, raw, onRateLimit),
  });
  // A replay runs nothing but still counts on the buckets of the operation the call chose.
  return runIdempotently(
    ctx,
    { ...call, input: key.input },
    run,
    answer.failed,
    async () => onRateLimit(await consumeRateLimit(ctx, ctx.workspace.id, chosen.buckets)),
    awaitsNetwork,
  );
}

/** Drops stored answers past the replay window; called by the maintenance job. */
export async function pruneIdempotencyKeys(runtime: Runtime): Promise<number> {
  const cutoff = new Date(runtime.clock.now().getTime() - REPLAY_WINDOW_MS);
  return (await runtime.db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, cutoff)).run()).changes;
}
