import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/**
 * Signatures follow Standard Webhooks v1: `v1,` + base64 of
 * HMAC-SHA256 over `${id}.${timestamp}.${body}`, keyed with the base64-decoded part of the secret
 * after `whsec_`. The prefix is optional on input, as it is in the `standardwebhooks` package.
 */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  // The timestamp is signed as text and sent as the `webhook-timestamp` header: a fraction or an
  // exponent here would sign something the receiver never sees.
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`webhook timestamp must be whole Unix seconds, got ${timestampSeconds}`);
  }
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  if (key.length === 0) throw new RangeError('webhook signing secret is empty');
  const digest = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64');
  return `v1,${digest}`;
}

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}
