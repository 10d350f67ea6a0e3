import { afterEach, describe, expect, it, vi } from 'vitest';
import { CONTENT_TYPES, type ContentType } from '../../../db/schema/index.ts';
import {
  draftProblems,
  mentions,
  type BrandBrief,
  type Draft,
  type GenerationRequest,
} from '../../../src/core/campaigns/generator.ts';
import { builtinGenerator } from '../../../src/core/campaigns/generators/builtin/index.ts';

/** A year of 50 posts a day: the largest campaign the service plans for. */
const YEAR_OF_SLOTS = 365 * 50;

/** The brand profile as GET returns it when nothing was set. */
const EMPTY_BRAND: BrandBrief = {
  brand_name: null,
  industry: null,
  company_description: null,
  website_url: null,
  voice: null,
  audience: null,
  target_audience: null,
  style_notes: null,
  example_posts: [],
  topics_to_lean_into: [],
  topics_to_avoid: [],
  vocabulary: [],
  forbidden_words: [],
  hashtag_strategy: null,
  tone_formality: 5,
  tone_humor: 5,
  tone_energy: 5,
};

const TYPICAL_BRAND: BrandBrief = {
  ...EMPTY_BRAND,
  brand_name: 'Brightside Kitchen',
  industry: 'food and nutrition',
  website_url: 'https://brightside.example.com',
  voice: 'warm and practical',
  target_audience: 'busy parents',
  topics_to_lean_into: [
    'meal prep',
    'family dinners',
    'lunchbox ideas',
    'seasonal produce',
    'batch cooking',
    'pantry staples',
  ],
  topics_to_avoid: ['diet culture'],
  vocabulary: ['wholesome', 'from scratch', 'weeknight'],
  forbidden_words: ['cheap'],
};

/** The content mix of a typical campaign, cycled over the slots. */
const MIX: ContentType[] = [
  'reel',
  'reel',
  'carousel',
  'carousel',
  'talking_head',
  'video_hook',
  'slideshow',
  'single_image',
  'text_only',
  'video_hook_demo',
];

function slots(count: number, types: readonly ContentType[] = MIX, from = 0) {
  const start = Date.UTC(2026, 0, 1);
  return Array.from({ length: count }, (_, i) => ({
    index: from + i,
    contentType: types[(from + i) % types.length],
    scheduledFor: new Date(start + Math.floor((from + i) / 50) * 86_400_000 + ((from + i) % 50) * 1_700_000),
  }));
}

function request(overrides: Partial<GenerationRequest> & { count?: number } = {}): GenerationRequest {
  const { count = 500, ...rest } = overrides;
  return {
    campaign: {
      id: 'cmp_3c1f0a9e',
      name: 'Autumn menu',
      description: 'Seasonal recipes for busy weeknights',
      totalPosts: count,
    },
    brand: TYPICAL_BRAND,
    templates: [],
    slots: slots(count),
    ...rest,
  };
}

