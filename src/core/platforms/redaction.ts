/**
 * The one redaction of secrets from platform errors. Clients quote the platform's own words in their
 * messages (so a user can act on them), and a platform may echo a token or a client secret back; an
 * error leaves a client only through here, so no secret reaches a log, an attempt's error or a reply.
 */

/** What a secret is replaced with. */
export const REDACTED = '[redacted]';

/**
 * `error` with every occurrence of each secret masked in its message and stack: the same class and
 * fields (kind, details), so callers still tell the errors apart. Anything that is not an Error, or
 * that carries none of the secrets, is answered as it is.
 */
export function withoutSecrets<E>(error: E, ...secrets: readonly string[]): E {
  if (!(error instanceof Error)) return error;
  const present = secrets.filter((secret) => secret !== '' && (error.message + (error.stack ?? '')).includes(secret));
  if (present.length === 0) return error;
  const mask = (text: string) => present.reduce((masked, secret) => masked.replaceAll(secret, REDACTED), text);
  const copy = Object.create(Object.getPrototypeOf(error) as object, Object.getOwnPropertyDescriptors(error)) as Error;
  Object.defineProperty(copy, 'message', { value: mask(error.message), writable: true, configurable: true });
  if (error.stack !== undefined) {
    Object.defineProperty(copy, 'stack', { value: mask(error.stack), writable: true, configurable: true });
  }
  return copy as E;
}
