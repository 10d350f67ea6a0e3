import { describe, expect, it } from 'vitest';
import { facetsOf, mentionedHandles } from '../../../src/core/platforms/bluesky/facets.ts';
import { newTid, TID_PATTERN } from '../../../src/core/platforms/bluesky/tid.ts';
import { textViolations } from '../../../src/core/platforms/rules.ts';

/** The text each facet covers, read back from the UTF-8 bytes its index names. */
const covered = (text: string, facets: ReturnType<typeof facetsOf>) =>
  facets.map(({ index }) => Buffer.from(text, 'utf8').subarray(index.byteStart, index.byteEnd).toString('utf8'));

/** What a case expects: each facet as [the text it covers, its link URI, DID or tag], in order. */
type Expected = Array<[covered: string, value: string]>;

const featureValue = (feature: ReturnType<typeof facetsOf>[number]['features'][0]) =>
  'uri' in feature ? feature.uri : 'did' in feature ? feature.did : feature.tag;

/** Every handle resolves, to `did:fake:<handle>`, so each mention shows. */
const detected = (text: string): Expected => {
  const facets = facetsOf(text, (handle) => `did:fake:${handle}`);
  const covers = covered(text, facets);
  return facets.map((facet, i) => [covers[i]!, featureValue(facet.features[0])]);
};

const A64 = 'thisisa64characterstring_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';

/**
 * The detector's cases: Bluesky's own (`@atproto/api`'s rich-text detection tests, for links with a
 * scheme, mentions and tags), ours, and the ones issue 36 found, each marked.
 */
const CASES: Array<[text: string, expected: Expected]> = [
  // Links.
  ['start https://middle.com end', [['https://middle.com', 'https://middle.com']]],
  [
    'start https://middle.com/foo/bar?baz=bux#hash end',
    [['https://middle.com/foo/bar?baz=bux#hash', 'https://middle.com/foo/bar?baz=bux#hash']],
  ],
  [
    'https://newline1.com\nhttps://newline2.com',
    [
      ['https://newline1.com', 'https://newline1.com'],
      ['https://newline2.com', 'https://newline2.com'],
    ],
  ],
  ['👨‍👩‍👧‍👧 https://middle.com 👨‍👩‍👧‍👧', [['https://middle.com', 'https://middle.com']]],
  [
    'Classic article https://socket3.wordpress.com/2018/02/03/designing-windows-95s-user-interface/ ',
    [
      [
        'https://socket3.wordpress.com/2018/02/03/designing-windows-95s-user-interface/',
        'https://socket3.wordpress.com/2018/02/03/designing-windows-95s-user-interface/',
      ],
    ],
  ],
  [
    'punctuation https://foo.com, https://bar.com/whatever; https://baz.com.',
    [
      ['https://foo.com', 'https://foo.com'],
      ['https://bar.com/whatever', 'https://bar.com/whatever'],
      ['https://baz.com', 'https://baz.com'],
    ],
  ],
  ['parenthentical (https://foo.com)', [['https://foo.com', 'https://foo.com']]],
  ['except for https://foo.com/thing_(cool)', [['https://foo.com/thing_(cool)', 'https://foo.com/thing_(cool)']]],
  ['Café 🎉 https://example.com/x.', [['https://example.com/x', 'https://example.com/x']]],
  // B1: a `)` closing a `(` inside the URL belongs to it; one closing a parenthesis around it does not.
  [
    'Read https://en.wikipedia.org/wiki/Rust_(programming_language)',
    [
      [
        'https://en.wikipedia.org/wiki/Rust_(programming_language)',
        'https://en.wikipedia.org/wiki/Rust_(programming_language)',
      ],
    ],
  ],
  [
    'Rust (https://en.wikipedia.org/wiki/Rust_(programming_language)).',
    [
      [
        'https://en.wikipedia.org/wiki/Rust_(programming_language)',
        'https://en.wikipedia.org/wiki/Rust_(programming_language)',
      ],
    ],
  ],
  ['(see https://example.com/a)', [['https://example.com/a', 'https://example.com/a']]],
  // Mentions.
  ['@handle.com middle end', [['@handle.com', 'did:fake:handle.com']]],
  ['parenthetical (@handle.com)', [['@handle.com', 'did:fake:handle.com']]],
  ['@handle.com!@#$chars', [['@handle.com', 'did:fake:handle.com']]],
  [
    '@handle.com\n@handle.com',
    [
      ['@handle.com', 'did:fake:handle.com'],
      ['@handle.com', 'did:fake:handle.com'],
    ],
  ],
  ['👨‍👩‍👧‍👧 @handle.com 👨‍👩‍👧‍👧', [['@handle.com', 'did:fake:handle.com']]],
  ['not@right', []],
  ['write to me@example.com', []],
  // Tags.
  [
    '#a #b',
    [
      ['#a', 'a'],
      ['#b', 'b'],
    ],
  ],
  ['#1', []],
  ['#1a', [['#1a', '1a']]],
  ['body #tag body', [['#tag', 'tag']]],
  ['body #a1', [['#a1', 'a1']]],
  ['#', []],
  ['#?', []],
  ['text # text', []],
  ['no match 1?: #1?', []],
  [`body #${A64}`, [[`#${A64}`, A64]]],
  [`body #${A64}b`, []],
  [`body #${A64}!`, [[`#${A64}`, A64]]],
  ['its a #double#rainbow', [['#double#rainbow', 'double#rainbow']]],
  ['##hashash', [['##hashash', '#hashash']]],
  ['##', []],
  ['some #n0n3s@n5e!', [['#n0n3s@n5e', 'n0n3s@n5e']]],
  ['works #with,punctuation', [['#with,punctuation', 'with,punctuation']]],
  [
    'strips trailing #punctuation, #like. #this!',
    [
      ['#punctuation', 'punctuation'],
      ['#like', 'like'],
      ['#this', 'this'],
    ],
  ],
  ['strips #multi_trailing___...', [['#multi_trailing', 'multi_trailing']]],
  [
    'works with #🦋 emoji, and #butter🦋fly',
    [
      ['#🦋', '🦋'],
      ['#butter🦋fly', 'butter🦋fly'],
    ],
  ],
  ['this #t\nag should be a tag', [['#t', 't']]],
  ['match (a\u200Bb): #a\u200Bb', [['#a', 'a']]],
  ['no match (\u200Ba): #\u200Ba', []],
  ['match full width number sign (tag): ＃tag', [['＃tag', 'tag']]],
  ['#2026 is a year, not a tag', []],
  // B2: a dash or a guillemet after a tag ends it, as any punctuation does.
  ['#launch— today', [['#launch', 'launch']]],
  ['« #launch» !', [['#launch', 'launch']]],
  ['#launch–#ship', [['#launch–#ship', 'launch–#ship']]],
  // B3: the keycap emoji #️⃣ (with or without its variation selector) is no tag.
  ['this #️⃣tag should not be a tag', []],
  ['press #️⃣ to continue, or #⃣', []],
  ['this ##️⃣tag should be a tag', [['##️⃣tag', '#️⃣tag']]],
  // Together: a fragment and an `@` inside a link belong to the link.
  [
    '@alice.example.com: #ship_it https://example.com/@bob/#frag',
    [
      ['@alice.example.com', 'did:fake:alice.example.com'],
      ['#ship_it', 'ship_it'],
      ['https://example.com/@bob/#frag', 'https://example.com/@bob/#frag'],
    ],
  ],
];

