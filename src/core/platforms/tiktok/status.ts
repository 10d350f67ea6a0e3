/**
 * Following a TikTok publish to its end with `status/fetch`: PROCESSING_UPLOAD and
 * PROCESSING_DOWNLOAD while TikTok takes and checks the media, then PUBLISH_COMPLETE, SEND_TO_USER_INBOX
 * or FAILED. The public post id (`publicaly_available_post_id`) comes only after moderation, which can
 * take hours: a post complete without one is published with no URL yet.
 */
import { PlatformError, type LivePost, type LiveSession } from '../platform-client.ts';
import { pollUntilProcessed, type PollPacing } from '../processing-poll.ts';
import { publicPostIds, type TikTokApi, type TikTokAnswer } from './api.ts';
import { failReasonKind } from './errors.ts';
import type { TikTokCheckpoint } from './upload.ts';

export const STATUS_PATH = '/v2/post/publish/status/fetch/';

/**
 * Pauses between polls: status/fetch allows 30 calls a minute, so never faster than every 2 s. Beyond
 * `giveUpAfterMs` the publish stops waiting; a later reconcile polls the same publish id again.
 */
const STATUS_POLL: PollPacing = { firstPauseMs: 2_000, maxPauseMs: 15_000, giveUpAfterMs: 30 * 60_000 };

export interface PublishStatus {
  status: string;
  failReason: string | undefined;
  publicIds: string[];
  uploadedBytes: number | undefined;
}

export function readStatus(answer: TikTokAnswer): PublishStatus {
  const { data } = answer;
  return {
    status: typeof data.status === 'string' ? data.status : 'UNKNOWN',
    failReason: typeof data.fail_reason === 'string' && data.fail_reason ? data.fail_reason : undefined,
    publicIds: publicPostIds(answer.raw),
    uploadedBytes: typeof data.uploaded_bytes === 'number' ? data.uploaded_bytes : undefined,
  };
}

export async function fetchStatus(api: TikTokApi, publishId: string): Promise<PublishStatus> {
  return readStatus(
    await api.call({ label: 'status.fetch', path: STATUS_PATH, json: { publish_id: publishId }, subject: 'read' }),
  );
}

/** `https://www.tiktok.com/@{username}/video/{id}`, or `/photo/` for a photo post. */
export function tiktokPostUrl(username: string, id: string, mode: TikTokCheckpoint['mode']): string {
  return `https://www.tiktok.com/@${encodeURIComponent(username)}/${mode}/${id}`;
}

/** Polls until the publish ends; answers the published post or throws the failure. */
export async function awaitOutcome(api: TikTokApi, session: LiveSession, state: TikTokCheckpoint): Promise<LivePost> {
  return pollUntilProcessed(
    (ms) => session.wait(ms),
    STATUS_POLL,
    async () => {
      const current = await fetchStatus(api, state.publishId);
      const outcome = settle(state, current);
      return outcome ? { done: true, value: outcome } : { done: false, status: current.status };
    },
    (waited, status) =>
      new PlatformError(
        'transient',
        `TikTok was still processing the post after ${Math.round(waited / 60_000)} minutes (status ${status}).`,
      ),
  );
}

/** The post once the status is final, undefined while TikTok is still at work. */
function settle(state: TikTokCheckpoint, current: PublishStatus): LivePost | undefined {
  const notices = state.notice ? [state.notice] : [];
  switch (current.status) {
    case 'PUBLISH_COMPLETE': {
      const id = current.publicIds[0];
      return {
        platformPostId: id ?? state.publishId,
        url: id ? tiktokPostUrl(state.username, id, state.mode) : null,
        ...(notices.length > 0 && { notice: notices.join(' ') }),
      };
    }
    case 'SEND_TO_USER_INBOX':
      notices.push(
        "TikTok sent the post to the account's TikTok inbox instead of publishing it: open the notification in the TikTok app to finish posting it.",
      );
      return { platformPostId: state.publishId, url: null, notice: notices.join(' ') };
    case 'FAILED': {
      const reason = current.failReason ?? 'no fail_reason given';
      const kind = failReasonKind(reason);
      throw new PlatformError(
        kind,
        `TikTok could not publish the post (FAILED, fail_reason "${reason}"). ${
          kind === 'media_invalid'
            ? 'Replace the media with files TikTok accepts (MP4, MOV or WebM video; JPEG or WebP photos).'
            : 'TikTok refuses the post as it is.'
        }`,
      );
    }
    default:
      return undefined;
  }
}
