import { afterEach, describe, expect, it, vi } from 'vitest';
import { sandboxPosts, type ContentType, type Platform } from '../../../db/schema/index.ts';
import { PLATFORMS } from '../../../src/core/platforms/registry.ts';
import type { PlatformPost, PublishTarget } from '../../../src/core/publishing/connector.ts';
import { connectorsFor } from '../../../src/core/publishing/connectors/index.ts';
import { sandboxConnector } from '../../../src/core/publishing/connectors/sandbox.ts';
import { ruleRefusal } from '../../../src/core/platforms/problems.ts';
import { PLATFORM_RULES } from '../../../src/core/platforms/rules.ts';
import { composePost, type PostSource } from '../../../src/core/publishing/post.ts';
import { testRuntime } from '../../helpers/runtime.ts';

const media = (count: number) => Array.from({ length: count }, (_, i) => `https://cdn.example.com/${i}.jpg`);

const item = (overrides: Partial<PostSource> = {}): PostSource => ({
  caption: 'A caption worth posting',
  hashtags: [],
  mediaUrls: media(1),
  contentType: 'single_image',
  platformSpecific: {},
  ...overrides,
});

const target: PublishTarget = {
  account: { id: 'acct-1', workspaceId: 'ws-1', platformUserId: 'user-42', username: 'brand', mode: 'sandbox' },
  attemptId: 'attempt-1',
};

/** validate for one platform, on the post composed from `source` for that platform: the refusal as the API words it, or null. */
const validateOn = async (platform: Platform, source: PostSource) => {
  const problems = sandboxConnector(await testRuntime(), platform).validate(composePost(source, platform));
  return problems.length > 0 ? ruleRefusal(problems) : null;
};

const tags = (count: number, prefix = 'tag') => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

