/**
 * A post's record key: a TID (atproto's timestamp identifier), chosen by the service before the
 * create call so a retry can ask for the very same record. 13 characters of base32-sortable
 * (`234567a-z`): a zero bit, 53 bits of microseconds since the epoch, 10 bits of clock identifier.
 */
import { randomInt } from 'node:crypto';

const ALPHABET = '234567abcdefghijklmnopqrstuvwxyz';

/** What a record key must look like to be a TID: the first character keeps the top bit zero. */
export const TID_PATTERN = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/;

/** Base32-sortable digits of `value`, `length` of them (most significant first). */
function encode(value: number, length: number): string {
  let digits = '';
  let rest = value;
  for (let i = 0; i < length; i++) {
    digits = ALPHABET[rest % 32]! + digits;
    rest = Math.floor(rest / 32);
  }
  return digits;
}

/**
 * A TID for `at`. The microseconds below the millisecond and the clock identifier are random, so two
 * processes posting in the same millisecond do not pick the same key. Encoded in two parts (53 + 10
 * bits), each within JavaScript's safe integers.
 */
export function newTid(at: Date): string {
  const micros = at.getTime() * 1000 + randomInt(1000);
  return encode(micros, 11) + encode(randomInt(1024), 2);
}