const share = (drafts: readonly Draft[], test: (draft: Draft) => boolean) => drafts.filter(test).length / drafts.length;
const distinctShare = (drafts: readonly Draft[]) => new Set(drafts.map((draft) => draft.caption)).size / drafts.length;
const CONTRACTION =
  /\b(?:don't|doesn't|isn't|can't|won't|it's|that's|here's|what's|there's|let's|you're|we're|you'll|we've|you'd|they're)\b/i;
const EMOJI = /\p{Extended_Pictographic}/u;

function expectEveryDraftPasses(drafts: readonly Draft[], brand: BrandBrief) {
  const failing = drafts
    .map((draft) => ({ draft, problems: draftProblems(draft, brand) }))
    .filter((entry) => entry.problems.length > 0);
  expect(failing.slice(0, 3)).toEqual([]);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('built-in caption generator', () => {
  it('writes one draft per slot, in order, and the same draft for the same campaign, slot and brand', async () => {
    const random = vi.spyOn(Math, 'random');
    const now = vi.spyOn(Date, 'now');
    const whole = await builtinGenerator.generate(request({ count: 300, templates: ['Hook / 3 tips / CTA'] }));
    expect(builtinGenerator.name).toBe('builtin');
    expect(whole).toHaveLength(300);
    // Neither chance nor the clock decide a draft.
    expect(random).not.toHaveBeenCalled();
    expect(now).not.toHaveBeenCalled();

    const again = await builtinGenerator.generate(request({ count: 300, templates: ['Hook / 3 tips / CTA'] }));
    expect(again).toEqual(whole);
    // A batch resumed after a crash writes exactly what the first run would have.
    const resumed = await builtinGenerator.generate(
      request({ count: 300, templates: ['Hook / 3 tips / CTA'], slots: slots(60, MIX, 240) }),
    );
    expect(resumed).toEqual(whole.slice(240));

    // Another campaign with the same brand gets other captions.
    const other = await builtinGenerator.generate({
      ...request({ count: 300, templates: ['Hook / 3 tips / CTA'] }),
      campaign: { id: 'cmp_other', name: 'Autumn menu', description: null, totalPosts: 300 },
    });
    const same = other.filter((draft, i) => draft.caption === whole[i].caption).length;
    expect(same).toBeLessThan(15);
  });

  it('writes a year of 50 posts a day, every draft valid, nearly all distinct, every topic and the vocabulary used', async () => {
    const templates = ['Hook / 3 tips / CTA', 'Question / Myth vs fact / Follow for more'];
    const brand: BrandBrief = {
      ...TYPICAL_BRAND,
      hashtag_strategy: 'One branded hashtag #BrightsideKitchen plus 2 topic hashtags',
    };
    const input = request({ count: YEAR_OF_SLOTS, brand, templates });
    await builtinGenerator.generate(request({ count: 2000, brand, templates })); // warm-up
    const started = performance.now();
    const drafts = await builtinGenerator.generate(input);
    const milliseconds = performance.now() - started;
    const distinct = distinctShare(drafts);
    // How fast is for `npm run bench -- generation` ("A year of posts"); a test only prints it.
    console.log(
      `builtin generator: ${YEAR_OF_SLOTS} drafts in ${milliseconds.toFixed(0)} ms; ${(distinct * 100).toFixed(2)}% distinct captions`,
    );

    expect(drafts).toHaveLength(YEAR_OF_SLOTS);
    expect(distinct).toBeGreaterThanOrEqual(0.95);
    expectEveryDraftPasses(drafts, brand);

    // Every lean-into topic comes up once in each run of as many slots as there are topics.
    const topics = brand.topics_to_lean_into;
    expect(new Set(drafts.map((draft) => draft.topic))).toEqual(new Set(topics));
    for (let start = 0; start < topics.length * 20; start += topics.length) {
      expect(new Set(drafts.slice(start, start + topics.length).map((draft) => draft.topic))).toEqual(new Set(topics));
    }
    // The caption is about its topic.
    expect(share(drafts, (draft) => draft.caption.toLowerCase().includes(draft.topic!.toLowerCase()))).toBeGreaterThan(
      0.9,
    );

    const vocabulary = share(drafts, (draft) =>
      brand.vocabulary.some((word) => draft.caption.toLowerCase().includes(word)),
    );
    const brandName = share(drafts, (draft) => draft.caption.includes('Brightside Kitchen'));
    const website = share(drafts, (draft) => draft.caption.includes('https://brightside.example.com'));
    const audience = share(drafts, (draft) => draft.caption.includes('busy parents'));
    const question = share(drafts, (draft) => draft.caption.includes('?'));
    console.log(
      `builtin generator: vocabulary in ${(vocabulary * 100).toFixed(1)}%, brand name ${(brandName * 100).toFixed(1)}%, website ${(website * 100).toFixed(1)}%, audience ${(audience * 100).toFixed(1)}%, a question ${(question * 100).toFixed(1)}%`,
    );
    expect(vocabulary).toBeGreaterThan(0.4);
    expect(brandName).toBeGreaterThan(0.05);
    expect(website).toBeGreaterThan(0.05);
    expect(audience).toBeGreaterThan(0.05);
    expect(question).toBeGreaterThan(0.15);

    // "One branded hashtag plus 2 topic hashtags": three, the named one first, then the topic's.
    expect(drafts.every((draft) => draft.hashtags.length === 3 && draft.hashtags[0] === 'BrightsideKitchen')).toBe(
      true,
    );
    expect(share(drafts, (draft) => draft.hashtags[1].toLowerCase() === draft.topic!.replace(/ /g, ''))).toBe(1);
  });

  it('never writes a forbidden word or an avoided topic, even ones its own phrases and the brand material use', async () => {
    // Words the phrasebook really uses, checked first so the bans below are not vacuous.
    const banned = [
      'you',
      'today',
      'simple',
      'tip',
      'small',
      'save',
      'follow',
      'habits',
      'results',
      'consistency',
      'your',
      'share',
      'slides',
    ];
    const unrestricted = await builtinGenerator.generate(request({ count: 3000 }));
    for (const word of banned) {
      expect(
        unrestricted.some((draft) => mentions(draft.caption, word)),
        `the phrasebook uses "${word}"`,
      ).toBe(true);
    }

    const brand: BrandBrief = {
      ...TYPICAL_BRAND,
      topics_to_lean_into: ['meal prep', 'cheap eats', 'family dinners', 'swipe files', 'seasonal produce'],
      topics_to_avoid: ['swipe', 'comments', 'diet culture', 'watch'],
      forbidden_words: [...banned, 'meal prep', 'cheap', 'Brightside Kitchen'],
      vocabulary: ['cheap', 'wholesome', 'your kitchen'],
      hashtag_strategy: 'Always #MealPrep and #Brightside, plus a few more',
    };
    const drafts = await builtinGenerator.generate(
      request({ count: YEAR_OF_SLOTS, brand, templates: ['Hook / 3 tips / CTA', 'Myth / fact / CTA'] }),
    );
    expect(drafts).toHaveLength(YEAR_OF_SLOTS);
    expectEveryDraftPasses(drafts, brand);

    // Forbidden and avoided lean-into topics are skipped, the others all used.
    expect(new Set(drafts.map((draft) => draft.topic))).toEqual(new Set(['family dinners', 'seasonal produce']));
    // The forbidden vocabulary word is skipped, the allowed one still used.
    expect(share(drafts, (draft) => draft.caption.includes('wholesome'))).toBeGreaterThan(0.2);
    const distinct = distinctShare(drafts);
    console.log(`builtin generator, heavily restricted brand: ${(distinct * 100).toFixed(2)}% distinct captions`);
    expect(distinct).toBeGreaterThan(0.85);
  });

  it('falls back to generic topics when the brand bans every topic it has, and still writes valid drafts', async () => {
    const brand: BrandBrief = {
      ...EMPTY_BRAND,
      topics_to_lean_into: ['running'],
      topics_to_avoid: ['running', 'autumn', 'menu', 'seasonal recipes', 'weeknights'],
    };
    const drafts = await builtinGenerator.generate(request({ count: 1000, brand }));
    expectEveryDraftPasses(drafts, brand);
    expect(drafts.every((draft) => draft.topic === null)).toBe(true);
    expect(distinctShare(drafts)).toBeGreaterThan(0.95);

    // The generic topics banned too, and the commonest little words: posts that name no topic.
    const stricter: BrandBrief = {
      ...brand,
      forbidden_words: [
        'everyday',
        'work',
        'good',
        'habits',
        'getting',
        'started',
        'small',
        'wins',
        'doing',
        'things',
        'the',
        'a',
        'to',
        'and',
        'you',
        'your',
        'it',
        'this',
      ],
    };
    const bare = await builtinGenerator.generate(
      request({ count: 1000, brand: stricter, templates: ['Hook / 3 tips / CTA'] }),
    );
    expectEveryDraftPasses(bare, stricter);
    expect(bare.every((draft) => draft.topic === null)).toBe(true);
    expect(distinctShare(bare)).toBeGreaterThan(0.5);
  });

  it('writes visibly different text for a formal, serious, calm brand and a casual, playful, high-energy one', async () => {
    const formal = await builtinGenerator.generate(
      request({
        count: 2000,
        brand: { ...TYPICAL_BRAND, voice: null, tone_formality: 9, tone_humor: 1, tone_energy: 1 },
      }),
    );
    const casual = await builtinGenerator.generate(
      request({
        count: 2000,
        brand: { ...TYPICAL_BRAND, voice: null, tone_formality: 1, tone_humor: 9, tone_energy: 9 },
      }),
    );
    const figures = (drafts: Draft[]) => ({
      exclamation: share(drafts, (draft) => draft.caption.includes('!')),
      contraction: share(drafts, (draft) => CONTRACTION.test(draft.caption)),
      emoji: share(drafts, (draft) => EMOJI.test(draft.caption)),
    });
    const calm = figures(formal);
    const lively = figures(casual);
    console.log('builtin generator tone: formal/serious/calm', calm, 'casual/playful/energetic', lively);
    expect(calm).toEqual({ exclamation: 0, contraction: 0, emoji: 0 });
    expect(lively.exclamation).toBeGreaterThan(0.6);
    expect(lively.contraction).toBeGreaterThan(0.3);
    expect(lively.emoji).toBeGreaterThan(0.3);
    // Tone-specific lines: "Real talk" and friends only for the casual brand, "observations" only for the formal one.
    expect(casual.some((draft) => /Real talk|no-fluff|Not gonna lie|Okay, /.test(draft.caption))).toBe(true);
    expect(formal.some((draft) => /Real talk|no-fluff|Not gonna lie|Okay, /.test(draft.caption))).toBe(false);
    expect(
      formal.some((draft) => /observations|Our recommendation|We recommend|considerations/.test(draft.caption)),
    ).toBe(true);
    expect(
      casual.some((draft) => /observations|Our recommendation|We recommend|considerations/.test(draft.caption)),
    ).toBe(false);
  });

  it('reads tone words from the voice and style notes: "no emoji", "playful"', async () => {
    const playful = await builtinGenerator.generate(
      request({ count: 1000, brand: { ...TYPICAL_BRAND, voice: 'playful and cheeky' } }),
    );
    const plain = await builtinGenerator.generate(
      request({ count: 1000, brand: { ...TYPICAL_BRAND, voice: null, tone_humor: 9, style_notes: 'No emoji, ever.' } }),
    );
    expect(share(playful, (draft) => EMOJI.test(draft.caption))).toBeGreaterThan(0.3);
    expect(share(plain, (draft) => EMOJI.test(draft.caption))).toBe(0);
  });

  it('writes good generic drafts for an empty brand profile, about the campaign', async () => {
    const drafts = await builtinGenerator.generate(request({ count: 2000, brand: EMPTY_BRAND }));
    expectEveryDraftPasses(drafts, EMPTY_BRAND);
    expect(distinctShare(drafts)).toBeGreaterThan(0.97);
    // The campaign's name and what its description is about.
    expect(new Set(drafts.map((draft) => draft.topic))).toEqual(new Set(['autumn menu', 'seasonal recipes']));
    expect(drafts.every((draft) => draft.hashtags.length >= 2 && draft.hashtags.length <= 4)).toBe(true);
    expect(
      share(drafts, (draft) => draft.hashtags.includes('AutumnMenu') || draft.hashtags.includes('SeasonalRecipes')),
    ).toBe(1);
    expect(drafts.every((draft) => !/\{|\}|undefined|null/.test(draft.caption))).toBe(true);
  });

  it('follows the hashtag strategy: a count, none, or the tags it names', async () => {
    const run = (hashtag_strategy: string) =>
      builtinGenerator.generate(request({ count: 1000, brand: { ...TYPICAL_BRAND, hashtag_strategy } }));
    const none = await run('No hashtags, please.');
    expect(none.every((draft) => draft.hashtags.length === 0)).toBe(true);
    const five = await run('Use 5 hashtags on every post.');
    expect(five.every((draft) => draft.hashtags.length === 5)).toBe(true);
    const named = await run('Always include #FromOurKitchen, sometimes #SundayPrep or #FamilyTable');
    expect(named.every((draft) => draft.hashtags[0] === 'FromOurKitchen')).toBe(true);
    expect(named.some((draft) => draft.hashtags.includes('SundayPrep'))).toBe(true);
    expect(named.some((draft) => draft.hashtags.includes('FamilyTable'))).toBe(true);
    expect(named.every((draft) => draft.hashtags.length >= 3 && draft.hashtags.length <= 4)).toBe(true);
    const range = await run('2-3 niche hashtags');
    expect(range.every((draft) => draft.hashtags.length >= 2 && draft.hashtags.length <= 3)).toBe(true);
    expect(new Set(range.map((draft) => draft.hashtags.length))).toEqual(new Set([2, 3]));
    for (const drafts of [none, five, named, range]) expectEveryDraftPasses(drafts, TYPICAL_BRAND);
  });

  it("shapes some captions after the workspace's template structures", async () => {
    const MYTH_AND_FACT = /^Myth: .+\nFact: .+$/m;
    const without = await builtinGenerator.generate(request({ count: 1000 }));
    expect(without.some((draft) => MYTH_AND_FACT.test(draft.caption))).toBe(false);

    const drafts = await builtinGenerator.generate(request({ count: 1000, templates: ['Hook / Myth vs fact / CTA'] }));
    const shaped = drafts.filter((draft) => MYTH_AND_FACT.test(draft.caption));
    expect(shaped.length / drafts.length).toBeGreaterThan(0.2);
    // In the template's order: an opener before the myth, a call to action after it.
    for (const draft of shaped) {
      const paragraphs = draft.caption.split('\n\n');
      const myth = paragraphs.findIndex((paragraph) => paragraph.startsWith('Myth: '));
      expect(myth).toBeGreaterThan(0);
      expect(myth).toBeLessThan(paragraphs.length - 1);
    }

    const tips = await builtinGenerator.generate(
      request({ count: 1000, templates: ['Open with a question, then 3 quick tips, end with a link to the website'] }),
    );
    const threeTips = tips.filter((draft) =>
      /\?[^\n]*\n\n1\. .+\n2\. .+\n3\. .+\n\n(?:.+\n\n)?[^\n]*https:\/\/brightside\.example\.com/.test(draft.caption),
    );
    expect(threeTips.length / tips.length).toBeGreaterThan(0.2);
  });

  it('shapes the caption by content type: carousels announce slides, videos are spoken or watched, text stands alone', async () => {
    const drafts = await builtinGenerator.generate(request({ count: 4000, slots: slots(4000, CONTENT_TYPES) }));
    const ofType = (type: ContentType) => drafts.filter((_, i) => CONTENT_TYPES[i % CONTENT_TYPES.length] === type);
    expect(share(ofType('carousel'), (draft) => /\b(swipe|slides?)\b/i.test(draft.caption))).toBeGreaterThan(0.99);
    expect(
      share(ofType('slideshow'), (draft) =>
        /\b(frames?|slides?|slideshow|steps?|sequence|in order|stages)\b/i.test(draft.caption),
      ),
    ).toBeGreaterThan(0.99);
    const spokenOrWatched: Record<'talking_head' | 'video_hook' | 'video_hook_demo' | 'reel', RegExp> = {
      talking_head: /\b(watch|play|video|sound on|camera|minute|tell|talk|story|answer)\b/i,
      video_hook: /\b(watch|play|video|seconds|moment|sound on|blink)\b/i,
      video_hook_demo:
        /\b(demo|demonstrat\w*|watch|video|in action|real time|how it works|walkthrough|in practice|at work)\b/i,
      reel: /\b(reel|watch|seconds|sound on|replay|real life|day in the life)\b/i,
    };
    for (const [type, words] of Object.entries(spokenOrWatched) as [ContentType, RegExp][]) {
      expect(ofType(type).some((draft) => /\bswipe\b/i.test(draft.caption))).toBe(false);
      const measured = share(ofType(type), (draft) => words.test(draft.caption));
      console.log(
        `builtin generator: ${type} captions that say they are spoken or watched: ${(measured * 100).toFixed(1)}%`,
      );
      expect(measured).toBeGreaterThan(0.5);
    }
    expect(ofType('text_only').some((draft) => /\b(swipe|slides?|watch|video|photo|shot)\b/i.test(draft.caption))).toBe(
      false,
    );
  });

  it('keeps long, non-Latin and emoji-laden brand material within every platform limit', async () => {
    const brand: BrandBrief = {
      ...TYPICAL_BRAND,
      brand_name: 'The Extraordinarily Long And Wonderfully Named Artisanal Bakery Cooperative of Greater Springfield',
      website_url:
        'https://www.example.com/a/very/long/path/that/goes/on/and/on/for/a/while/index.html?utm_source=campaign',
      topics_to_lean_into: [
        'a very long lean-into topic that goes on and on about many things including sourdough starters and flour',
        '日本の伝統的なパン作り',
        'café crème ☕ mornings',
        '#hashtagged topic',
      ],
      vocabulary: ['naïve', 'crème brûlée', '🔥🔥🔥'],
      target_audience: 'People who love bread, especially those aged 25-45 living in cities',
      tone_humor: 9,
      tone_energy: 9,
      hashtag_strategy:
        'Use 10 hashtags: #Bakery #Sourdough #ArtisanBread #BreadLovers #RealBread #Baking #HomeBaking #Flour #Crumb #Loaf',
    };
    const drafts = await builtinGenerator.generate(
      request({ count: 3000, brand, templates: ['Hook / 5 steps / question / CTA'] }),
    );
    expectEveryDraftPasses(drafts, brand);
    expect(drafts.every((draft) => !draft.caption.includes('#'))).toBe(true);
    expect(new Set(drafts.map((draft) => draft.topic)).size).toBe(4);
  });

  it('stops when its signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('campaign paused'));
    await expect(builtinGenerator.generate(request({ count: 10 }), controller.signal)).rejects.toThrow(
      'campaign paused',
    );
  });
});
