import { and, eq, lte } from 'drizzle-orm';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { writeTransaction, type Db } from '../../../db/client.ts';
import {
  dataDeletionRequests,
  handledSignedRequests,
  socialAccounts,
  type Platform,
} from '../../../db/schema/index.ts';
import { PLATFORMS } from '../platforms/registry.ts';
import type { Runtime } from '../context.ts';
import { fieldError, ServiceError } from '../errors.ts';
import { recordEvent } from '../events/record-event.ts';
import { randomBase62 } from '../ids.ts';
import type { SocialAccountRow } from './serialize.ts';

/**
 * The platform operators' deauthorize and data-deletion callbacks, in Meta's format:
 * a form field `signed_request` = base64url(HMAC-SHA256 signature) `.` base64url(JSON payload), the
 * HMAC taken over the payload part as sent, keyed with the app secret of `<PLATFORM>_APP_SECRET`.
 */
export type CallbackKind = 'deauthorize' | 'data-deletion';

export interface PlatformCallback {
  /** As named in the URL; unknown or unconfigured platforms answer not_found. */
  platform: string;
  kind: CallbackKind;
  /** The raw form field; anything but a string is refused. */
  signedRequest: unknown;
}

/** `deauthorize`: Meta ignores the body of a 200; this says the callback was taken. */
export interface DeauthorizeAnswer {
  success: true;
}

/** `data-deletion`: Meta shows the user the URL and the code (its documented answer). */
export interface DataDeletionAnswer {
  url: string;
  confirmation_code: string;
}

export interface DataDeletionStatus {
  confirmation_code: string;
  platform: string;
  status: 'completed';
  accounts_removed: number;
  completed_at: string;
}

const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;
const SIGNATURE_BYTES = 32;
/**
 * How far a signed request's issued_at may be from the clock, either way. A request handled within
 * it is remembered as long as it could still be accepted, so neither callback takes it twice.
 */
export const SIGNED_REQUEST_WINDOW_MS = 10 * 60 * 1000;

/** A verified signed request: who it names, when it was issued, and its signature (what a replay repeats). */
export interface SignedRequest {
  userId: string;
  issuedAt: Date;
  signature: Buffer;
}

const invalid = (message: string) => fieldError('signed_request', message);

/** The app secret that signs this platform's callbacks; an unknown or unconfigured platform has no callbacks. */
function appSecretFor(runtime: Runtime, platform: string): { platform: Platform; secret: string } {
  const known = (PLATFORMS as readonly string[]).includes(platform) ? (platform as Platform) : undefined;
  const secret = known && runtime.config.appSecrets[known];
  if (!known || !secret) {
    throw new ServiceError(
      'not_found',
      known
        ? `No callbacks for ${known}: the platform is not configured (set ${known.toUpperCase()}_APP_SECRET).`
        : `No callbacks for platform "${platform}"; known platform ids: ${PLATFORMS.join(', ')}.`,
    );
  }
  return { platform: known, secret };
}

/**
 * Verifies a signed request: its signature first, so nothing an unsigned sender writes is ever
 * parsed; then its payload, whose issued_at must be within the window of `now` (an old request,
 * even a genuine one, is refused: it could be a replay).
 */
export function verifySignedRequest(signedRequest: unknown, secret: string, now: Date): SignedRequest {
  if (typeof signedRequest !== 'string' || signedRequest === '') {
    throw invalid('signed_request is required: send it form-encoded (application/x-www-form-urlencoded).');
  }
  const parts = signedRequest.split('.');
  if (parts.length !== 2 || !BASE64URL.test(parts[0]) || !BASE64URL.test(parts[1])) {
    throw invalid('signed_request is malformed: expected base64url(signature) "." base64url(payload).');
  }
  const [encodedSignature, encodedPayload] = parts;
  const signature = Buffer.from(encodedSignature, 'base64url');
  const expected = createHmac('sha256', secret).update(encodedPayload).digest();
  if (signature.length !== SIGNATURE_BYTES || !timingSafeEqual(signature, expected)) {
    throw invalid(
      "signed_request has a bad signature: it was not signed with this platform's app secret, or it was altered.",
    );
  }
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(encodedPayload, 'base64url').toString('utf8'));
  } catch {
    throw invalid('signed_request payload is not JSON.');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw invalid('signed_request payload is not a JSON object.');
  }
  const fields = payload as { algorithm?: unknown; user_id?: unknown; issued_at?: unknown };
  const { algorithm } = fields;
  if (algorithm !== undefined && (typeof algorithm !== 'string' || algorithm.toUpperCase() !== 'HMAC-SHA256')) {
    throw invalid(`signed_request algorithm ${JSON.stringify(algorithm)} is not supported; expected HMAC-SHA256.`);
  }
  const userId = userIdOf(fields.user_id);
  if (typeof fields.issued_at !== 'number' || !Number.isSafeInteger(fields.issued_at)) {
    throw invalid('signed_request payload has no valid issued_at (Unix seconds).');
  }
  const issuedAt = new Date(fields.issued_at * 1000);
  if (Math.abs(issuedAt.getTime() - now.getTime()) > SIGNED_REQUEST_WINDOW_MS) {
    throw invalid(
      `signed_request was issued at ${issuedAt.toISOString()}, more than ${SIGNED_REQUEST_WINDOW_MS / 60_000} minutes from now; it is refused as a possible replay.`,
    );
  }
  return { userId, issuedAt, signature };
}

