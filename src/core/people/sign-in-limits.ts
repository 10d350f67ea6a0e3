import { and, count, eq, gt, isNull, lte, max, min, or } from 'drizzle-orm';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { writeTransaction } from '../../../db/client.ts';
import { signInFailures } from '../../../db/schema/index.ts';
import type { Runtime } from '../context.ts';
import { RateLimitError } from '../errors.ts';
import { derivedKey } from '../secrets.ts';
import { sha256Hex } from './users.ts';

/*
 * How sign-in guessing is slowed without locking the account's owner out (NIST 800-63B section
 * 5.2.2, OWASP's device cookies):
 * - Failures are counted per address and email pair. The first few are free; after them each attempt
 *   waits twice as long as the one before, from the latest failure, up to a ceiling. Another address
 *   is not slowed by them.
 * - A browser that signed in to an email before carries a device cookie for it. Its attempts at that
 *   email are counted per device instead, so a correct password from it still gets in while the
 *   account is guessed at from elsewhere, or from the same address (a proxy, a shared network).
 * - Attempts from browsers without one are also counted per email across every address (a slower
 *   start), against guessing spread over many addresses, and per address across every email, against
 *   one address trying a common password on many accounts.
 * An attempt is written before the password is checked and deleted when it succeeds, so attempts in
 * flight count: thirty concurrent guesses get the free ones and no more.
 */

/** Failures of one address and email pair (or of one device) before attempts are slowed. */
export const SIGN_IN_FREE_FAILURES = 5;
/** The wait after the first failure past the free ones; it doubles with each further failure... */
export const SIGN_IN_FIRST_DELAY_MS = 30 * 1000;
/** ...up to this. */
export const SIGN_IN_MAX_DELAY_MS = 15 * 60 * 1000;
/** Failures at one email from browsers without its device cookie, across addresses, before they are slowed alike. */
export const SIGN_IN_ACCOUNT_FREE_FAILURES = 50;
/** Failures from one address (without device cookies) across emails within the window... */
export const SIGN_IN_ADDRESS_FAILURES_ALLOWED = 30;
/** ...of this length, past which further attempts from it answer 429. */
export const SIGN_IN_ADDRESS_WINDOW_MS = 15 * 60 * 1000;
/** How long a failure is remembered. */
export const SIGN_IN_MEMORY_MS = 24 * 60 * 60 * 1000;
/** How long a device cookie vouches for a browser after its last sign-in. */
export const DEVICE_COOKIE_LIFETIME_MS = 180 * 24 * 60 * 60 * 1000;
/** Emails one browser's device cookie remembers (the latest signed in to). */
const DEVICE_COOKIE_ENTRIES = 5;

/** The cookie the device entries travel in: `__Host-` prefixed on https, as the session's is. */
export const deviceCookieName = (config: { publicBaseUrl: string }): string =>
  config.publicBaseUrl.startsWith('https:') ? '__Host-np_device' : 'np_device';

/** The wait before the next attempt after `failures` of them, where the first `free` cost nothing. */
export function signInDelayMs(failures: number, free: number): number {
  if (failures < free) return 0;
  return Math.min(SIGN_IN_MAX_DELAY_MS, SIGN_IN_FIRST_DELAY_MS * 2 ** Math.min(failures - free, 20));
}

/*
 * A device cookie holds up to five entries, separated by dots. Each is base64url of 6 bytes of
 * issue time (ms), 8 random bytes and the first 16 bytes of an HMAC over those and the email, under a
 * key derived from the encryption key: it names no email, and only the service can make one.
 */
const ENTRY_BYTES = 6 + 8 + 16;

function entryMac(runtime: Runtime, email: string, head: Buffer): Buffer {
  return createHmac('sha256', derivedKey(runtime.config, 'sign-in-device'))
    .update(head)
    .update(email)
    .digest()
    .subarray(0, 16);
}

function entriesOf(cookie: string | undefined): { entry: string; bytes: Buffer }[] {
  if (!cookie || cookie.length > 400) return [];
  return cookie
    .split('.')
    .slice(0, DEVICE_COOKIE_ENTRIES)
    .map((entry) => ({ entry, bytes: Buffer.from(entry, 'base64url') }))
    .filter(({ bytes }) => bytes.length === ENTRY_BYTES);
}

const issuedAt = (bytes: Buffer): number => bytes.readUIntBE(0, 6);

/** The entry of `cookie` that vouches for this browser at `email`, unexpired, or null. */
function deviceEntryFor(runtime: Runtime, cookie: string | undefined, email: string): string | null {
  const now = runtime.clock.now().getTime();
  for (const { entry, bytes } of entriesOf(cookie)) {
    if (issuedAt(bytes) + DEVICE_COOKIE_LIFETIME_MS <= now) continue;
    if (timingSafeEqual(entryMac(runtime, email, bytes.subarray(0, 14)), bytes.subarray(14))) return entry;
  }
  return null;
}

