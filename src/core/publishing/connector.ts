import type { Platform, SocialAccountMode } from '../../../db/schema/index.ts';
import type { PlatformPost } from '../platforms/platform-client.ts';
import type { PostProblem } from '../platforms/problems.ts';

/** What one platform is asked to post: defined with the platform clients, which receive it. */
export type { PlatformPost } from '../platforms/platform-client.ts';

/** Who the post goes out as, and the service's reference for the attempt (a platform's client id). */
export interface PublishTarget {
  account: { id: string; workspaceId: string; platformUserId: string; username: string; mode: SocialAccountMode };
  attemptId: string;
}

/**
 * A platform's answer. `unknown` is a live connector's own verdict (the create call went out and no
 * definite answer came back, nor did a reconciliation find the post); a throw or a timeout is the same.
 */
export type PublishOutcome =
  | { status: 'published'; platformPostId: string; url: string | null; notice?: string }
  | { status: 'rejected'; error: string }
  | { status: 'unknown'; error: string };

/** One interface for every platform, so the publishing run treats them all alike. */
export interface PlatformConnector {
  platform: Platform;
  /** The platform's own rules: every reason it would refuse the post, or none. Runs before any attempt is recorded. */
  validate(post: PlatformPost): PostProblem[];
  /**
   * Sends the post. Resolves with the platform's answer; throws when the outcome is not known. A live
   * account's call may be a resume: the attempt's checkpoint says how far a dead holder got.
   */
  publish(post: PlatformPost, target: PublishTarget): Promise<PublishOutcome>;
}

export type Connectors = ReadonlyMap<string, PlatformConnector>;
