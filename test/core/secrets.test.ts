import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decryptSecret, encryptSecret, keyFilePath } from '../../src/core/secrets.ts';
import { childEnv, ROOT, tempDataDir } from '../helpers/subprocess.ts';

const newKey = () => randomBytes(32).toString('base64');
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

/** Signing secrets at rest are encrypted with AES-256-GCM, never stored in plaintext. */
describe('webhook signing secrets at rest', () => {
  let temp: { dir: string; remove(): void };
  beforeEach(() => {
    temp = tempDataDir('secrets-test');
  });
  afterEach(() => temp.remove());

  describe('with ENCRYPTION_KEY', () => {
    // The data dir is a path that does not exist: with a key configured, nothing is written there.
    const config = () => ({ encryptionKey: key, dataDir: join(temp.dir, 'unused') });
    let key: string;
    beforeEach(() => {
      key = newKey();
    });

    it('round-trips, never stores the plaintext, and uses a fresh iv every time', () => {
      const stored = encryptSecret(config(), SECRET);
      expect(decryptSecret(config(), stored)).toBe(SECRET);
      const bytes = Buffer.from(stored, 'base64');
      expect(bytes.toString('base64')).toBe(stored);
      // iv (12) + tag (16) + ciphertext as long as the plaintext (GCM is a stream mode).
      expect(bytes.length).toBe(12 + 16 + Buffer.byteLength(SECRET));
      expect(stored).not.toContain(SECRET.slice(6, 30));
      expect(bytes.includes(Buffer.from(SECRET))).toBe(false);
      const again = encryptSecret(config(), SECRET);
      expect(again).not.toBe(stored);
      expect(Buffer.from(again, 'base64').subarray(0, 12).equals(bytes.subarray(0, 12))).toBe(false);
      expect(decryptSecret(config(), again)).toBe(SECRET);
      expect(existsSync(join(temp.dir, 'unused'))).toBe(false);
    });

    it('refuses to decrypt with another key, with a clear error', () => {
      const stored = encryptSecret(config(), SECRET);
      expect(() => decryptSecret({ encryptionKey: newKey(), dataDir: temp.dir }, stored)).toThrow(
        /cannot be decrypted.*ENCRYPTION_KEY/,
      );
    });

    it('refuses a tampered or truncated value', () => {
      const bytes = Buffer.from(encryptSecret(config(), SECRET), 'base64');
      for (const position of [0, 12, 28, bytes.length - 1]) {
        const tampered = Buffer.from(bytes);
        tampered[position] ^= 0x01;
        expect(() => decryptSecret(config(), tampered.toString('base64')), `byte ${position}`).toThrow(/altered/);
      }
      expect(() => decryptSecret(config(), bytes.subarray(0, bytes.length - 1).toString('base64'))).toThrow(/altered/);
      expect(() => decryptSecret(config(), bytes.subarray(0, 28).toString('base64'))).toThrow(/malformed/);
    });
  });

  describe('without ENCRYPTION_KEY (a key file in the data directory)', () => {
    it('creates the key once, private, as base64 of 32 bytes, and encrypts with it', () => {
      const dataDir = join(temp.dir, 'nested', 'data');
      const stored = encryptSecret({ encryptionKey: undefined, dataDir }, SECRET);
      const path = join(dataDir, 'encryption.key');
      expect(keyFilePath({ encryptionKey: undefined, dataDir })).toBe(resolve(path));
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const fileKey = readFileSync(path, 'utf8').trim();
      expect(Buffer.from(fileKey, 'base64')).toHaveLength(32);
      // The file holds the very key in use: it decrypts as ENCRYPTION_KEY would.
      expect(decryptSecret({ encryptionKey: fileKey, dataDir: temp.dir }, stored)).toBe(SECRET);
      // More secrets, another config object for the same directory: the same key, the file untouched.
      const second = encryptSecret({ encryptionKey: undefined, dataDir }, 'whsec_other');
      expect(decryptSecret({ encryptionKey: fileKey, dataDir: temp.dir }, second)).toBe('whsec_other');
      expect(readFileSync(path, 'utf8').trim()).toBe(fileKey);
      // No temporary file is left behind.
      expect(readdirSync(dataDir)).toEqual(['encryption.key']);
    });

    it('uses a key file that already exists instead of replacing it', () => {
      const key = newKey();
      writeFileSync(join(temp.dir, 'encryption.key'), `${key}\n`, { mode: 0o600 });
      const stored = encryptSecret({ encryptionKey: undefined, dataDir: temp.dir }, SECRET);
      expect(decryptSecret({ encryptionKey: key, dataDir: join(temp.dir, 'unused') }, stored)).toBe(SECRET);
      expect(readFileSync(join(temp.dir, 'encryption.key'), 'utf8')).toBe(`${key}\n`);
    });

    it('refuses a key file that does not hold a 32-byte key', () => {
      const dataDir = join(temp.dir, 'bad');
      mkdirSync(dataDir);
      writeFileSync(join(dataDir, 'encryption.key'), 'c2hvcnQ=\n');
      expect(() => encryptSecret({ encryptionKey: undefined, dataDir }, SECRET)).toThrow(
        /encryption\.key is not base64 of 32 bytes/,
      );
    });

    it('another process reuses the key file, and processes starting together agree on one key', async () => {
      const dataDir = join(temp.dir, 'shared');
      const mine = encryptSecret({ encryptionKey: undefined, dataDir }, SECRET);
      const fileKey = readFileSync(join(dataDir, 'encryption.key'), 'utf8');
      // A new process (no cache) decrypts what this one stored: it read the file, it made no new key.
      const [decrypted] = await runChildren(1, { mode: 'decrypt', dataDir, stored: mine });
      expect(decrypted).toBe(SECRET);
      expect(readFileSync(join(dataDir, 'encryption.key'), 'utf8')).toBe(fileKey);

      // Six processes race to create the key in each of 40 empty directories, starting at one instant.
      const raceDirs = Array.from({ length: 40 }, (_, i) => join(temp.dir, `race-${i}`));
      const outputs = (await runChildren(6, { mode: 'encrypt', dataDir: raceDirs.join(delimiter), stored: '' })).map(
        (out) => JSON.parse(out) as string[],
      );
      raceDirs.forEach((dir, i) => {
        const raceKey = readFileSync(join(dir, 'encryption.key'), 'utf8').trim();
        for (const stored of outputs.map((perDir) => perDir[i])) {
          expect(decryptSecret({ encryptionKey: raceKey, dataDir: temp.dir }, stored), dir).toBe('whsec_child');
        }
        expect(readdirSync(dir)).toEqual(['encryption.key']);
      });
    });
  });

  /**
   * Runs `count` fresh Node processes that wait for one shared instant, then each encrypt
   * `whsec_child` with a key file in each of the `dataDir`s (joined by the path delimiter; output:
   * a JSON array), or decrypt `stored` with the key file in `dataDir`; returns their outputs.
   */
  async function runChildren(
    count: number,
    task: { mode: 'encrypt' | 'decrypt'; dataDir: string; stored: string },
  ): Promise<string[]> {
    const script = join(temp.dir, 'child.mts');
    const module = pathToFileURL(join(ROOT, 'src/core/secrets.ts')).href;
    writeFileSync(
      script,
      `import { decryptSecret, encryptSecret } from ${JSON.stringify(module)};
const at = Number(process.env.START_AT);
while (Date.now() < at) {}
const config = (dataDir) => ({ encryptionKey: undefined, dataDir });
process.stdout.write(
  process.env.TASK_MODE === 'encrypt'
    ? JSON.stringify(process.env.TASK_DIR.split(${JSON.stringify(delimiter)}).map((dir) => encryptSecret(config(dir), 'whsec_child')))
    : decryptSecret(config(process.env.TASK_DIR), process.env.TASK_STORED),
);
`,
    );
    const startAt = String(Date.now() + 1500);
    const env = childEnv({ START_AT: startAt, TASK_DIR: task.dataDir, TASK_MODE: task.mode, TASK_STORED: task.stored });
    return Promise.all(
      Array.from(
        { length: count },
        () =>
          new Promise<string>((resolvePromise, reject) => {
            const child = spawn(process.execPath, ['--import', 'tsx', script], {
              cwd: ROOT,
              env,
              stdio: ['ignore', 'pipe', 'pipe'],
            });
            let out = '';
            let err = '';
            child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
            child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
            child.on('error', reject);
            child.on('close', (code) =>
              code === 0 ? resolvePromise(out) : reject(new Error(`child exited ${code}: ${err}`)),
            );
          }),
      ),
    );
  }
});