/** The device cookie to set after a sign-in to `email`: a fresh entry for it first, then the others still valid. */
function renewedDeviceCookie(runtime: Runtime, cookie: string | undefined, email: string, used: string | null): string {
  const now = runtime.clock.now().getTime();
  const head = Buffer.alloc(14);
  head.writeUIntBE(now, 0, 6);
  randomBytes(8).copy(head, 6);
  const fresh = Buffer.concat([head, entryMac(runtime, email, head)]).toString('base64url');
  const others = entriesOf(cookie)
    .filter(({ entry, bytes }) => entry !== used && issuedAt(bytes) + DEVICE_COOKIE_LIFETIME_MS > now)
    .map(({ entry }) => entry);
  return [fresh, ...others].slice(0, DEVICE_COOKIE_ENTRIES).join('.');
}

/** One reserved attempt: counted as a failure until `signInSucceeded` takes it back. */
export interface SignInAttempt {
  id: number;
  address: string;
  email: string;
  /** The SHA-256 of the device entry that vouched for the browser, or null. */
  device: string | null;
  deviceEntry: string | null;
  deviceCookie: string | undefined;
}

function refuse(retryAfterMs: number, limit: number, now: number): never {
  const retryAfter = Math.max(1, Math.ceil(retryAfterMs / 1000));
  throw new RateLimitError(
    { limit, remaining: 0, reset: Math.ceil((now + retryAfter * 1000) / 1000) },
    retryAfter,
    'sign-in',
  );
}

/**
 * Checks the limits and, within them, records the attempt, in one write transaction and before the
 * password is looked at; past them it throws a RateLimitError (Retry-After: when the next attempt is
 * allowed). `deviceCookie` is the browser's device cookie, if any.
 */
export async function reserveSignInAttempt(
  runtime: Runtime,
  input: { address: string; email: string; deviceCookie?: string },
): Promise<SignInAttempt> {
  const { address, email } = input;
  const deviceEntry = deviceEntryFor(runtime, input.deviceCookie, email);
  const device = deviceEntry === null ? null : sha256Hex(deviceEntry);
  const { db } = runtime;
  return writeTransaction(db, async () => {
    // Counted and recorded by one unit at a time per email, and per address without a device cookie:
    // thirty guesses at once must not all count the same failures (PostgreSQL runs units side by side).
    // Taken first, the email's before the address's, so no two units wait for each other.
    await db.$store.lock(`sign-in:${email}`);
    if (device === null) await db.$store.lock(`sign-in-address:${address}`);
    const now = runtime.clock.now().getTime();
    await db
      .delete(signInFailures)
      .where(lte(signInFailures.failedAt, new Date(now - SIGN_IN_MEMORY_MS)))
      .run();
    /** Refuses when the failures matching `where` call for a wait that has not passed yet. */
    const slowed = async (where: ReturnType<typeof and>, free: number) => {
      const { n, latest } = (await db
        .select({ n: count(), latest: max(signInFailures.failedAt) })
        .from(signInFailures)
        .where(where)
        .get())!;
      const wait = signInDelayMs(n, free);
      const latestMs = latest === null ? 0 : new Date(latest).getTime();
      if (wait > 0 && latestMs + wait > now) refuse(latestMs + wait - now, free, now);
    };
    if (device !== null) {
      await slowed(and(eq(signInFailures.device, device), eq(signInFailures.email, email)), SIGN_IN_FREE_FAILURES);
    } else {
      const addressSince = new Date(now - SIGN_IN_ADDRESS_WINDOW_MS);
      const fromAddress = and(
        eq(signInFailures.address, address),
        isNull(signInFailures.device),
        gt(signInFailures.failedAt, addressSince),
      );
      const { n, oldest } = (await db
        .select({ n: count(), oldest: min(signInFailures.failedAt) })
        .from(signInFailures)
        .where(fromAddress)
        .get())!;
      if (n >= SIGN_IN_ADDRESS_FAILURES_ALLOWED) {
        const freedAt = new Date(oldest!).getTime() + SIGN_IN_ADDRESS_WINDOW_MS;
        refuse(freedAt - now, SIGN_IN_ADDRESS_FAILURES_ALLOWED, now);
      }
      await slowed(
        and(eq(signInFailures.address, address), eq(signInFailures.email, email), isNull(signInFailures.device)),
        SIGN_IN_FREE_FAILURES,
      );
      await slowed(and(eq(signInFailures.email, email), isNull(signInFailures.device)), SIGN_IN_ACCOUNT_FREE_FAILURES);
    }
    const { id } = await db
      .insert(signInFailures)
      .values({ address, email, device, failedAt: new Date(now) })
      .returning({ id: signInFailures.id })
      .get();
    return { id, address, email, device, deviceEntry, deviceCookie: input.deviceCookie };
  });
}

/**
 * A reserved attempt that succeeded: it no longer counts, and neither do the earlier failures of its
 * pair (or of its device), so the owner's own typos are forgiven once they get in. Failures at the
 * email from elsewhere stay. Answers the device cookie to set, vouching for this browser at the email.
 */
export async function signInSucceeded(runtime: Runtime, attempt: SignInAttempt): Promise<string> {
  const { db } = runtime;
  const own =
    attempt.device !== null
      ? and(eq(signInFailures.device, attempt.device), eq(signInFailures.email, attempt.email))
      : and(
          eq(signInFailures.address, attempt.address),
          eq(signInFailures.email, attempt.email),
          isNull(signInFailures.device),
        );
  await db
    .delete(signInFailures)
    .where(or(eq(signInFailures.id, attempt.id), own))
    .run();
  return renewedDeviceCookie(runtime, attempt.deviceCookie, attempt.email, attempt.deviceEntry);
}