describe('Bluesky rich text', () => {
  it.each(CASES)('facets of %j', (text, expected) => {
    expect(detected(text)).toEqual(expected);
  });

  it('ranges are UTF-8 bytes: an emoji and an accented letter before a link move it by their bytes', () => {
    const text = 'Café 🎉 https://example.com/x.';
    const facets = facetsOf(text, () => null);
    // "Café " is 6 bytes, "🎉 " 5: the link starts at byte 11 (character 7), and the full stop is not part of it.
    expect(facets).toEqual([
      {
        index: { byteStart: 11, byteEnd: 32 },
        features: [{ $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/x' }],
      },
    ]);
  });

  it('mentions become facets only for handles that resolve; each handle is resolved once', () => {
    const text = '@alice.example.com and @nobody.example.com, @alice.example.com again';
    expect(mentionedHandles(text)).toEqual(['alice.example.com', 'nobody.example.com']);
    const facets = facetsOf(text, (handle) => (handle === 'alice.example.com' ? 'did:plc:alice' : null));
    expect(facets.map((facet) => facet.features[0])).toEqual([
      { $type: 'app.bsky.richtext.facet#mention', did: 'did:plc:alice' },
      { $type: 'app.bsky.richtext.facet#mention', did: 'did:plc:alice' },
    ]);
  });
});

describe('Bluesky record keys and text rules', () => {
  it('a TID is 13 base32-sortable characters that sort by time', () => {
    const earlier = newTid(new Date('2026-01-01T00:00:00Z'));
    const later = newTid(new Date('2026-01-01T00:00:01Z'));
    expect(earlier).toMatch(TID_PATTERN);
    expect(later).toMatch(TID_PATTERN);
    expect(earlier < later).toBe(true);
  });

  it('text is at most 300 graphemes and 3,000 UTF-8 bytes', () => {
    const family = '👨‍👩‍👧'; // one grapheme, 18 bytes
    expect(textViolations('bluesky', family.repeat(160))).toEqual([]);
    expect(textViolations('bluesky', 'a'.repeat(301))).toEqual(['text is 301 characters; the limit is 300']);
    expect(textViolations('bluesky', family.repeat(167))).toEqual(['text is 3006 UTF-8 bytes; the limit is 3000']);
  });
});
