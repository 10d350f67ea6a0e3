import { MAX_TOPIC_PHRASE_LENGTH } from '../../../brand-profile/schemas.ts';
import { anyPhrasePattern } from '../../../text.ts';
import type { ContentType } from '../../../../../db/schema/index.ts';
import type { GenerationRequest } from '../../generator.ts';
import { asMidSentence, capitalise, cleanPhrase, clip, shortAudience, topicFromDescription } from './brand-material.ts';
import { readHashtagStrategy, toTag, topicTags, usableTag, type TagRule } from './hashtags.ts';
import { knownLink, type KnownLink } from './length.ts';
import { book, FAMILY_NAMES, type Family } from './phrasebook.ts';
import { preparePhrases, type Phrases } from './phrases.ts';
import { Random } from './random.ts';
import { parseTemplate, type Section } from './templates.ts';
import { readTone, type Tone } from './tone.ts';

// The plan: everything that depends on the request only, prepared once per call

/** A topic to write about: `display` goes into captions, `label` into the draft's topic. */
export interface Topic {
  display: string;
  capitalised: string;
  label: string | null;
  tags: string[];
}

/** A vocabulary word, ready for a sentence's middle or start and as a hashtag. */
export interface Word {
  text: string;
  capitalised: string;
  tag: string | null;
}

export interface Plan {
  campaignId: string;
  tone: Tone;
  bans: RegExp | null;
  brand: string | null;
  url: string | null;
  link: KnownLink | null;
  audience: string | null;
  vocabulary: Word[];
  /** Dealt in shuffled rounds; see `topicFor`. */
  topics: Topic[];
  topicOrders: Map<number, number[]>;
  tagRule: TagRule;
  namedTags: string[];
  /** Every tag above, lower-cased, so drafts compare tags without allocating. */
  tagKeys: Map<string, string>;
  brandTag: string | null;
  industryTag: string | null;
  familyTags: Record<Family, string[]>;
  phrases: Phrases;
  templates: Section[][];
}

export const FAMILIES: Record<ContentType, Family> = {
  text_only: 'thought',
  single_image: 'scene',
  slideshow: 'sequence',
  reel: 'reel',
  talking_head: 'spoken',
  video_hook: 'video',
  video_hook_demo: 'demo',
  carousel: 'carousel',
};

/**
 * Plans of recent requests. The engine asks batch after batch (500 slots or fewer) with the same
 * campaign, brand and templates, each read afresh; preparing a plan costs about a millisecond, a
 * large share of a small batch.
 */
const recentPlans = new Map<string, Plan>();
const RECENT_PLANS = 16;

export function planFor(request: GenerationRequest): Plan {
  const { campaign, brand, templates } = request;
  const key = JSON.stringify([campaign.id, campaign.name, campaign.description, brand, templates]);
  const known = recentPlans.get(key);
  if (known) return known;
  const plan = preparePlan(request);
  if (recentPlans.size >= RECENT_PLANS) recentPlans.delete(recentPlans.keys().next().value!);
  recentPlans.set(key, plan);
  return plan;
}

