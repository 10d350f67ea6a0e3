/**
 * Publishes one post to a member's LinkedIn feed through the versioned REST API: the media first
 * (resumable, see media.ts), then one `POST /rest/posts`.
 *
 * No `reconcile`: finding a post after a lost create answer would mean listing the member's posts by
 * author, which LinkedIn reserves for the restricted `r_member_social` permission and which the fake
 * LinkedIn does not serve either (it reads a post by URN only, and the URN is what was lost). So a
 * create without an answer stays `unknown_outcome` for the user to check.
 */
import { PlatformError, type LivePost, type LivePublisher } from '../platform-client.ts';
import { LinkedInApi, type LinkedInApp } from './api.ts';
import { linkedInCommentary } from './commentary.ts';
import { uploadLinkedInMedia } from './media.ts';

export function linkedInPublisher(app: LinkedInApp): LivePublisher {
  return {
    platform: 'linkedin',
    async publish(session): Promise<LivePost> {
      const api = new LinkedInApi(app, session);
      const author = `urn:li:person:${session.account.platformUserId}`;
      const content = await uploadLinkedInMedia(api, session, author, await session.media());
      const created = await api.rest(
        'posts.create',
        {
          method: 'POST',
          path: '/rest/posts',
          json: {
            author,
            commentary: linkedInCommentary(session.post.text),
            visibility: 'PUBLIC',
            distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
            lifecycleState: 'PUBLISHED',
            isReshareDisabledByAuthor: false,
            ...(content && { content }),
          },
          subject: 'post',
        },
        { create: true },
      );
      const urn = created.headers.get('x-restli-id');
      if (!urn) {
        // LinkedIn stored the post (2xx) but did not say under which id: there is nothing to link to.
        throw new PlatformError('unknown_outcome', 'LinkedIn accepted the post but answered without its id.');
      }
      return { platformPostId: urn, url: linkedInPostUrl(urn) };
    },
  };
}

export function linkedInPostUrl(urn: string): string {
  return `https://www.linkedin.com/feed/update/${urn}`;
}
