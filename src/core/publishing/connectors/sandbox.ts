import { sql } from 'drizzle-orm';
import twitterText from 'twitter-text';
import { preparedStatements, type Db } from '../../../../db/client.ts';
import { sandboxPosts, type Platform } from '../../../../db/schema/index.ts';
import { inNextCommit } from '../../batch.ts';
import type { Runtime } from '../../context.ts';
import { randomBase62 } from '../../ids.ts';
import type { PlatformConnector, PlatformPost, PublishOutcome, PublishTarget } from '../connector.ts';
import { contentTypeMediaError } from '../post.ts';

/**
 * How a platform measures a post's text. X weighs characters (most CJK and emoji count 2, every URL
 * counts 23), so only twitter-text's own parser agrees with it. The others count Unicode code points
 * (`[...text].length`), not UTF-16 units, so an emoji is one character as the user sees it.
 */
const TEXT_MEASURES = {
  'x-weighted': { unit: 'weighted characters', measure: (text: string) => twitterText.parseTweet(text).weightedLength },
  'code-points': { unit: 'characters', measure: (text: string) => [...text].length },
} as const;

export interface PlatformRules {
  /** Longest text accepted, measured with `textMeasure`; the text includes the hashtags as posted. */
  maxText: number;
  textMeasure: keyof typeof TEXT_MEASURES;
  maxMedia: number;
  /** Whether the platform refuses a post without media, whatever its content type. */
  mediaRequired: boolean;
  /** Most hashtags the posted text may carry, inline ones included; null when the platform sets none. */
  maxHashtags: number | null;
}

/** Each platform's published limits (DECISIONS.md, Platforms and social accounts). */
export const PLATFORM_RULES: Readonly<Record<Platform, PlatformRules>> = {
  twitter: { maxText: 280, textMeasure: 'x-weighted', maxMedia: 4, mediaRequired: false, maxHashtags: null },
  linkedin: { maxText: 3_000, textMeasure: 'code-points', maxMedia: 20, mediaRequired: false, maxHashtags: null },
  instagram: { maxText: 2_200, textMeasure: 'code-points', maxMedia: 10, mediaRequired: true, maxHashtags: 30 },
  facebook: { maxText: 63_206, textMeasure: 'code-points', maxMedia: 10, mediaRequired: false, maxHashtags: null },
  tiktok: { maxText: 2_200, textMeasure: 'code-points', maxMedia: 35, mediaRequired: true, maxHashtags: null },
};

/** Every reason `platform` would refuse a post's text (its length, its hashtags), or an empty list. */
export function textViolations(platform: Platform, text: string): string[] {
  const rules = PLATFORM_RULES[platform];
  const problems: string[] = [];
  const { unit, measure } = TEXT_MEASURES[rules.textMeasure];
  const length = measure(text);
  if (length > rules.maxText) problems.push(`text is ${length} ${unit}; the limit is ${rules.maxText}`);
  if (rules.maxHashtags !== null) {
    // The platform sees one caption: a #tag written in it counts the same as one from `hashtags`.
    const hashtags = twitterText.extractHashtags(text).length;
    if (hashtags > rules.maxHashtags) problems.push(`text has ${hashtags} hashtags; the limit is ${rules.maxHashtags}`);
  }
  return problems;
}

/** Every reason `platform` would refuse `post`, or an empty list. */
function ruleViolations(platform: Platform, post: PlatformPost): string[] {
  const rules = PLATFORM_RULES[platform];
  const problems = textViolations(platform, post.text);
  const media = post.mediaUrls.length;
  if (media > rules.maxMedia) problems.push(`post has ${media} media items; the limit is ${rules.maxMedia}`);
  const contentTypeError = contentTypeMediaError(post);
  if (contentTypeError) problems.push(contentTypeError);
  // A content-type shortfall already says media is missing; say it once.
  else if (rules.mediaRequired && media === 0)
    problems.push('post has no media; the platform requires at least 1 media item');
  return problems;
}

/**
 * The built-in connector for `platform`: it accepts exactly what the real platform would, and records
 * what it accepted in `sandbox_posts`, so tests can count what a platform really received.
 */
export function sandboxConnector(runtime: Runtime, platform: Platform): PlatformConnector {
  const validate = (post: PlatformPost): string | null => {
    const problems = ruleViolations(platform, post);
    return problems.length === 0 ? null : problems.map((problem) => `${platform}: ${problem}`).join('. ');
  };

  const publish = async (post: PlatformPost, target: PublishTarget): Promise<PublishOutcome> => {
    const delayMs = runtime.config.publishing.sandboxDelayMs[platform] ?? 0;
    // A real timer, not the injected clock: the knob exists so a crash test can kill a process while
    // a platform call is in flight.
    if (delayMs > 0) await new Promise<void>((resolve) => setTimeout(resolve, delayMs));
    // A real platform judges the post itself, whatever the caller checked before sending it.
    const error = validate(post);
    if (error) return { status: 'rejected', error };
    const platformPostId = `${platform}_${randomBase62(20)}`;
    const row = {
      id: platformPostId,
      platform,
      platformUserId: target.account.platformUserId,
      attemptId: target.attemptId,
      text: post.text,
      mediaUrls: post.mediaUrls,
      createdAt: runtime.clock.now(),
    };
    // Joins the next group commit: a fan-out's concurrent publishes share one commit.
    await inNextCommit(runtime.db, () => statements(runtime.db).insertPost.run(row));
    return { status: 'published', platformPostId };
  };

  return { platform, validate, publish };
}

const statements = preparedStatements((db: Db) => ({
  insertPost: db
    .insert(sandboxPosts)
    .values({
      id: sql.placeholder('id'),
      platform: sql.placeholder('platform'),
      platformUserId: sql.placeholder('platformUserId'),
      attemptId: sql.placeholder('attemptId'),
      text: sql.placeholder('text'),
      mediaUrls: sql.placeholder('mediaUrls'),
      createdAt: sql.placeholder('createdAt'),
    })
    .prepare(),
}));
