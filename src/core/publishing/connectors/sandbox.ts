import { sql } from 'drizzle-orm';
import { preparedStatements, type Db } from '../../../../db/client.ts';
import { sandboxPosts, type Platform } from '../../../../db/schema/index.ts';
import { inNextCommit } from '../../batch.ts';
import type { Runtime } from '../../context.ts';
import { randomBase62 } from '../../ids.ts';
import type { PlatformConnector, PlatformPost, PublishOutcome, PublishTarget } from '../connector.ts';
import { PLATFORM_RULES, textViolations } from '../../platforms/rules.ts';
import { contentTypeMediaError, videoMediaUrls } from '../post.ts';

/** Every reason `platform` would refuse `post`, or an empty list. */
function ruleViolations(platform: Platform, post: PlatformPost): string[] {
  const rules = PLATFORM_RULES[platform];
  const problems = textViolations(platform, post.text);
  const media = post.mediaUrls.length;
  if (media > rules.maxMedia) problems.push(`post has ${media} media items; the limit is ${rules.maxMedia}`);
  const videos = rules.refusesVideo ? videoMediaUrls(post) : [];
  if (videos.length > 0) {
    problems.push(`post has a video (${videos[0]}); the platform takes images only, so publish the video elsewhere`);
  }
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
    return { status: 'published', platformPostId, url: null };
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
