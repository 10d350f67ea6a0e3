import { describe, expect, it } from 'vitest';
import { CONTENT_TYPES, type ContentType } from '../../../db/schema/index.ts';
import { composePost, contentTypeMediaError, type PostSource } from '../../../src/core/publishing/post.ts';

const item = (overrides: Partial<PostSource> = {}): PostSource => ({
  caption: 'Base caption',
  hashtags: ['one', 'two'],
  mediaUrls: ['https://cdn.example.com/a.jpg'],
  contentType: 'single_image',
  platformSpecific: {},
  ...overrides,
});

const media = (count: number) => Array.from({ length: count }, (_, i) => `https://cdn.example.com/${i}.jpg`);

describe('composePost', () => {
  it('posts the caption, a blank line, then the hashtags as #tag words', () => {
    const post = composePost(item(), 'linkedin');
    expect(post).toEqual({
      platform: 'linkedin',
      contentType: 'single_image',
      caption: 'Base caption',
      hashtags: ['one', 'two'],
      mediaUrls: ['https://cdn.example.com/a.jpg'],
      text: 'Base caption\n\n#one #two',
      languages: [],
    });
  });

  it('posts the caption alone when there are no hashtags', () => {
    expect(composePost(item({ hashtags: [] }), 'twitter').text).toBe('Base caption');
  });

  it("replaces caption, hashtags and media with the platform's overrides, and only for that platform", () => {
    const source = item({
      platformSpecific: {
        twitter: { caption: 'Short for X', hashtags: ['x'], media_urls: ['https://cdn.example.com/x.png'] },
      },
    });
    const onX = composePost(source, 'twitter');
    expect(onX.caption).toBe('Short for X');
    expect(onX.hashtags).toEqual(['x']);
    expect(onX.mediaUrls).toEqual(['https://cdn.example.com/x.png']);
    expect(onX.text).toBe('Short for X\n\n#x');
    const elsewhere = composePost(source, 'facebook');
    expect(elsewhere.text).toBe('Base caption\n\n#one #two');
    expect(elsewhere.mediaUrls).toEqual(['https://cdn.example.com/a.jpg']);
  });

  it('keeps the base value for every field an override leaves out', () => {
    const post = composePost(item({ platformSpecific: { instagram: { caption: 'Only the caption' } } }), 'instagram');
    expect(post.text).toBe('Only the caption\n\n#one #two');
    expect(post.mediaUrls).toEqual(['https://cdn.example.com/a.jpg']);
  });

  it('an empty override list removes hashtags or media on that platform', () => {
    const post = composePost(item({ platformSpecific: { tiktok: { hashtags: [], media_urls: [] } } }), 'tiktok');
    expect(post.text).toBe('Base caption');
    expect(post.mediaUrls).toEqual([]);
  });
});

describe('contentTypeMediaError', () => {
  const check = (contentType: ContentType, count: number) =>
    contentTypeMediaError({ contentType, mediaUrls: media(count) });

  it('text_only needs no media', () => {
    expect(check('text_only', 0)).toBeNull();
  });

  it.each(['carousel', 'slideshow'] as const)('%s needs at least 2 media URLs', (contentType) => {
    expect(check(contentType, 2)).toBeNull();
    expect(check(contentType, 1)).toBe(`content type ${contentType} needs at least 2 media_urls; this post has 1`);
    expect(check(contentType, 0)).toBe(`content type ${contentType} needs at least 2 media_urls; this post has 0`);
  });

  const single = CONTENT_TYPES.filter((t) => !['text_only', 'carousel', 'slideshow'].includes(t));
  it('covers every other content type with the one-media rule', () => {
    expect(single).toEqual(['single_image', 'reel', 'talking_head', 'video_hook', 'video_hook_demo']);
  });

  it.each(single)('%s needs at least 1 media URL', (contentType) => {
    expect(check(contentType, 1)).toBeNull();
    expect(check(contentType, 0)).toBe(`content type ${contentType} needs at least 1 media_urls; this post has 0`);
  });
});
