/**
 * X's weighted length without twitter-text's parser (tens of microseconds a text): bounds cheap
 * enough to run on every generated post, so the parser runs only on a text near the limit. Both the
 * built-in generator (fitting a draft) and the draft check every generator's output goes through
 * use them.
 */

/**
 * Bounds on X's weighted length. Upper: ASCII weighs 1 and anything else 2 (X's most), an astral
 * character (emoji) counts once, and every place a link could start ('.' or '://' before a name)
 * may add a 23-character short link. Lower: only ASCII characters outside anything that could hold
 * a link, one each. The text must be NFC, as X normalises before counting.
 */
export function xWeightBounds(text: string): { upper: number; lower: number } {
  let upper = 0;
  let lower = 0;
  let token = 0;
  let linkish = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // The second half of a surrogate pair: the pair is one character, already counted. A lone half
    // (text from outside can carry one) counts like any other character.
    if (code >= 0xdc00 && code <= 0xdfff && i > 0 && isHighSurrogate(text.charCodeAt(i - 1))) continue;
    if (code === 0x20 || code === 0x0a) {
      if (!linkish) lower += token;
      token = 0;
      linkish = false;
      upper += 1;
      lower += 1;
      continue;
    }
    if (code < 0x80) {
      upper += 1;
      token += 1;
    } else upper += 2;
    if (code === 0x2e || code === 0x3002 || code === 0xff0e || code === 0xff61 || code === 0x3a) {
      const next = text.charCodeAt(i + 1);
      if (code === 0x3a ? next === 0x2f : isNameCharacter(next)) {
        upper += 23;
        linkish = true;
      }
    }
  }
  if (!linkish) lower += token;
  return { upper, lower };
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

const isNameCharacter = (code: number) =>
  (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code >= 0x80;
