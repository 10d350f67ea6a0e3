import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Config } from './config.ts';

/**
 * Webhook signing secrets and live accounts' platform tokens (social-accounts/tokens.ts) are encrypted
 * at rest, never stored in plaintext: AES-256-GCM under a key from
 * `ENCRYPTION_KEY`, or, when that is unset, a key generated once into `DATA_DIR/encryption.key`.
 * Stored form: base64 of iv (12 bytes) + auth tag (16) + ciphertext; a fresh iv every time.
 */
export type SecretsConfig = Pick<Config, 'encryptionKey' | 'dataDir'>;

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_FILE_NAME = 'encryption.key';

/** Keys by where they came from, so a process reads (or makes) its key file once. */
const keys = new Map<string, Buffer>();

/** The path of the key file used when `ENCRYPTION_KEY` is unset. */
export const keyFilePath = (config: SecretsConfig): string => resolve(join(config.dataDir, KEY_FILE_NAME));

function encryptionKey(config: SecretsConfig): Buffer {
  const source = config.encryptionKey === undefined ? `file:${keyFilePath(config)}` : `env:${config.encryptionKey}`;
  let key = keys.get(source);
  if (!key) {
    key =
      config.encryptionKey === undefined
        ? keyFromFile(keyFilePath(config))
        : decodeKey(config.encryptionKey, 'ENCRYPTION_KEY');
    keys.set(source, key);
  }
  return key;
}

function decodeKey(text: string, origin: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== KEY_BYTES) {
    throw new Error(
      `${origin} is not base64 of ${KEY_BYTES} bytes; it cannot be the key that encrypts webhook signing secrets and platform tokens.`,
    );
  }
  return key;
}

/**
 * Reads the key file, or creates it when missing. Creation is atomic and exclusive: the key is
 * written in full to a private temporary file, which is then hard-linked to the final name (a link
 * fails when the name exists). Two processes starting together both try; one link wins, and both
 * read back the file that won, so they agree on the key.
 */
function keyFromFile(path: string): Buffer {
  const existing = readKeyFile(path);
  if (existing) return existing;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Another process made the key first: theirs is the key.
  } finally {
    unlinkSync(temporary);
  }
  const key = readKeyFile(path);
  if (!key) throw new Error(`The encryption key file ${path} vanished right after it was created.`);
  return key;
}

function readKeyFile(path: string): Buffer | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return decodeKey(text, `The encryption key file ${path}`);
}

/** Encrypts a signing secret (or a platform token) for storage. */
export function encryptSecret(config: SecretsConfig, secret: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', encryptionKey(config), iv);
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
}

/** Decrypts a stored signing secret or platform token; a wrong key or an altered value throws instead of answering garbage. */
export function decryptSecret(config: SecretsConfig, stored: string): string {
  const bytes = Buffer.from(stored, 'base64');
  if (bytes.length <= IV_BYTES + TAG_BYTES) {
    throw new Error(
      'A stored secret (webhook signing secret or platform token) is malformed: it is too short to be AES-256-GCM output.',
    );
  }
  const decipher = createDecipheriv('aes-256-gcm', encryptionKey(config), bytes.subarray(0, IV_BYTES));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new Error(
      'A stored secret (webhook signing secret or platform token) cannot be decrypted: the encryption key is not the one it was encrypted with ' +
        '(check ENCRYPTION_KEY, or DATA_DIR/encryption.key when it is unset), or the stored value was altered.',
    );
  }
}

/**
 * A key for another purpose (say, signing OAuth consent forms), derived from the encryption key so
 * the service keeps one secret: HMAC-SHA256 of the purpose's label, never the encryption key itself.
 */
export function derivedKey(config: SecretsConfig, purpose: string): Buffer {
  return createHmac('sha256', encryptionKey(config)).update(`derived:${purpose}`).digest();
}
