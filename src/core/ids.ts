import { randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolOffset = POOL_SIZE;

/**
 * Where `size` cryptographically random bytes start in the pool, which is refilled 4 KiB at a time:
 * one call into the CSPRNG per id cost more than the rest of a publish (measured), and the bytes are
 * just as random. Read in place (never copied out): ids are made twice per generated post, and a
 * Buffer per id was most of their cost. `size` is at most POOL_SIZE.
 */
function takeRandom(size: number): number {
  if (poolOffset + size > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const at = poolOffset;
  poolOffset += size;
  return at;
}

/** Uniformly random base62 text (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    // Two bytes per character wanted: 248 of 256 values are kept, so one draw nearly always does.
    const draw = Math.min(length * 2, POOL_SIZE);
    const at = takeRandom(draw);
    for (let i = at; i < at + draw && out.length < length; i++) {
      const byte = pool[i]!;
      if (byte < 248) out += BASE62[byte % 62];
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

const HEX_DIGIT = '0123456789abcdef';
/** Two hex digits per byte value. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * Resource ids are plain UUIDs by contract, here version 7: the first 48 bits are the Unix time in ms, so new
 * rows append to the right edge of the primary-key index instead of landing on random pages.
 */
export function newId(): string {
  const at = takeRandom(10);
  const r = pool;
  // 48 bits of time, then the version (7) over 4 random bits, 8 random bits, the variant (10) over
  // 6 random bits and 56 random bits: RFC 9562's 74 random bits.
  const time = Date.now().toString(16).padStart(12, '0');
  return (
    `${time.slice(0, 8)}-${time.slice(8)}-7${HEX_DIGIT[r[at]! & 0x0f]}${HEX[r[at + 1]!]}-` +
    `${HEX[(r[at + 2]! & 0x3f) | 0x80]}${HEX[r[at + 3]!]}-` +
    `${HEX[r[at + 4]!]}${HEX[r[at + 5]!]}${HEX[r[at + 6]!]}${HEX[r[at + 7]!]}${HEX[r[at + 8]!]}${HEX[r[at + 9]!]}`
  );
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
  const now = Date.now();
  // Ids come in bursts (an event per generated post), many within one millisecond: spelled once.
  if (now !== lastTime.ms) {
    let time = '';
    for (let ms = now, i = 0; i < TIME_CHARS; i++, ms = Math.floor(ms / 62)) time = BASE62[ms % 62] + time;
    lastTime = { ms: now, text: time };
  }
  return `${prefix}_${lastTime.text}${randomBase62(24 - TIME_CHARS)}`;
}

let lastTime = { ms: -1, text: '' };
