import { hash, verify } from '@node-rs/argon2';

/** OWASP's argon2id parameters: 19 MiB of memory, 2 passes, 1 lane (about 70 to 150 ms a hash here). */
const ARGON2ID = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 128;

/** Why a new password is refused, or null: long enough to resist guessing, short enough to hash cheaply. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (length > MAX_PASSWORD_LENGTH) return `Choose a password of at most ${MAX_PASSWORD_LENGTH} characters.`;
  return null;
}

/** The PHC string (parameters, salt and hash) stored for a password; hashed off the event loop. */
export const hashPassword = (password: string): Promise<string> => hash(password, ARGON2ID);

/**
 * Whether the password matches the stored hash. With no hash (an unknown email, a person who has not
 * set one yet), a hash of the same cost is still computed, so the answer takes as long either way.
 */
export async function passwordMatches(stored: string | null, password: string): Promise<boolean> {
  if (stored === null) {
    await verify(await dummyHash(), password).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

let dummy: Promise<string> | undefined;
const dummyHash = (): Promise<string> => (dummy ??= hashPassword('not any password anyone has'));
