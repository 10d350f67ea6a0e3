import { hash, verify } from '@node-rs/argon2';
import { ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';

/** OWASP's argon2id parameters: 19 MiB of memory, 2 passes, 1 lane (about 70 to 150 ms a hash here). */
const ARGON2ID = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 128;

/**
 * The guesses zxcvbn must estimate a password needs (its score 3, 10^8): below that it is a common
 * password, a keyboard walk, a repeat or a sequence, a date, or one of those lightly changed.
 */
const MIN_GUESSES_LOG10 = 8;

/** zxcvbn with its common dictionaries (passwords, names, Wikipedia words) and keyboard layouts, built once. */
let estimator: ZxcvbnFactory | undefined;
const strength = () => (estimator ??= new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs }));

/** What zxcvbn's warnings mean, said as the page says things. */
const WARNINGS: Record<string, string> = {
  straightRow: 'a row of keys',
  keyPattern: 'a keyboard pattern',
  simpleRepeat: 'a repeated character',
  extendedRepeat: 'a repeated group of characters',
  sequences: 'a sequence such as abcd or 1234',
  recentYears: 'a recent year',
  dates: 'a date',
  topTen: 'one of the most common passwords',
  topHundred: 'a very common password',
  common: 'a common password',
  similarToCommon: 'a common password with small changes',
  wordByItself: 'a single word',
  namesByThemselves: 'a name',
  commonNames: 'a common name',
  userInputs: 'your email address',
  pwned: 'a password found in a data breach',
};

/**
 * Why a new password is refused, or null (NIST 800-63B section 5.1.1.2): 10 to 128 characters, not
 * the email itself or containing it, and not guessable in under 10^8 tries by zxcvbn's estimate,
 * which refuses common passwords, repeats (1111111111), sequences, keyboard walks and the email's
 * parts. No rule on character classes: length and unguessability are what count.
 */
export function passwordProblem(password: string, context: { email?: string | null } = {}): string | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (length > MAX_PASSWORD_LENGTH) return `Choose a password of at most ${MAX_PASSWORD_LENGTH} characters.`;
  const email = context.email?.trim().toLowerCase() ?? '';
  const [local = '', domain = ''] = email.split('@');
  if (email !== '' && password.toLowerCase().includes(email)) {
    return 'Choose a password that is not your email address.';
  }
  const userInputs = [email, local, ...domain.split('.'), 'publishing', 'dashboard'].filter((word) => word.length >= 3);
  const estimate = strength().check(password, userInputs);
  if (estimate.guessesLog10 >= MIN_GUESSES_LOG10) return null;
  const why = estimate.feedback.warning ? WARNINGS[estimate.feedback.warning] : undefined;
  return (
    `That password is too easy to guess${why ? `: it is ${why}` : ''}. ` +
    'Choose a longer one, such as a few unrelated words; avoid common passwords, repeats and sequences.'
  );
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
