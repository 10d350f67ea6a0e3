import { describe, expect, it } from 'vitest';
import { connectorsFor } from '../../../src/core/publishing/connectors/index.ts';
import { checkPlatform, refusalOf } from '../../../src/core/publishing/readiness.ts';
import type { PostSource } from '../../../src/core/publishing/post.ts';
import type { PlatformAccountLookup } from '../../../src/core/social-accounts/operations.ts';
import { testRuntime } from '../../helpers/runtime.ts';

const item = (overrides: Partial<PostSource> = {}): PostSource => ({
  caption: 'A caption worth posting',
  hashtags: [],
  mediaUrls: [],
  contentType: 'text_only',
  platformSpecific: {},
  ...overrides,
});

const none = (): PlatformAccountLookup => ({ state: 'none' });

/** A readiness problem is data: a code, the platform and its numbers, with the API's sentence built from them. */
describe('readiness problems', async () => {
  const connectors = connectorsFor(await testRuntime());

  it('an over-long X text carries text_too_long with the measure, the limit and the unit', () => {
    const check = checkPlatform(connectors, none, item({ caption: 'a'.repeat(297) }), 'twitter');
    expect(check.problems).toEqual([
      {
        code: 'account_missing',
        platform: 'twitter',
        message: 'No connected twitter account in this workspace; connect one before publishing to twitter.',
      },
      {
        code: 'text_too_long',
        platform: 'twitter',
        measure: 297,
        limit: 280,
        unit: 'weighted characters',
        message: 'twitter: text is 297 weighted characters; the limit is 280',
      },
    ]);
    // The API's sentences stay as they were: the account's, then the platform's refusal.
    expect(check.messages).toEqual([
      'No connected twitter account in this workspace; connect one before publishing to twitter.',
      'twitter: text is 297 weighted characters; the limit is 280',
    ]);
  });

  it('several rule problems are one refusal sentence for the API, each still its own problem', () => {
    const check = checkPlatform(
      connectors,
      none,
      item({
        caption: `${'a'.repeat(10)} #a #b #c #d #e #f`,
        contentType: 'carousel',
        mediaUrls: ['https://cdn.example.com/1.jpg'],
      }),
      'instagram',
    );
    const rules = check.problems.filter((problem) => problem.code !== 'account_missing');
    expect(rules.map((problem) => problem.code)).toEqual(['too_few_media_for_type']);
    expect(rules[0]).toMatchObject({ content_type: 'carousel', measure: 1, limit: 2, unit: 'media items' });
    const links = Array.from({ length: 6 }, (_, n) => `https://example.com/${n}`).join(' ');
    const caption = `${links} ${'x'.repeat(400)}`;
    const threads = checkPlatform(connectors, none, item({ caption }), 'threads');
    expect(threads.problems.map((problem) => [problem.code, problem.measure, problem.limit, problem.unit])).toEqual([
      ['account_missing', undefined, undefined, undefined],
      ['text_too_long', caption.length, 500, 'characters (an emoji counts its UTF-8 bytes)'],
      ['too_many_links', 6, 5, 'links'],
    ]);
    expect(threads.messages[1]).toBe(
      `threads: text is ${caption.length} characters (an emoji counts its UTF-8 bytes); the limit is 500. threads: text has 6 links; the limit is 5`,
    );
    expect(refusalOf(threads)).toBe(threads.messages.join(' '));
  });

  it('an unknown platform carries unknown_platform', () => {
    const check = checkPlatform(connectors, none, item(), 'mastodon');
    expect(check.problems).toMatchObject([{ code: 'unknown_platform', platform: 'mastodon' }]);
    expect(check.messages[0]).toMatch(/^Unknown platform "mastodon": the known platform ids are twitter, /);
  });
});
