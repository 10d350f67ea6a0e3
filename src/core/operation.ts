import { z } from 'zod';
import { savepoint } from '../../db/client.ts';
import { autocommit, inNextCommit } from './batch.ts';
import type { Bucket } from './config.ts';
import type { ServiceContext } from './context.ts';
import type { OAuthScope } from './oauth/metadata.ts';
import type { Role } from '../../db/schema/index.ts';
import { assertScope } from './oauth/scopes.ts';
import { assertRole } from './people/roles.ts';
import {
  RateLimitError,
  ServiceError,
  fieldError,
  validationError,
  type ErrorCode,
  type RateLimitState,
} from './errors.ts';
import { consumeRateLimit } from './rate-limits.ts';

/**
 * The codes an operation itself can answer, beyond those every call of its kind can meet
 * (authentication, rate limits, a malformed input, an unknown id), each with when it happens, said
 * to the caller: the REST document lists the codes, and each tool's description is given an
 * "Errors: code (when), …" sentence made from them.
 */
export type OperationErrors = Partial<Record<ErrorCode, string>>;

/**
 * One operation per endpoint, called the same way from every door. The descriptor carries its whole
 * contract, so the doors treat it alike: the rate-limit buckets it takes from, its input schema
 * (REST validates bodies and queries with it; MCP advertises it as the tool's inputSchema), its
 * output schema (the REST success body, the tool's outputSchema) and the errors it can answer.
 */
export interface Operation<Input extends z.ZodObject = z.ZodObject, Output = unknown, Preview = unknown> {
  name: string;
  buckets: readonly Bucket[];
  /**
   * The OAuth scope a credential needs to run it (read, write or publish), declared rather than read
   * from `buckets`: a campaign launch takes only from the write bucket but needs `publish`.
   */
  scope: OAuthScope;
  /** The role a person needs, where its scope does not say it (see requiredRole in people/roles.ts). */
  role?: Role;
  input: Input;
  /** What a success answers; defineOperation checks it against what `run` returns. */
  output: z.ZodType;
  /** The codes it answers itself, in the order a caller should read them; see OperationErrors. */
  errors: OperationErrors;
  /** False only where a workspace must be answered despite its plan (GET /me). */
  planChecks?: boolean;
  /** Overrides how a schema failure is reported (the brand profile splits 400 and 422). */
  invalidInput?: (error: z.ZodError) => Error;
  /**
   * Runs inside the request's group commit, so it awaits only the database (db/engine/store.ts),
   * unless the operation `awaitsNetwork`.
   */
  run(ctx: ServiceContext, input: z.output<Input>): Output;
  /**
   * Set by an operation that must wait on the network (a webhook's DNS check, a test delivery) or
   * on the file system after its write (removing a deleted file): it runs outside any group commit,
   * after its rate-limit take has committed on its own, and puts its writes in `inNextCommit`
   * itself, so no unit is held open across the wait.
   */
  awaitsNetwork?: true;
  /**
   * What answers the same input with `dry_run: true` (the publish preview): run instead of this one,
   * with its own buckets, so a dry run takes nothing this operation's buckets would (see operationFor).
   */
  dryRun?: Operation<Input, Preview>;
}

/**
 * Every value the output schema describes must be one `run`'s result type allows, so a field the
 * serializer adds or retypes without the schema does not compile; a documented field it leaves out
 * fails the response checks of the REST tests and the outputSchema checks of the MCP tests.
 */
export const defineOperation = <Input extends z.ZodObject, Output, OutputSchema extends z.ZodType, Preview = never>(
  operation: Omit<Operation<Input, Output, Preview>, 'output' | 'errors'> & {
    output: OutputSchema &
      ([z.output<OutputSchema>] extends [Awaited<Output>]
        ? unknown
        : 'the output schema does not describe what the operation returns');
    errors?: OperationErrors;
  },
): Operation<Input, Output, Preview> => ({ ...operation, errors: operation.errors ?? {} });

/** The codes of `errors`, in their order. */
export const operationErrorCodes = (operation: Pick<Operation, 'errors'>): ErrorCode[] =>
  Object.keys(operation.errors) as ErrorCode[];

/** Everything a success can answer: the output, or with a dry run either it or the dry run's output. */
export const answerSchema = (operation: Operation): z.ZodType =>
  operation.dryRun ? z.union([operation.output, operation.dryRun.output]) : operation.output;

/**
 * The operation that answers `raw`: the dry run's, when the operation has one and the input carries
 * `dry_run` other than false or null, else the operation itself. Read from the raw input, before validation,
 * because the buckets are taken first; a malformed dry_run (`"yes"`) is thus refused as a dry run,
 * never counted as the real call.
 */
export function operationFor<Input extends z.ZodObject, Output, Preview>(
  operation: Operation<Input, Output, Preview>,
  raw: unknown,
): Operation<Input, Output> | Operation<Input, Preview> {
  if (!operation.dryRun || typeof raw !== 'object' || raw === null || Array.isArray(raw)) return operation;
  const { dry_run: dryRun } = raw as { dry_run?: unknown };
  return dryRun === undefined || dryRun === null || dryRun === false ? operation : operation.dryRun;
}

/**
 * No input field needs more than a few levels of nesting; refusing deeper input up front keeps
 * every walk over it (validation, the idempotency fingerprint) far from the stack limit.
 */
export const MAX_INPUT_DEPTH = 32;