function preparePlan(request: GenerationRequest): Plan {
  const { brand, campaign } = request;
  const bans = anyPhrasePattern([...brand.forbidden_words, ...brand.topics_to_avoid]);
  const isClean = (text: string) => bans === null || !bans.test(text.toLowerCase());
  const tone = readTone(brand);

  const brandName = clip(cleanPhrase(brand.brand_name), 60);
  const url = cleanPhrase(brand.website_url).replace(/\s/g, '');
  const audience = shortAudience(brand.target_audience ?? '') ?? shortAudience(brand.audience ?? '');
  const vocabulary = unique(
    brand.vocabulary
      .map((word) => cleanPhrase(word))
      .filter((word) => word.length > 0 && word.length <= 40 && isClean(word)),
  );
  const facts = {
    brand: brandName && brandName.length <= 40 && isClean(brandName) ? brandName : null,
    url: url && url.length <= 100 && isClean(url) ? url : null,
    audience: audience && isClean(audience) ? audience : null,
  };

  let topicSources = brand.topics_to_lean_into.map((topic) =>
    asMidSentence(clip(cleanPhrase(topic), MAX_TOPIC_PHRASE_LENGTH)),
  );
  if (!topicSources.some((topic) => topic && isClean(topic))) {
    // No usable lean-into topic: the campaign says what it is about.
    topicSources = [
      cleanPhrase(campaign.name),
      topicFromDescription(campaign.description) ?? '',
      cleanPhrase(brand.industry),
    ].map((topic) => asMidSentence(clip(topic, MAX_TOPIC_PHRASE_LENGTH)));
  }
  let topics: Topic[] = unique(topicSources.filter((topic) => topic.length > 0 && isClean(topic))).map((topic) => ({
    display: topic,
    capitalised: capitalise(topic),
    label: topic,
    tags: topicTags(topic),
  }));
  if (topics.length === 0) {
    topics = book.fallbackTopics.filter(isClean).map((topic) => ({
      display: topic,
      capitalised: capitalise(topic),
      label: null,
      tags: [],
    }));
  }
  // Even the generic topics are banned: only phrases that name no topic are used.
  const untopical = topics.length === 0;
  if (untopical) topics = [{ display: '', capitalised: '', label: null, tags: [] }];

  const phrases = preparePhrases(tone, bans, {
    brand: facts.brand !== null,
    url: facts.url !== null,
    audience: facts.audience !== null,
    vocab: vocabulary.length > 0,
    topic: !untopical,
  });

  const tagRule = readHashtagStrategy(brand.hashtag_strategy);
  const cleanTag = (tag: string | null) => usableTag(tag, bans);
  const familyTags = Object.fromEntries(
    FAMILY_NAMES.map((family) => [
      family,
      book.familyTags[family].map(cleanTag).filter((tag): tag is string => tag !== null),
    ]),
  ) as Record<Family, string[]>;
  for (const topic of topics) topic.tags = topic.tags.map(cleanTag).filter((tag): tag is string => tag !== null);

  const plan: Plan = {
    campaignId: campaign.id,
    tone,
    bans,
    brand: facts.brand,
    url: facts.url,
    link: knownLink(facts.url),
    audience: facts.audience,
    vocabulary: vocabulary.map((text) => ({ text, capitalised: capitalise(text), tag: cleanTag(toTag(text)) })),
    topics,
    topicOrders: new Map(),
    tagRule,
    namedTags: unique(tagRule.named.map(cleanTag).filter((tag): tag is string => tag !== null)),
    brandTag: cleanTag(brandName ? toTag(brandName) : null),
    industryTag: cleanTag(brand.industry ? toTag(cleanPhrase(brand.industry)) : null),
    familyTags,
    phrases,
    templates: request.templates.map(parseTemplate).filter((sections) => sections.length > 0),
    tagKeys: new Map(),
  };
  const everyTag = [...plan.namedTags, plan.brandTag, plan.industryTag, ...plan.vocabulary.map((word) => word.tag)];
  for (const topic of plan.topics) everyTag.push(...topic.tags);
  for (const family of FAMILY_NAMES) everyTag.push(...plan.familyTags[family]);
  for (const tag of everyTag) if (tag) plan.tagKeys.set(tag, tag.toLowerCase());
  return plan;
}

/** Case-insensitively distinct, first spelling kept. */
function unique(list: readonly string[]): string[] {
  const seen = new Set<string>();
  return list.filter((item) => {
    const key = item.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The topic of slot `index`: the lean-into topics are dealt in shuffled rounds, so every topic comes
 * up once in each run of that many consecutive slots, in an order that differs round to round.
 */
export function topicFor(plan: Plan, index: number): Topic {
  const count = plan.topics.length;
  if (count === 1) return plan.topics[0];
  const round = Math.floor(index / count);
  let order = plan.topicOrders.get(round);
  if (!order) {
    order = new Random(`${plan.campaignId}:topics:${round}`).shuffled(Array.from({ length: count }, (_, i) => i));
    if (plan.topicOrders.size > 64) plan.topicOrders.clear();
    plan.topicOrders.set(round, order);
  }
  return plan.topics[order[index % count]];
}
