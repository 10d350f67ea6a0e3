import { describe, expect, it } from 'vitest';
import { facetsOf, mentionedHandles } from '../../../src/core/platforms/bluesky/facets.ts';
import { newTid, TID_PATTERN } from '../../../src/core/platforms/bluesky/tid.ts';
import { textViolations } from '../../../src/core/platforms/rules.ts';

/** The text each facet covers, read back from the UTF-8 bytes its index names. */
const covered = (text: string, facets: ReturnType<typeof facetsOf>) =>
  facets.map(({ index }) => Buffer.from(text, 'utf8').subarray(index.byteStart, index.byteEnd).toString('utf8'));

describe('Bluesky rich text', () => {
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

  it('mentions become facets only for handles that resolve; tags drop the #; numbers and URL fragments are not tags', () => {
    const text = '@alice.example.com and @nobody.example.com: #ship_it, #2026 https://example.com/#frag';
    expect(mentionedHandles(text)).toEqual(['alice.example.com', 'nobody.example.com']);
    const facets = facetsOf(text, (handle) => (handle === 'alice.example.com' ? 'did:plc:alice' : null));
    expect(facets.map((facet) => facet.features[0])).toEqual([
      { $type: 'app.bsky.richtext.facet#mention', did: 'did:plc:alice' },
      { $type: 'app.bsky.richtext.facet#tag', tag: 'ship_it' },
      { $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com/#frag' },
    ]);
    expect(covered(text, facets)).toEqual(['@alice.example.com', '#ship_it', 'https://example.com/#frag']);
  });

  it('an e-mail address is no mention', () => {
    expect(mentionedHandles('write to me@example.com')).toEqual([]);
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