/** Refuses input (a body, tool arguments) nested more than MAX_INPUT_DEPTH levels deep, as invalid_body. */
export function assertInputDepth(raw: unknown): void {
  const exceeds = (value: unknown, levelsLeft: number): boolean => {
    if (typeof value !== 'object' || value === null) return false;
    if (levelsLeft === 0) return true;
    for (const child of Object.values(value)) if (exceeds(child, levelsLeft - 1)) return true;
    return false;
  };
  if (exceeds(raw, MAX_INPUT_DEPTH)) {
    const message = `The input is nested more than ${MAX_INPUT_DEPTH} levels deep.`;
    throw new ServiceError('invalid_body', `The request is invalid: ${message}`, {
      formErrors: [message],
      fieldErrors: {},
    });
  }
}

/**
 * Refuses validated input holding the NUL character in a string or a key, as invalid_body on the
 * field. No field means anything by it, and PostgreSQL cannot store it in text: refused here, it
 * is one clear error on both engines instead of a database failure on one. After validation, so a
 * field that refuses control characters itself (an email) answers in its own words.
 */
export function assertNoNulCharacter(input: unknown): void {
  const nulAt = (value: unknown, path: string[]): string[] | undefined => {
    if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
    if (typeof value !== 'object' || value === null) return undefined;
    for (const [key, child] of Object.entries(value)) {
      if (key.includes('\u0000')) return [...path, key];
      const found = nulAt(child, [...path, key]);
      if (found) return found;
    }
    return undefined;
  };
  const found = nulAt(input, []);
  if (!found) return;
  const message = 'must not contain the NUL character (U+0000)';
  if (found.length === 0) throw new ServiceError('invalid_body', `The request is invalid: the input ${message}.`);
  throw fieldError(found.map((part) => part.replaceAll('\u0000', '\\0')).join('.'), message);
}

/** Validates raw input (a body, a query, tool arguments) and runs the operation on it (or its dry run: operationFor). */
export async function runOperation<Input extends z.ZodObject, Output, Preview = never>(
  operation: Operation<Input, Output, Preview>,
  ctx: ServiceContext,
  raw: unknown,
): Promise<Awaited<Output | Preview>> {
  assertInputDepth(raw);
  const chosen = operationFor(operation, raw);
  // Every door runs operations here, so a credential's scopes and a person's role are checked once
  // for all of them.
  assertScope(ctx.scopes, chosen);
  assertRole(ctx.principal, chosen);
  const parsed = chosen.input.safeParse(raw ?? {});
  if (!parsed.success) throw (chosen.invalidInput ?? validationError)(parsed.error);
  assertNoNulCharacter(parsed.data);
  return (await chosen.run(ctx, parsed.data)) as Awaited<Output | Preview>;
}

/**
 * How every door runs an operation for a request: take from the rate-limit buckets and run it, as
 * part of the next group commit (see batch.ts). A write runs with its take in a savepoint; when it
 * fails, both roll back and the failed request is then counted on its own (a failed request still
 * counts; only a 429 consumes nothing). A read takes, then reads. An operation that awaits the
 * network takes in a commit of its own, then runs outside it. `onRateLimit` hears the bucket
 * state, so a door can report it whether the operation succeeds or fails.
 */
export async function executeOperation<Input extends z.ZodObject, Output, Preview = never>(
  ctx: ServiceContext,
  operation: Operation<Input, Output, Preview>,
  raw: unknown,
  onRateLimit?: (state: RateLimitState) => void,
): Promise<Awaited<Output | Preview>> {
  const chosen = operationFor(operation, raw);
  if (chosen.awaitsNetwork) {
    await autocommit(ctx.db, () => takeFor(ctx, chosen.buckets, onRateLimit));
    return runOperation(operation, ctx, raw);
  }
  // A read's take and reads each stand alone; a write's take must commit with its writes.
  const commit = isReadOnly(chosen.buckets) ? autocommit : inNextCommit;
  return commit(ctx.db, () => runInCommit(ctx, operation, raw, onRateLimit));
}

/** Whether an operation taking from `buckets` only reads (every door's reads take from `read` alone). */
const isReadOnly = (buckets: readonly Bucket[]): boolean => buckets.every((bucket) => bucket === 'read');

async function takeFor(
  ctx: ServiceContext,
  buckets: readonly Bucket[],
  onRateLimit: ((state: RateLimitState) => void) | undefined,
): Promise<void> {
  const state = await consumeRateLimit(ctx, ctx.workspace.id, buckets);
  onRateLimit?.(state);
}

/**
 * executeOperation's part inside the group commit, for a caller already in it that writes more in
 * the same transaction (a keyed call stores its answer beside the operation's writes).
 */
export async function runInCommit<Input extends z.ZodObject, Output, Preview = never>(
  ctx: ServiceContext,
  operation: Operation<Input, Output, Preview>,
  raw: unknown,
  onRateLimit?: (state: RateLimitState) => void,
): Promise<Awaited<Output | Preview>> {
  // A dry run takes from its own buckets (a publish preview from `read`, never `publish`).
  const { buckets } = operationFor(operation, raw);
  if (isReadOnly(buckets)) {
    // A read changes nothing, so it runs beside its take (one round trip on PostgreSQL, not two)
    // and its answer is dropped when the take refuses: a 429 still wins over the read's own error.
    const [take, read] = await Promise.allSettled([
      takeFor(ctx, buckets, onRateLimit),
      runOperation(operation, ctx, raw),
    ]);
    if (take.status === 'rejected') throw take.reason;
    if (read.status === 'rejected') throw read.reason;
    return read.value;
  }
  try {
    return await savepoint(ctx.db, async () => {
      await takeFor(ctx, buckets, onRateLimit);
      return runOperation(operation, ctx, raw);
    });
  } catch (error) {
    if (!(error instanceof RateLimitError)) await takeFor(ctx, buckets, onRateLimit);
    throw error;
  }
}
