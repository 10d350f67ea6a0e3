import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PlatformPreviewData } from '../../src/core/content/review.ts';
import {
  cardProblems,
  foldIndex,
  renderHashtagLine,
  renderMediaStrip,
  renderPreviewCard,
} from '../../src/web/preview/platform-preview.ts';

const preview = (overrides: Partial<PlatformPreviewData>): PlatformPreviewData => ({
  platform: 'linkedin',
  name: 'LinkedIn',
  text: 'Hello',
  length: 5,
  limit: 3000,
  unit: 'characters',
  foldAt: 210,
  hashtags: [],
  mediaUrls: [],
  mediaAltText: [],
  problems: [],
  ...overrides,
});

/** The pure preview card: what each platform would show and refuse, as HTML from data alone. */
describe('platform preview card', () => {
  it('says an over-long X text the way a person reads it, instead of the platform message', () => {
    const x = preview({
      platform: 'twitter',
      name: 'X',
      length: 297,
      limit: 280,
      unit: 'weighted characters',
      foldAt: null,
      problems: [
        {
          code: 'text_too_long',
          platform: 'twitter',
          measure: 297,
          limit: 280,
          unit: 'weighted characters',
          message: 'twitter: text is 297 weighted characters; the limit is 280',
        },
        { code: 'account_missing', platform: 'twitter', message: 'No connected twitter account' },
      ],
    });
    expect(cardProblems(x)).toEqual([
      'X: 297 of 280 characters',
      'No connected X account in this workspace; connect one before publishing to X.',
    ]);
    const card = renderPreviewCard(x);
    expect(card).toContain('297 of 280 weighted characters');
    expect(card).toContain('X would refuse this post:');
    expect(card).toMatch(/<ul class="problems" aria-label="X problems">\s*<li>X: 297 of 280 characters<\/li>/);
    expect(card).not.toContain('Ready for X');
  });

  it('a ready platform says so and lists no problems', () => {
    const card = renderPreviewCard(preview({}));
    expect(card).toContain('<p class="ready">Ready for LinkedIn</p>');
    expect(card).not.toContain('problems');
  });

  it('folds LinkedIn and Instagram text at their cut, with "…more" and the rest behind it', () => {
    const text = `${'a'.repeat(124)}é👍 and the rest`;
    const card = renderPreviewCard(preview({ platform: 'instagram', name: 'Instagram', text, foldAt: 125 }));
    expect(card).toContain(`<p class="text">${'a'.repeat(124)}é<span class="fold">…more</span></p>`);
    expect(card).toMatch(/<summary>Text after “…more”<\/summary>\s*<p class="text">👍 and the rest<\/p>/);
    expect(card).toContain('Instagram shows the first 125 characters, then “…more”.');
    const short = renderPreviewCard(preview({ text: 'Short enough' }));
    expect(short).not.toContain('…more');
  });

  it('in a list, stops at the fold without the rest of the text, which the caption above shows whole', () => {
    const text = `${'a'.repeat(124)}é👍 and the rest`;
    const card = renderPreviewCard(preview({ platform: 'instagram', name: 'Instagram', text, foldAt: 125 }), {
      compact: true,
    });
    expect(card).toContain(`<p class="text">${'a'.repeat(124)}é<span class="fold">…more</span></p>`);
    expect(card).not.toContain('and the rest');
    expect(card).not.toContain('Instagram shows the first');
    // Text the platform shows whole is shown whole, folded or not.
    const x = renderPreviewCard(preview({ platform: 'twitter', name: 'X', text: 'All of it', foldAt: null }), {
      compact: true,
    });
    expect(x).toContain('<p class="text">All of it</p>');
  });

  it('leaves out hashtags and media shown once above the cards, and renders that line alone', () => {
    const data = preview({ hashtags: ['spring', 'sale'], mediaUrls: ['https://cdn.example/a.jpg'] });
    expect(renderPreviewCard(data)).toContain('<p class="tags">Hashtags: #spring #sale</p>');
    const card = renderPreviewCard(data, { showHashtags: false, showMedia: false });
    expect(card).not.toContain('Hashtags');
    expect(card).not.toContain('<img');
    expect(renderHashtagLine(['spring', 'sale'])).toBe('<p class="tags">Hashtags: #spring #sale</p>');
    expect(renderHashtagLine([])).toBe('');
  });

  it('counts the fold in code points, so an emoji is never cut in half', () => {
    expect(foldIndex('👍👍👍', 2)).toBe(4);
    expect(foldIndex('abc', 3)).toBeNull();
    expect(foldIndex('abc', null)).toBeNull();
    expect(foldIndex('👍👍', 2)).toBeNull();
  });

  it('lists the hashtags and the media thumbnails in order, each with the alt text it goes out with', () => {
    const card = renderPreviewCard(
      preview({
        hashtags: ['winter', 'recycled'],
        mediaUrls: ['https://cdn.example.com/1.jpg', 'https://cdn.example.com/2.jpg'],
        mediaAltText: ['A red "winter" coat', null],
      }),
    );
    expect(card).toContain('Hashtags: #winter #recycled');
    const images = [...card.matchAll(/<img\s+src="([^"]+)"\s+alt="([^"]+)"/g)].map((m) => [m[1], m[2]]);
    expect(images).toEqual([
      ['https://cdn.example.com/1.jpg', 'A red &quot;winter&quot; coat'],
      ['https://cdn.example.com/2.jpg', 'Media 2 of 2, no alt text'],
    ]);
    expect([...card.matchAll(/<small class="alt[^"]*"[^>]*>([^<]+)<\/small>/g)].map((m) => m[1])).toEqual([
      'Alt: A red &quot;winter&quot; coat',
      'No alt text',
    ]);
  });

  it('a list shows media every platform shares once, in order, and the cards leave them out', () => {
    const urls = ['https://cdn.example.com/1.jpg', 'https://cdn.example.com/2.jpg'];
    const strip = renderMediaStrip(urls, ['First', null]);
    expect([...strip.matchAll(/src="([^"]+)"/g)].map((m) => m[1])).toEqual(urls);
    expect(renderPreviewCard(preview({ mediaUrls: urls }), { showMedia: false })).not.toContain('<img');
    expect(strip).toContain('alt="First"');
    expect(renderMediaStrip([], [])).toBe('');
  });

  it('escapes everything that comes from the post', () => {
    const card = renderPreviewCard(
      preview({
        text: '<script>alert("x")</script>',
        hashtags: ['<b>'],
        mediaUrls: ['https://cdn.example.com/a.jpg" onerror="alert(1)'],
        problems: [{ code: 'account_inactive', platform: 'linkedin', username: '<img src=x>', message: '' }],
      }),
    );
    expect(card).not.toMatch(/<script|<b>|<img src=x>|" onerror=/);
    expect(card).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
  });

  it("names the platform as the data names it (the registry's name), and a platform without a name by its id", () => {
    expect(renderPreviewCard(preview({ platform: 'threads', name: 'Threads' }))).toContain('<h3>Threads</h3>');
    expect(renderPreviewCard(preview({ platform: 'mastodon', name: undefined }))).toContain('<h3>mastodon</h3>');
    // No copy of the registry's names: the module names no platform itself.
    const source = readFileSync(new URL('../../src/web/preview/platform-preview.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/'(LinkedIn|TikTok|Bluesky|Threads)'/);
  });

  it("says each problem in its own words from the code and numbers, never from core's sentence", () => {
    const threads = preview({
      platform: 'threads',
      name: 'Threads',
      problems: [
        // Sentences a regular expression over core's English would misread: the card must not read them.
        {
          code: 'text_too_long',
          platform: 'threads',
          measure: 612,
          limit: 500,
          unit: 'characters (an emoji counts its UTF-8 bytes)',
          message: 'threads: text is 612 characters (an emoji counts its UTF-8 bytes); the limit is 500',
        },
        { code: 'too_many_hashtags', platform: 'threads', measure: 2, limit: 1, unit: 'hashtags', message: 'unused' },
        { code: 'account_needs_reconnect', platform: 'threads', username: 'acme', message: 'unused' },
        {
          code: 'too_few_media_for_type',
          platform: 'threads',
          content_type: 'carousel',
          measure: 1,
          limit: 2,
          unit: 'media items',
          message: 'unused',
        },
      ],
    });
    expect(cardProblems(threads)).toEqual([
      'Threads: 612 of 500 characters',
      'Threads: 2 hashtags, 1 at most',
      'The Threads account @acme must be reconnected: Threads no longer accepts its tokens. Connect it again, then publish again.',
      'Threads: a carousel post needs at least 2 media items, this one has 1',
    ]);
    expect(cardProblems(threads).join(' ')).not.toMatch(/threads|unused/);
  });

  it('stays pure: besides types, it imports only its own escaping template, so a browser can run it', () => {
    for (const file of ['platform-preview.ts', 'html.ts']) {
      const source = readFileSync(new URL(`../../src/web/preview/${file}`, import.meta.url), 'utf8');
      const imports = [...source.matchAll(/^import\s+(type\s+)?[^'"]*from\s+'([^']+)'/gm)]
        .filter((match) => !match[1])
        .map((match) => match[2]);
      expect(imports, file).toEqual(file === 'html.ts' ? [] : ['./html.ts']);
    }
  });
});
