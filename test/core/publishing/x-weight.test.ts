import fc from 'fast-check';
import twitterText from 'twitter-text';
import { describe, expect, it } from 'vitest';
import { xWeightBounds } from '../../../src/core/platforms/rules.ts';

/** Pieces a post is made of, with the ones X treats specially: links, emoji, heavy and expanding characters. */
const PIECES = [
  'a',
  'Z',
  '7',
  ' ',
  '\n',
  '.',
  ',',
  ':',
  '/',
  '#',
  '@',
  '-',
  '_',
  '!',
  '?',
  "'",
  'walk',
  'to work',
  'e.g.',
  '1.',
  'example.com',
  'shop.example.co.uk/path?q=1',
  'https://',
  'http://t.co/x',
  'www.',
  '.com',
  'a.b',
  'é',
  'ñ',
  'ß',
  '•',
  '→',
  '™',
  '…',
  '—',
  '“',
  '”',
  '中',
  '日本',
  'ー',
  '한',
  'ا',
  '\u0958',
  '\u0344',
  '\u0301',
  'e\u0301',
  '😀',
  '👍🏽',
  '👩‍💻',
  '🇫🇷',
  '✔',
  '✔️',
  '❤️',
  '\u3002',
  '\uFF0E',
  '\uFF61',
  '\uFF03',
  '＃tag',
  '。com',
  // Lone surrogate halves, which a model's JSON can carry.
  '\uD83D',
  '\uDE00',
  '\uDC00\uDC00',
];

const post = fc.array(fc.constantFrom(...PIECES), { maxLength: 120 }).map((parts) => parts.join(''));

describe("bounds on X's weighted length", () => {
  it('hold for every text as X normalises it: lower <= weighted length <= upper', () => {
    fc.assert(
      fc.property(fc.oneof(post, fc.string({ unit: 'binary', maxLength: 200 })), (text) => {
        const normalised = text.normalize('NFC');
        const { upper, lower } = xWeightBounds(normalised);
        const weighted = twitterText.parseTweet(normalised).weightedLength;
        expect(weighted).toBeLessThanOrEqual(upper);
        expect(weighted).toBeGreaterThanOrEqual(lower);
      }),
      { numRuns: 1000 },
    );
  });

  it('are exact for plain ASCII text without anything a link could start from', () => {
    expect(xWeightBounds('Walk to work, every day!\n\n#gear')).toEqual({ upper: 31, lower: 31 });
  });
});
