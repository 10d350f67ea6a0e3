import { CONTENT_TYPES, type ContentMix, type ContentMixKey, type ContentType } from '../../../db/schema/index.ts';
import type { CampaignRow } from './serialize.ts';

// A campaign's calendar: the content type and the time of each of its slots.

/** The content type each key of a campaign's content mix stands for; UGC and green screen are both reels. */
const CONTENT_TYPE_OF_MIX_KEY: Readonly<Record<ContentMixKey, ContentType>> = {
  ugc: 'reel',
  slideshow: 'slideshow',
  talkingHead: 'talking_head',
  videoHookDemo: 'video_hook_demo',
  greenScreen: 'reel',
  videoHook: 'video_hook',
  carousel: 'carousel',
};

const DAY_MS = 86_400_000;

/**
 * How many posts of each content type a campaign of `total` posts gets: the weights of keys that
 * map to the same type are added, then apportioned by largest remainders so the counts sum to
 * `total` and follow the weights as closely as whole numbers can. An empty mix makes
 * every post a single image. Ties go to the type listed first in CONTENT_TYPES.
 */
export function apportionContentTypes(mix: ContentMix, total: number): Map<ContentType, number> {
  const weights = new Map<ContentType, number>();
  for (const [key, weight] of Object.entries(mix) as Array<[ContentMixKey, number]>) {
    if (weight > 0)
      weights.set(CONTENT_TYPE_OF_MIX_KEY[key], (weights.get(CONTENT_TYPE_OF_MIX_KEY[key]) ?? 0) + weight);
  }
  if (weights.size === 0) return new Map([['single_image', total]]);
  const sum = [...weights.values()].reduce((a, b) => a + b, 0);
  const shares = CONTENT_TYPES.filter((type) => weights.has(type)).map((type) => {
    const exact = (total * weights.get(type)!) / sum;
    return { type, count: Math.floor(exact), remainder: exact - Math.floor(exact) };
  });
  let left = total - shares.reduce((n, share) => n + share.count, 0);
  for (const share of [...shares].sort((a, b) => b.remainder - a.remainder)) {
    if (left-- <= 0) break;
    share.count += 1;
  }
  return new Map(shares.map((share) => [share.type, share.count]));
}

/**
 * The content type of every slot, spread evenly over the campaign (smooth weighted round robin:
 * each type comes up in proportion to its count, never in one long run), with exactly the
 * apportioned count of each.
 */
export function contentTypeSequence(mix: ContentMix, total: number): ContentType[] {
  const counts = [...apportionContentTypes(mix, total)].filter(([, count]) => count > 0);
  const current = counts.map(() => 0);
  const sequence: ContentType[] = [];
  for (let slot = 0; slot < total; slot++) {
    let best = 0;
    for (let i = 0; i < counts.length; i++) {
      current[i]! += counts[i]![1];
      if (current[i]! > current[best]!) best = i;
    }
    current[best]! -= total;
    sequence.push(counts[best]![0]);
  }
  return sequence;
}

/** Sequences are reused batch after batch; a campaign's mix and total rarely change during a run. */
const sequences = new Map<string, ContentType[]>();
export function contentTypesOf(campaign: CampaignRow): ContentType[] {
  const key = `${campaign.id}:${campaign.totalPosts}:${JSON.stringify(campaign.contentMix)}`;
  let sequence = sequences.get(key);
  if (!sequence) {
    if (sequences.size >= 64) sequences.clear();
    sequences.set(key, (sequence = contentTypeSequence(campaign.contentMix, campaign.totalPosts)));
  }
  return sequence;
}

/**
 * When slot `index` is posted: day `index / posts_per_day` of the campaign from its start date,
 * the day's posts spread evenly over its 24 hours, each in the middle of its share.
 */
export function slotTime(startDate: Date, postsPerDay: number, index: number): Date {
  const day = Math.floor(index / postsPerDay);
  const within = index % postsPerDay;
  return new Date(startDate.getTime() + day * DAY_MS + Math.floor(((within + 0.5) * DAY_MS) / postsPerDay));
}