describe('sandbox connector rules', () => {
  it('keeps one row of limits per platform: the text, hashtag and media-required rules, and the media caps the README lists', () => {
    expect(PLATFORM_RULES).toEqual({
      twitter: { maxText: 280, textMeasure: 'x-weighted', maxMedia: 4, mediaRequired: false, maxHashtags: null },
      linkedin: { maxText: 3000, textMeasure: 'code-points', maxMedia: 20, mediaRequired: false, maxHashtags: null },
      instagram: { maxText: 2200, textMeasure: 'code-points', maxMedia: 10, mediaRequired: true, maxHashtags: 30 },
      facebook: { maxText: 63206, textMeasure: 'code-points', maxMedia: 10, mediaRequired: false, maxHashtags: null },
      tiktok: { maxText: 2200, textMeasure: 'code-points', maxMedia: 35, mediaRequired: true, maxHashtags: null },
      threads: {
        maxText: 500,
        textMeasure: 'emoji-bytes',
        maxMedia: 20,
        mediaRequired: false,
        maxHashtags: null,
        maxLinks: 5,
      },
      bluesky: {
        maxText: 300,
        textMeasure: 'graphemes',
        maxTextBytes: 3000,
        maxMedia: 4,
        mediaRequired: false,
        maxHashtags: null,
        refusesVideo: true,
      },
    });
  });

  it('bluesky counts graphemes, caps the UTF-8 bytes, and refuses a video where the preview sees it', async () => {
    // 👍🏽 is one grapheme of two code points (8 bytes): 300 of them are 300 characters, 2,400 bytes.
    expect(await validateOn('bluesky', item({ caption: '👍🏽'.repeat(300) }))).toBeNull();
    expect(await validateOn('bluesky', item({ caption: '👍🏽'.repeat(301) }))).toBe(
      'bluesky: text is 301 characters; the limit is 300',
    );
    // 🧑‍🚀 is one grapheme of 11 bytes: 273 of them pass 3,000 bytes while well under 300 characters.
    expect(await validateOn('bluesky', item({ caption: '🧑‍🚀'.repeat(273) }))).toBe(
      'bluesky: text is 3003 UTF-8 bytes; the limit is 3000',
    );
    expect(
      await validateOn('bluesky', item({ contentType: 'reel', mediaUrls: ['https://cdn.example.com/clip.mp4'] })),
    ).toBe(
      'bluesky: post has a video (https://cdn.example.com/clip.mp4); the platform takes images only, so publish the video elsewhere',
    );
    // Other platforms take the same video.
    expect(
      await validateOn('twitter', item({ contentType: 'reel', mediaUrls: ['https://cdn.example.com/clip.mp4'] })),
    ).toBeNull();
    expect(await validateOn('bluesky', item({ mediaUrls: media(5), contentType: 'slideshow' }))).toBe(
      'bluesky: post has 5 media items; the limit is 4',
    );
  });

  const textLimits = [
    ['twitter', 280, 'weighted characters'],
    ['linkedin', 3000, 'characters'],
    ['instagram', 2200, 'characters'],
    ['facebook', 63206, 'characters'],
    ['tiktok', 2200, 'characters'],
  ] as const;

  it.each(textLimits)('%s accepts text of exactly %i and refuses one more', async (platform, limit, unit) => {
    expect(await validateOn(platform, item({ caption: 'a'.repeat(limit) }))).toBeNull();
    expect(await validateOn(platform, item({ caption: 'a'.repeat(limit + 1) }))).toBe(
      `${platform}: text is ${limit + 1} ${unit}; the limit is ${limit}`,
    );
  });

  it('threads counts an emoji by its UTF-8 bytes, and refuses a sixth link', async () => {
    // 🚀 is 4 UTF-8 bytes, so 496 letters and one rocket are exactly 500; a second rocket is 504.
    expect(await validateOn('threads', item({ caption: `${'a'.repeat(496)}🚀` }))).toBeNull();
    expect(await validateOn('threads', item({ caption: `${'a'.repeat(496)}🚀🚀` }))).toBe(
      'threads: text is 504 characters (an emoji counts its UTF-8 bytes); the limit is 500',
    );
    expect(await validateOn('threads', item({ caption: `${'a'.repeat(500)}` }))).toBeNull();
    expect(await validateOn('threads', item({ caption: 'a'.repeat(501) }))).toBe(
      'threads: text is 501 characters (an emoji counts its UTF-8 bytes); the limit is 500',
    );
    const links = (n: number) => Array.from({ length: n }, (_, i) => `https://example.com/${i}`).join(' ');
    expect(await validateOn('threads', item({ caption: links(5) }))).toBeNull();
    expect(await validateOn('threads', item({ caption: links(6) }))).toBe('threads: text has 6 links; the limit is 5');
  });

  it.each(textLimits)('%s counts the appended hashtags in the text length', async (platform, limit) => {
    // "#ab" plus the blank line is 5 more characters (weighted 5 on X too).
    expect(await validateOn(platform, item({ caption: 'a'.repeat(limit - 5), hashtags: ['ab'] }))).toBeNull();
    expect(await validateOn(platform, item({ caption: 'a'.repeat(limit - 4), hashtags: ['ab'] }))).toMatch(
      new RegExp(`^${platform}: text is ${limit + 1} `),
    );
  });

  it.each(['linkedin', 'instagram', 'facebook', 'tiktok'] as const)(
    '%s counts code points, so an emoji is one character',
    async (platform) => {
      const limit = PLATFORM_RULES[platform].maxText;
      // 2 UTF-16 units each: counting .length would refuse this.
      expect(await validateOn(platform, item({ caption: '😀'.repeat(limit) }))).toBeNull();
      expect(await validateOn(platform, item({ caption: '😀'.repeat(limit + 1) }))).toBe(
        `${platform}: text is ${limit + 1} characters; the limit is ${limit}`,
      );
    },
  );

  describe('X weighted length', () => {
    it('weighs an emoji as 2', async () => {
      expect(await validateOn('twitter', item({ caption: '😀'.repeat(140) }))).toBeNull();
      // 141 characters, far under 280 by count, but 282 weighted.
      expect(await validateOn('twitter', item({ caption: '😀'.repeat(141) }))).toBe(
        'twitter: text is 282 weighted characters; the limit is 280',
      );
    });

    it('weighs a CJK character as 2', async () => {
      expect(await validateOn('twitter', item({ caption: '中'.repeat(140) }))).toBeNull();
      expect(await validateOn('twitter', item({ caption: '中'.repeat(139) + 'ab' }))).toBeNull();
      expect(await validateOn('twitter', item({ caption: '中'.repeat(140) + 'a' }))).toBe(
        'twitter: text is 281 weighted characters; the limit is 280',
      );
    });

    it('weighs any URL as 23, however long', async () => {
      const url = `https://example.com/${'p'.repeat(300)}`;
      // 256 + space + 23 = 280, though the text is over 570 characters long.
      expect(await validateOn('twitter', item({ caption: `${'a'.repeat(256)} ${url}` }))).toBeNull();
      expect(await validateOn('twitter', item({ caption: `${'a'.repeat(257)} ${url}` }))).toBe(
        'twitter: text is 281 weighted characters; the limit is 280',
      );
    });
  });

  describe('Instagram hashtags', () => {
    it('accepts 30 hashtags and refuses 31', async () => {
      expect(await validateOn('instagram', item({ hashtags: tags(30) }))).toBeNull();
      expect(await validateOn('instagram', item({ hashtags: tags(31) }))).toBe(
        'instagram: text has 31 hashtags; the limit is 30',
      );
    });

    it('counts #tags written in the caption with the listed ones', async () => {
      const caption = `Morning ${tags(10, 'inline')
        .map((t) => `#${t}`)
        .join(' ')} done`;
      expect(await validateOn('instagram', item({ caption, hashtags: tags(20) }))).toBeNull();
      expect(await validateOn('instagram', item({ caption, hashtags: tags(21) }))).toBe(
        'instagram: text has 31 hashtags; the limit is 30',
      );
    });

    it('sets no hashtag limit on the other platforms', async () => {
      expect(await validateOn('linkedin', item({ hashtags: tags(40) }))).toBeNull();
    });
  });

  describe('media', () => {
    it.each(PLATFORMS.map((p) => [p, PLATFORM_RULES[p].maxMedia] as const))(
      '%s accepts %i media items and refuses one more',
      async (platform, max) => {
        expect(await validateOn(platform, item({ mediaUrls: media(max) }))).toBeNull();
        expect(await validateOn(platform, item({ mediaUrls: media(max + 1) }))).toBe(
          `${platform}: post has ${max + 1} media items; the limit is ${max}`,
        );
      },
    );

    it.each(['instagram', 'tiktok'] as const)('%s refuses a post without media, even text_only', async (platform) => {
      expect(await validateOn(platform, item({ contentType: 'text_only', mediaUrls: [] }))).toBe(
        `${platform}: post has no media; the platform requires at least 1 media item`,
      );
      expect(await validateOn(platform, item({ contentType: 'text_only', mediaUrls: media(1) }))).toBeNull();
    });

    it.each(['twitter', 'linkedin', 'facebook'] as const)(
      '%s takes a text_only post without media',
      async (platform) => {
        expect(await validateOn(platform, item({ contentType: 'text_only', mediaUrls: [] }))).toBeNull();
      },
    );
  });

  describe('content-type media rules, on every platform', () => {
    const cases: Array<[ContentType, number]> = [
      ['carousel', 2],
      ['slideshow', 2],
      ['single_image', 1],
      ['reel', 1],
      ['talking_head', 1],
      ['video_hook', 1],
      ['video_hook_demo', 1],
    ];
    for (const platform of PLATFORMS) {
      it.each(cases)(`${platform}: %s needs %i media`, async (contentType, needed) => {
        expect(await validateOn(platform, item({ contentType, mediaUrls: media(needed) }))).toBeNull();
        expect(await validateOn(platform, item({ contentType, mediaUrls: media(needed - 1) }))).toBe(
          `${platform}: content type ${contentType} needs at least ${needed} media_urls; this post has ${needed - 1}`,
        );
      });
    }
  });

  it('names every broken rule in one answer', async () => {
    // 2300 + blank line + 31 tags (#tag0..#tag9: 5 each, #tag10..#tag30: 6 each) and 30 spaces = 2508.
    const error = await validateOn(
      'instagram',
      item({ caption: 'a'.repeat(2300), hashtags: tags(31), contentType: 'carousel', mediaUrls: media(1) }),
    );
    expect(error).toBe(
      [
        'instagram: text is 2508 characters; the limit is 2200',
        'instagram: text has 31 hashtags; the limit is 30',
        'instagram: content type carousel needs at least 2 media_urls; this post has 1',
      ].join('. '),
    );
  });

  it('judges the overrides: a caption shortened for one platform passes there while the base fails elsewhere', async () => {
    const source = item({
      caption: 'a'.repeat(2500),
      platformSpecific: {
        instagram: { caption: 'Short enough' },
        twitter: { caption: 'Short for X', media_urls: media(4) },
      },
    });
    expect(await validateOn('instagram', source)).toBeNull();
    expect(await validateOn('twitter', source)).toBeNull();
    expect(await validateOn('tiktok', source)).toBe('tiktok: text is 2500 characters; the limit is 2200');
    expect(await validateOn('linkedin', source)).toBeNull();
  });

  it('judges overridden media and hashtags, not the base ones', async () => {
    const source = item({
      mediaUrls: media(8),
      platformSpecific: { twitter: { media_urls: media(5) }, instagram: { hashtags: tags(31) } },
    });
    expect(await validateOn('twitter', source)).toBe('twitter: post has 5 media items; the limit is 4');
    expect(await validateOn('instagram', source)).toBe('instagram: text has 31 hashtags; the limit is 30');
    expect(await validateOn('facebook', source)).toBeNull();
  });
});

describe('sandbox connector publish', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const postFor = (platform: Platform, overrides: Partial<PostSource> = {}): PlatformPost =>
    composePost(item(overrides), platform);

  it('records exactly one sandbox post under the id it returns', async () => {
    const runtime = await testRuntime();
    const post = postFor('linkedin', { hashtags: ['launch'], mediaUrls: media(2) });
    const outcome = await sandboxConnector(runtime, 'linkedin').publish(post, target);
    expect(outcome.status).toBe('published');
    const rows = await runtime.db.select().from(sandboxPosts).all();
    expect(rows).toHaveLength(1);
    expect(outcome).toEqual({ status: 'published', platformPostId: rows[0].id, url: null });
    expect(rows[0]).toEqual({
      id: expect.stringMatching(/^linkedin_[0-9A-Za-z]{20}$/),
      platform: 'linkedin',
      platformUserId: 'user-42',
      attemptId: 'attempt-1',
      text: 'A caption worth posting\n\n#launch',
      mediaUrls: media(2),
      createdAt: runtime.clock.now(),
    });
  });

  it('gives every published post its own id; concurrent publishes all land', async () => {
    const runtime = await testRuntime();
    const connectors = connectorsFor(runtime);
    const outcomes = await Promise.all(
      PLATFORMS.map((platform) =>
        connectors.get(platform)!.publish(postFor(platform), { ...target, attemptId: `attempt-${platform}` }),
      ),
    );
    const ids = outcomes.map((o) => (o.status === 'published' ? o.platformPostId : o.error));
    expect(new Set(ids).size).toBe(PLATFORMS.length);
    const rows = await runtime.db.select().from(sandboxPosts).all();
    expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(rows.map((r) => r.platform).sort()).toEqual([...PLATFORMS].sort());
  });

  it('re-checks the rules itself: an invalid post is rejected and nothing is recorded', async () => {
    const runtime = await testRuntime();
    const outcome = await sandboxConnector(runtime, 'twitter').publish(
      postFor('twitter', { caption: 'a'.repeat(281) }),
      target,
    );
    expect(outcome).toEqual({
      status: 'rejected',
      error: 'twitter: text is 281 weighted characters; the limit is 280',
    });
    expect(await runtime.db.select().from(sandboxPosts).all()).toHaveLength(0);
  });

  it("answers only after the platform's configured delay", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const runtime = await testRuntime({ env: { SANDBOX_PUBLISH_DELAY_MS: 'linkedin:5000' } });
    let settled = false;
    const pending = sandboxConnector(runtime, 'linkedin')
      .publish(postFor('linkedin'), target)
      .finally(() => {
        settled = true;
      });
    await vi.advanceTimersByTimeAsync(4999);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    expect(await runtime.db.select().from(sandboxPosts).all()).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect((await pending).status).toBe('published');
    expect(await runtime.db.select().from(sandboxPosts).all()).toHaveLength(1);
  });

  it('does not wait on a platform without a delay', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const runtime = await testRuntime({ env: { SANDBOX_PUBLISH_DELAY_MS: 'linkedin:5000' } });
    // No timer is advanced: a wait here would never end and the test would time out.
    expect((await sandboxConnector(runtime, 'twitter').publish(postFor('twitter'), target)).status).toBe('published');
  });
});

describe('connectorsFor', () => {
  it('has a sandbox connector for every known platform', async () => {
    const connectors = connectorsFor(await testRuntime());
    expect([...connectors.keys()].sort()).toEqual([...PLATFORMS].sort());
    for (const [id, connector] of connectors) expect(connector.platform).toBe(id);
  });
});
