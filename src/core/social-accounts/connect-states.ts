/**
 * The pending OAuth connections: one row per authorize URL handed out, keyed by the SHA-256 of its
 * `state` (the state itself is never stored, so a database reader cannot finish someone's
 * connection), bound to the workspace that asked, holding the PKCE verifier encrypted. A state is
 * good for 15 minutes and once: the callback deletes the row as it reads it.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { eq, lte } from 'drizzle-orm';
import { oauthConnectStates, type Platform } from '../../../db/schema/index.ts';
import type { Runtime } from '../context.ts';
import { decryptSecret, encryptSecret } from '../secrets.ts';

export const CONNECT_STATE_TTL_MS = 15 * 60 * 1000;

/** 256 bits each: far past guessing. A verifier of 32 bytes is 43 base64url characters, within RFC 7636's 43 to 128. */
const STATE_BYTES = 32;
const VERIFIER_BYTES = 32;
/** Ours are 43 characters; anything much longer is not one of ours and is not worth hashing. */
const MAX_STATE_LENGTH = 128;

const sha256 = (text: string) => createHash('sha256').update(text).digest();
const stateHash = (state: string) => sha256(state).toString('hex');

export interface NewConnectState {
  state: string;
  /** The PKCE S256 challenge, when the platform takes PKCE. */
  codeChallenge?: string;
  expiresAt: Date;
}

type StateRuntime = Pick<Runtime, 'db' | 'config' | 'clock'>;

/** Makes and stores a fresh state (and, with `pkce`, a verifier whose challenge goes into the authorize URL). */
export async function createConnectState(
  runtime: StateRuntime,
  request: {
    workspaceId: string;
    platform: Platform;
    returnUrl: string | null;
    pkce: boolean;
    /** The dashboard session that started it, when a signed-in person did (see ConsumedConnectState). */
    sessionHash?: string | null;
  },
): Promise<NewConnectState> {
  const now = runtime.clock.now();
  const state = randomBytes(STATE_BYTES).toString('base64url');
  const verifier = request.pkce ? randomBytes(VERIFIER_BYTES).toString('base64url') : null;
  const expiresAt = new Date(now.getTime() + CONNECT_STATE_TTL_MS);
  await runtime.db
    .insert(oauthConnectStates)
    .values({
      stateHash: stateHash(state),
      workspaceId: request.workspaceId,
      platform: request.platform,
      codeVerifierEncrypted: verifier === null ? null : encryptSecret(runtime.config, verifier),
      returnUrl: request.returnUrl,
      sessionHash: request.sessionHash ?? null,
      expiresAt,
      createdAt: now,
    })
    .run();
  return {
    state,
    ...(verifier !== null && { codeChallenge: sha256(verifier).toString('base64url') }),
    expiresAt,
  };
}

export interface ConsumedConnectState {
  workspaceId: string;
  platform: Platform;
  codeVerifier: string | null;
  returnUrl: string | null;
  expiresAt: Date;
  /** The accounts a login offered (JSON, decrypted), when the state was parked for confirmation. */
  choices: string | null;
  /** SHA-256 of the confirmation token of the browser that brought the code, with `choices`. */
  confirmationHash: string | null;
  /**
   * SHA-256 of the dashboard session that started the connection, or null for one started by an API
   * key, a tool or the CLI. A callback arriving with that same live session needs no confirmation.
   */
  sessionHash: string | null;
}

export type ConsumeResult = { ok: true; pending: ConsumedConnectState } | { ok: false; reason: 'unknown' | 'expired' };

/**
 * Takes a state for good: one DELETE … RETURNING, so of two callbacks racing with the same state only
 * one gets it. A state made for another platform's callback is taken too (it is spent either way) but
 * answered as unknown; an expired one as expired.
 */
export async function consumeConnectState(
  runtime: StateRuntime,
  platform: string,
  state: unknown,
): Promise<ConsumeResult> {
  if (typeof state !== 'string' || state === '' || state.length > MAX_STATE_LENGTH)
    return { ok: false, reason: 'unknown' };
  const row = await runtime.db
    .delete(oauthConnectStates)
    .where(eq(oauthConnectStates.stateHash, stateHash(state)))
    .returning()
    .get();
  if (!row || row.platform !== platform) return { ok: false, reason: 'unknown' };
  if (row.expiresAt.getTime() <= runtime.clock.now().getTime()) return { ok: false, reason: 'expired' };
  return {
    ok: true,
    pending: {
      workspaceId: row.workspaceId,
      platform: row.platform,
      codeVerifier:
        row.codeVerifierEncrypted === null ? null : decryptSecret(runtime.config, row.codeVerifierEncrypted),
      returnUrl: row.returnUrl,
      expiresAt: row.expiresAt,
      choices: row.choicesEncrypted === null ? null : decryptSecret(runtime.config, row.choicesEncrypted),
      confirmationHash: row.confirmationHash,
      sessionHash: row.sessionHash,
    },
  };
}

/**
 * Puts a consumed state back, holding the accounts its login offered (encrypted: they carry tokens),
 * until the confirmation form posts back with the same state. It keeps its first expiry: the whole
 * connection, confirmation included, is good for 15 minutes. Answers a fresh confirmation token, which
 * binds the parked state to the browser it is given to (any earlier token stops working).
 */
export async function parkConnectState(
  runtime: StateRuntime,
  state: string,
  pending: ConsumedConnectState,
  choices: string,
): Promise<string> {
  const confirmation = randomBytes(STATE_BYTES).toString('base64url');
  await storeParked(runtime, state, { ...pending, choices, confirmationHash: stateHash(confirmation) });
  return confirmation;
}

/** Puts a parked state back exactly as it was taken: a refused confirmation spends nothing. */
export async function restoreConnectState(
  runtime: StateRuntime,
  state: string,
  pending: ConsumedConnectState,
): Promise<void> {
  await storeParked(runtime, state, pending);
}

async function storeParked(runtime: StateRuntime, state: string, pending: ConsumedConnectState): Promise<void> {
  await runtime.db
    .insert(oauthConnectStates)
    .values({
      stateHash: stateHash(state),
      workspaceId: pending.workspaceId,
      platform: pending.platform,
      codeVerifierEncrypted: null,
      returnUrl: pending.returnUrl,
      choicesEncrypted: pending.choices === null ? null : encryptSecret(runtime.config, pending.choices),
      confirmationHash: pending.confirmationHash,
      sessionHash: pending.sessionHash,
      expiresAt: pending.expiresAt,
      createdAt: runtime.clock.now(),
    })
    .run();
}

/** Whether `token` is the confirmation token the parked state was bound to (compared by hash, in constant time). */
export function confirmationMatches(pending: ConsumedConnectState, token: unknown): boolean {
  if (pending.confirmationHash === null || typeof token !== 'string' || token.length > MAX_STATE_LENGTH) return false;
  return timingSafeEqual(Buffer.from(stateHash(token)), Buffer.from(pending.confirmationHash));
}

/** Maintenance: removes the states nobody came back with. Answers how many went. */
export async function pruneExpiredConnectStates(runtime: Pick<Runtime, 'db' | 'clock'>): Promise<number> {
  return (
    await runtime.db.delete(oauthConnectStates).where(lte(oauthConnectStates.expiresAt, runtime.clock.now())).run()
  ).changes;
}
