import { sql } from 'drizzle-orm';
import { preparedStatements, type Db } from '../../../../db/client.ts';
import { sandboxPosts, type Platform } from '../../../../db/schema/index.ts';
import { autocommit } from '../../batch.ts';
import type { Runtime } from '../../context.ts';
import { randomBase62 } from '../../ids.ts';
import type { PlatformConnector, PlatformPost, PublishOutcome, PublishTarget } from '../connector.ts';
import { ruleRefusal, type PostProblem } from '../../platforms/problems.ts';
import { PLATFORM_RULES, ruleProblem, textProblems } from '../../platforms/rules.ts';
import { contentTypeMediaError, contentTypeMediaShortfall, videoMediaUrls } from '../post.ts';

/** Every reason `platform` would refuse `post`, each with its code and numbers, or an empty list. */
function ruleViolations(platform: Platform, post: PlatformPost): PostProblem[] {
  const rules = PLATFORM_RULES[platform];
  const problems = textProblems(platform, post.text);
  const media = post.mediaUrls.length;
  if (media > rules.maxMedia) {
    problems.push(
      ruleProblem(platform, {
        code: 'too_many_media',
        measure: media,
        limit: rules.maxMedia,
        unit: 'media items',
        phrase: `post has ${media} media items; the limit is ${rules.maxMedia}`,
      }),
    );
  }
  const videos = rules.refusesVideo ? videoMediaUrls(post) : [];
  if (videos.length > 0) {
    problems.push(
      ruleProblem(platform, {
        code: 'video_refused',
        url: videos[0]!,
        phrase: `post has a video (${videos[0]}); the platform takes images only, so publish the video elsewhere`,
      }),
    );
  }
  const shortfall = contentTypeMediaShortfall(post);
  if (shortfall) {
    problems.push(
      ruleProblem(platform, {
        code: 'too_few_media_for_type',
        content_type: post.contentType,
        measure: shortfall.has,
        limit: shortfall.needed,
        unit: 'media items',
        phrase: contentTypeMediaError(post)!,
      }),
    );
  }
  // A content-type shortfall already says media is missing; say it once.
  else if (rules.mediaRequired && media === 0) {
    problems.push(
      ruleProblem(platform, {
        code: 'media_required',
        measure: 0,
        limit: 1,
        unit: 'media items',
        phrase: 'post has no media; the platform requires at least 1 media item',
      }),
    );
  }
  return problems;
}

/**
 * The built-in connector for `platform`: it accepts exactly what the real platform would, and records
 * what it accepted in `sandbox_posts`, so tests can count what a platform really received.
 */
export function sandboxConnector(runtime: Runtime, platform: Platform): PlatformConnector {
  // The run judges each post before recording its attempt (readiness.ts), then hands the same object
  // to publish, which judges it again as the real platform would. Judging it twice (X's weighted length
  // counted both times) cost about 8% of the run's CPU: the second judgement of an unchanged post is
  // the first one's answer.
  // What the rules read (type, text, media) is kept beside it, so a post changed since is judged anew.
  const judged = new WeakMap<PlatformPost, { judgedAs: string; problems: PostProblem[] }>();
  const validate = (post: PlatformPost): PostProblem[] => {
    const judgedAs = `${post.contentType}\n${post.mediaUrls.join('\n')}\n\n${post.text}`;
    const earlier = judged.get(post);
    if (earlier && earlier.judgedAs === judgedAs) return [...earlier.problems];
    const problems = ruleViolations(platform, post);
    judged.set(post, { judgedAs, problems });
    return [...problems];
  };

  const publish = async (post: PlatformPost, target: PublishTarget): Promise<PublishOutcome> => {
    const delayMs = runtime.config.publishing.sandboxDelayMs[platform] ?? 0;
    // A real timer, not the injected clock: the knob exists so a crash test can kill a process while
    // a platform call is in flight.
    if (delayMs > 0) await new Promise<void>((resolve) => setTimeout(resolve, delayMs));
    // A real platform judges the post itself, whatever the caller checked before sending it.
    const problems = validate(post);
    if (problems.length > 0) return { status: 'rejected', error: ruleRefusal(problems) };
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
    await autocommit(runtime.db, async () => statements(runtime.db).insertPost.run(row));
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
