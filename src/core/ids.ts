import { randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolOffset = POOL_SIZE;

/**
 * Cryptographically random bytes, drawn from a pool filled 4 KiB at a time: one call into the CSPRNG
 * per id cost more than the rest of a publish (measured), and the bytes are just as random.
 */
function randomBytes(size: number): Buffer {
  if (size > POOL_SIZE) return randomFillSync(Buffer.alloc(size));
  if (poolOffset + size > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = Buffer.from(pool.subarray(poolOffset, poolOffset + size));
  poolOffset += size;
  return bytes;
}

/** Uniformly random base62 text (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function toBase62(bytes: Uint8Array, length: number): string {
  let n = BigInt('0x' + Buffer.from(bytes).toString('hex'));
  let out = '';
  while (out.length < length) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

/**
 * Resource ids are UUIDs (SPEC.md), version 7: the first 48 bits are the Unix time in ms, so new
 * rows append to the right edge of the primary-key index instead of landing on random pages.
 */
export function newId(): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(Date.now(), 0, 6);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Characters of a prefixed id that carry its creation time: 62^8 ms lasts until the year 8888. */
const TIME_CHARS = 8;

/**
 * `prefix_` + 24 base62 characters: the creation time in ms (8 characters, so ids sort by time,
 * base62's digits being in ASCII order) and 16 random ones (95 bits). Time-ordered for the same
 * reason as `newId`: a random key sends every insert to a different page of its unique index,
 * and each such page is one more write in the commit (measured on the delivery log).
 */
export function prefixedId(prefix: 'org' | 'evt' | 'whk' | 'whd'): string {
  let time = '';
  for (let ms = Date.now(), i = 0; i < TIME_CHARS; i++, ms = Math.floor(ms / 62)) time = BASE62[ms % 62] + time;
  return `${prefix}_${time}${randomBase62(24 - TIME_CHARS)}`;
}
