import fc from 'fast-check';

/**
 * Hostile values the fuzz properties draw from. Huge values are built from a few fixed sizes
 * (never shrunk character by character), so a failure still shrinks in seconds.
 */

/** Strings that break naive code: NUL, lone surrogates, bidi overrides, emoji sequences, BOM, injection text. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF',
  'x\uD83D',
  '\uDE00x',
  '\u202Eevil\u202C',
  '\u200F\u200E\u061C',
  'مرحبا بالعالم',
  'שלום',
  '👩‍👩‍👧‍👦🏳️‍🌈',
  '\uFEFF',
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇',
  '\t\n\r\u000b\u000c',
  '\u2028\u2029',
  '%00',
  '%E0%A4%A',
  '${jndi:ldap://x}',
  "'; drop table content; --",
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '__proto__',
  'constructor',
  'prototype',
  'null',
  'undefined',
  'true',
  'NaN',
  '-0',
  '1e309',
  '0x10',
  '#',
  '#coffee',
  '  padded  ',
];

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
);

/** Past the 1 MB default body limit once JSON-encoded, so the whole request must answer 413. */
export const OVER_BODY_LIMIT = 1024 * 1024 + 16;

/** Long strings at sizes around the field limits and past the body limit (ASCII, 2-byte and 4-byte UTF-8). */
export const longString: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(101, 281, 501, 1001, 2001, 2049, 4001, 65_537), fc.constantFrom('x', 'é', '😀', '\u0000'))
  .map(([length, unit]) => unit.repeat(length));

export const hugeString = fc.constant('x'.repeat(OVER_BODY_LIMIT));

/** Any JSON value, plus the numbers JSON cannot carry exactly. */
export const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -0,
    -1,
    1.5,
    1e308,
    -1e308,
    2 ** 53 + 2,
    5e-324,
    [],
    {},
    [null],
    { '': {} },
    '',
    [[[]]],
  ),
  fc.jsonValue({ maxDepth: 3 }),
  nastyString,
);

/** Date-time inputs: valid with offsets, naive, impossible, extreme. */
export const DATE_STRINGS = [
  '2026-04-01T09:00:00Z',
  '2026-04-01T09:00:00.123+02:00',
  '2026-03-10T12:00:30Z',
  '2020-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '0000-01-01T00:00:00Z',
  '2024-02-29T00:00:00-12:00',
  '2026-04-01T09:00:00.123456789Z',
  '2026-04-01T09:00:00',
  '2026-04-01',
  '2026-02-30T00:00:00Z',
  '2026-13-01T00:00:00Z',
  '2026-04-01T24:00:00Z',
  '2026-04-01T23:59:60Z',
  '2026-04-01T09:00:00+24:00',
  '+275760-09-13T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  'tomorrow',
  '1712000000',
];

/** Invalid JSON texts, plus JSON that is valid but no object of fields. */
export const JUNK_BODIES = [
  '{',
  '{"caption":',
  '{"caption":"x",}',
  "{'caption':'x'}",
  '{"caption":"x"}{"caption":"y"}',
  '{"caption":"x"',
  'NaN',
  'undefined',
  '[1,2',
  '\uFEFF{"caption":"x"}',
  '{"caption":"\\ud800"}',
  '{"caption":"\\u0000"}',
  '{"__proto__":{"isAdmin":true},"caption":"x"}',
  '{"constructor":{"prototype":{"x":1}},"caption":"x"}',
  '{"caption":1e999}',
  '{"a":' + '1'.repeat(400) + '}',
  'null',
  'true',
  '42',
  '"caption"',
  '[]',
  '[{"caption":"x"}]',
  '',
  ' ',
  '\u0000',
  '<xml/>',
  'caption=x',
];

/** JSON nested far deeper than any field: as an extra field, and as a value where the schema wants an object. */
export const deepJson = (depth: number, key = 'x'): string =>
  `{"${key}":${'['.repeat(depth)}${']'.repeat(depth)},"caption":"deep"}`;

/** An id for a path segment: hostile text, percent-encoded or raw. */
export const BAD_PATH_SEGMENTS = [
  '%',
  '%E0%A4%A',
  '%ED%A0%80',
  '%FF',
  '%00',
  '%2F',
  '..%2F..%2Fpackage.json',
  '..',
  '.',
  '%20',
  'null',
  'undefined',
  '0',
  '-1',
  '1e9',
  '%5B%5D',
  '%7B%7D',
  'whk_',
  'whk_00000000000000000000000000',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-7fff-bfff-ffffffffffff',
  'a'.repeat(2000),
  encodeURIComponent('مرحبا'),
  encodeURIComponent('👩‍👩‍👧‍👦'),
  '%F0%9F%98',
  'x;y=z',
  'x?y',
];

/** Percent-encodes a string for a URL, keeping lone surrogates (encodeURIComponent refuses them) as their WTF-8 bytes. */
export function percentEncode(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else {
      out += encodeURIComponent(ch);
    }
  }
  return out;
}

/** Header values fetch can send (Latin-1 without controls or DEL, no outer whitespace): forged, truncated and malformed credentials. */
export const latin1String = fc
  .string({
    unit: fc.integer({ min: 0x20, max: 0xfe }).map((c) => String.fromCharCode(c >= 0x7f ? c + 1 : c)),
    maxLength: 60,
  })
  .filter((s) => s.trim() === s);