function userIdOf(userId: unknown): string {
  // Platform ids can pass 2^53, where a JSON number has already lost digits: only safe integers pass as numbers.
  if (typeof userId === 'string' && /^\S{1,100}$/.test(userId)) return userId;
  if (typeof userId === 'number' && Number.isSafeInteger(userId) && userId > 0) return String(userId);
  throw invalid('signed_request payload has no valid user_id.');
}

/**
 * Remembers a signed request as handled, or refuses it when it already was (at either callback).
 * Called inside the transaction that acts on it, so a refused replay changes nothing, and two copies
 * racing cannot both pass. Requests too old to be accepted again are forgotten as new ones come.
 */
async function claimSignedRequest(db: Db, request: SignedRequest, now: Date): Promise<void> {
  await db.delete(handledSignedRequests).where(lte(handledSignedRequests.forgetAt, now)).run();
  const signatureHash = createHash('sha256').update(request.signature).digest('hex');
  const forgetAt = new Date(request.issuedAt.getTime() + SIGNED_REQUEST_WINDOW_MS);
  const claimed = (
    await db.insert(handledSignedRequests).values({ signatureHash, forgetAt }).onConflictDoNothing().run()
  ).changes;
  if (claimed === 0) throw invalid('signed_request was already handled; a platform sends each request once.');
}

async function matchingAccounts(db: Db, platform: Platform, platformUserId: string): Promise<SocialAccountRow[]> {
  return db
    .select()
    .from(socialAccounts)
    .where(and(eq(socialAccounts.platform, platform), eq(socialAccounts.platformUserId, platformUserId)))
    .all();
}

/**
 * One `social_account.disconnected` per affected workspace. A workspace holds at most one row per
 * platform user (unique index), so one event per row is one per workspace.
 */
async function recordDisconnections(
  db: Db,
  rows: SocialAccountRow[],
  reason: 'deauthorized' | 'data_deletion',
  at: Date,
): Promise<void> {
  for (const row of rows) {
    await recordEvent(db, {
      workspaceId: row.workspaceId,
      type: 'social_account.disconnected',
      data: {
        platform: row.platform,
        account: { id: row.id, platform_user_id: row.platformUserId, platform_username: row.username },
        reason,
      },
      at,
    });
  }
}

/**
 * Runs a deauthorize or data-deletion callback. A bad request, a stale one or a replay changes nothing. `deauthorize` marks
 * every active matching account `disconnected`, in every workspace; `data-deletion` removes every matching
 * row, active or not. The changes and their events commit together.
 */
export function handlePlatformCallback(
  runtime: Runtime,
  callback: PlatformCallback & { kind: 'deauthorize' },
): Promise<DeauthorizeAnswer>;
export function handlePlatformCallback(
  runtime: Runtime,
  callback: PlatformCallback & { kind: 'data-deletion' },
): Promise<DataDeletionAnswer>;
export function handlePlatformCallback(
  runtime: Runtime,
  callback: PlatformCallback,
): Promise<DeauthorizeAnswer | DataDeletionAnswer>;
export async function handlePlatformCallback(
  runtime: Runtime,
  callback: PlatformCallback,
): Promise<DeauthorizeAnswer | DataDeletionAnswer> {
  const { platform, secret } = appSecretFor(runtime, callback.platform);
  const { db } = runtime;
  const now = runtime.clock.now();
  const request = verifySignedRequest(callback.signedRequest, secret, now);
  return writeTransaction(db, async () => {
    await claimSignedRequest(db, request, now);
    const rows = await matchingAccounts(db, platform, request.userId);
    if (callback.kind === 'deauthorize') {
      const active = rows.filter((row) => row.isActive);
      for (const row of active)
        await db.update(socialAccounts).set({ status: 'disconnected' }).where(eq(socialAccounts.id, row.id)).run();
      await recordDisconnections(db, active, 'deauthorized', now);
      return { success: true };
    }
    for (const row of rows) await db.delete(socialAccounts).where(eq(socialAccounts.id, row.id)).run();
    await recordDisconnections(db, rows, 'data_deletion', now);
    const code = randomBase62(24);
    await db
      .insert(dataDeletionRequests)
      .values({ confirmationCode: code, platform, accountsRemoved: rows.length, completedAt: now })
      .run();
    return { url: dataDeletionStatusUrl(runtime, platform, code), confirmation_code: code };
  });
}

export const dataDeletionStatusUrl = (runtime: Runtime, platform: string, code: string): string =>
  `${runtime.config.publicBaseUrl}/callbacks/${platform}/data-deletion/${code}`;

/** The status page behind the URL a data-deletion callback answers; another platform's code is not found. */
export async function getDataDeletionRequest(db: Db, platform: string, code: string): Promise<DataDeletionStatus> {
  const notFound = () =>
    new ServiceError('not_found', `No ${platform} data deletion request with confirmation code ${code}.`);
  // Codes are base62 (see handlePlatformCallback): anything else, a NUL among it, is never looked up.
  if (!/^[0-9A-Za-z]{1,64}$/.test(code) || !/^[a-z]{1,32}$/.test(platform)) throw notFound();
  const row = await db
    .select()
    .from(dataDeletionRequests)
    .where(and(eq(dataDeletionRequests.confirmationCode, code), eq(dataDeletionRequests.platform, platform)))
    .get();
  if (!row) throw notFound();
  return {
    confirmation_code: row.confirmationCode,
    platform: row.platform,
    status: 'completed',
    accounts_removed: row.accountsRemoved,
    completed_at: row.completedAt.toISOString(),
  };
}
