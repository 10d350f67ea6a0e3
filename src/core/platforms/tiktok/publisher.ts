/**
 * Publishing to TikTok with the Content Posting API (direct post):
 * 1. `creator_info/query` gives the privacy levels TikTok offers the account now, and its username;
 * 2. a video is initialized with FILE_UPLOAD (`video/init`) and its chunks PUT to the upload URL;
 *    photos are initialized with PULL_FROM_URL (`content/init`), TikTok downloading them itself;
 * 3. `status/fetch` is polled until the publish ends.
 * The init is the create call: TikTok's publish id (and the upload URL and plan) is saved the moment
 * it answers, so after a crash `reconcile` continues that same upload and polls that same publish,
 * and nothing is ever initialized twice. There are no text-only TikTok posts.
 */
import { publicMediaRefusal } from '../public-media.ts';
import {
  PlatformError,
  type LateUrlRequest,
  type LivePost,
  type LivePublisher,
  type LiveSession,
  type MediaFile,
  type MediaRef,
} from '../platform-client.ts';
import { TikTokApi, tiktokJson, publicPostIds, type TikTokApp } from './api.ts';
import { CREATOR_INFO_PATH } from './oauth.ts';
import { awaitOutcome, fetchStatus, STATUS_PATH, tiktokPostUrl } from './status.ts';
import {
  chunkPlan,
  DEFAULT_CHUNK_BYTES,
  readCheckpoint,
  saveCheckpoint,
  sendChunks,
  type TikTokCheckpoint,
} from './upload.ts';

export interface TikTokPublisherOptions {
  /** The chunk size aimed at (5 to 64 MB); tests use the 5 MB minimum to see several chunks. */
  chunkBytes?: number;
  now?: () => Date;
}

/** TikTok's limits on a post's text: a video's title, a photo post's title and description. */
const MAX_VIDEO_TITLE = 2200;
const MAX_PHOTO_TITLE = 90;
const MAX_PHOTO_DESCRIPTION = 4000;
const MAX_PHOTOS = 35;
/** Photo posts take JPEG and WebP only. */
const PHOTO_TYPES = new Set(['image/jpeg', 'image/webp']);

export function tiktokPublisher(app: TikTokApp, options: TikTokPublisherOptions = {}): LivePublisher {
  const apiBaseUrl = app.apiBaseUrl.replace(/\/+$/, '');
  const target = { apiBaseUrl };
  const now = options.now ?? (() => new Date());
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;

  return {
    platform: 'tiktok',

    async publish(session) {
      const api = new TikTokApi(target, session, now);
      const saved = readCheckpoint(session.checkpoint.data);
      if (saved) return finish(api, session, saved, false);

      const refs = await session.mediaRefs();
      const mode = postMode(refs);
      if (mode === 'photo') {
        const refusal = publicMediaRefusal(
          session.publicBaseUrl,
          apiBaseUrl,
          'TikTok',
          refs.map((ref) => ref.url),
        );
        if (refusal) throw new PlatformError('content_rejected', refusal);
      }
      const text = session.post.text;
      refuseLongText(mode, text);

      const creator = (
        await api.call({ label: 'creator_info.query', path: CREATOR_INFO_PATH, json: {}, subject: 'post' })
      ).data;
      const { privacyLevel, notice } = choosePrivacy(session.post.privacyLevel, creator.privacy_level_options);
      const username =
        typeof creator.creator_username === 'string' && creator.creator_username
          ? creator.creator_username
          : session.account.username;
      const base = { mode, username, privacyLevel, ...(notice && { notice }) };

      if (mode === 'video') {
        const video = await videoFile(session);
        const plan = chunkPlan(video.bytes.length, chunkBytes);
        const init = await api.call({
          label: 'video.init',
          path: '/v2/post/publish/video/init/',
          json: {
            post_info: {
              title: text,
              privacy_level: privacyLevel,
              disable_comment: creator.comment_disabled === true,
              disable_duet: creator.duet_disabled === true,
              disable_stitch: creator.stitch_disabled === true,
            },
            source_info: {
              source: 'FILE_UPLOAD',
              video_size: plan.videoSize,
              chunk_size: plan.chunkSize,
              total_chunk_count: plan.totalChunks,
            },
          },
          subject: 'post',
          create: true,
        });
        const publishId = init.data.publish_id;
        const uploadUrl = init.data.upload_url;
        if (typeof publishId !== 'string' || typeof uploadUrl !== 'string') {
          throw new PlatformError(
            'unknown_outcome',
            'TikTok accepted the video post without a publish_id and upload_url.',
          );
        }
        const state: TikTokCheckpoint = { ...base, publishId, upload: { uploadUrl, ...plan, chunksDone: 0 } };
        await saveCheckpoint(session, state);
        return finish(api, session, state, true, video);
      }

      const init = await api.call({
        label: 'content.init',
        path: '/v2/post/publish/content/init/',
        json: {
          post_info: {
            title: photoTitle(session.post.caption),
            description: text,
            privacy_level: privacyLevel,
            disable_comment: creator.comment_disabled === true,
            auto_add_music: true,
          },
          source_info: { source: 'PULL_FROM_URL', photo_cover_index: 0, photo_images: refs.map((ref) => ref.url) },
          post_mode: 'DIRECT_POST',
          media_type: 'PHOTO',
        },
        subject: 'post',
        create: true,
      });
      const publishId = init.data.publish_id;
      if (typeof publishId !== 'string') {
        throw new PlatformError('unknown_outcome', 'TikTok accepted the photo post without a publish_id.');
      }
      const state: TikTokCheckpoint = { ...base, publishId };
      await saveCheckpoint(session, state);
      return finish(api, session, state, true);
    },

    async reconcile(session) {
      const saved = readCheckpoint(session.checkpoint.data);
      // The init answer was lost with its publish id: TikTok offers no way to look the publish up.
      if (!saved) return null;
      return finish(new TikTokApi(target, session, now), session, saved, false);
    },

    /**
     * The publish id is the post's id until TikTok makes it public; the checkpoint is gone by now, so the
     * kind of post is read from the id itself (TikTok's photo publish ids start with `p_`), and the
     * username is the account's as connected.
     */
    async lateUrl(request: LateUrlRequest) {
      const publishId = request.platformPostId;
      const answer = await tiktokJson(
        target,
        await request.accessToken(),
        { path: STATUS_PATH, json: { publish_id: publishId }, subject: 'read' },
        request.requestTimeoutMs,
        now,
      );
      const id = publicPostIds(answer.raw)[0];
      const mode = publishId.startsWith('p_') ? 'photo' : 'video';
      return id ? tiktokPostUrl(request.account.username, id, mode) : null;
    },
  };
}

/**
 * Everything after the init: the chunks not yet sent, then the polls. On a resume (`fresh` false)
 * TikTok is asked first how many bytes it holds. The post may already be under way, so a failure to
 * reach TikTok from here on is an unknown outcome (reconciled from the checkpoint), not a refusal.
 */
async function finish(
  api: TikTokApi,
  session: LiveSession,
  state: TikTokCheckpoint,
  fresh: boolean,
  video?: MediaFile,
): Promise<LivePost> {
  try {
    const upload = state.upload;
    if (state.mode === 'video' && upload && upload.chunksDone < upload.totalChunks) {
      const held = fresh ? undefined : (await fetchStatus(api, state.publishId)).uploadedBytes;
      await sendChunks(api, session, state, video ?? (await videoFile(session)), held);
    }
    return await awaitOutcome(api, session, state);
  } catch (error) {
    if (error instanceof PlatformError && (error.kind === 'transient' || error.kind === 'rate_limited')) {
      throw new PlatformError(
        'unknown_outcome',
        `TikTok has the post under way (publish_id ${state.publishId}), but ${error.message.replace(/\.$/, '')}`,
        error.details,
      );
    }
    throw error;
  }
}

/** A video post (exactly one video) or a photo post (1 to 35 JPEG or WebP images); refused otherwise before any call. */
function postMode(refs: MediaRef[]): TikTokCheckpoint['mode'] {
  if (refs.length === 0) {
    throw new PlatformError(
      'content_rejected',
      'TikTok takes no text-only posts: add a video or photos to post to TikTok.',
    );
  }
  if (refs.some((ref) => ref.kind === 'video')) {
    if (refs.length > 1) {
      throw new PlatformError(
        'content_rejected',
        `A TikTok video post carries one video and nothing else; this one has ${refs.length} media files.`,
      );
    }
    return 'video';
  }
  const refused = refs.find((ref) => !PHOTO_TYPES.has(ref.mimeType));
  if (refused) {
    throw new PlatformError(
      'media_invalid',
      `TikTok photo posts take JPEG or WebP images only; ${refused.url} is ${refused.mimeType}. Convert it, or post it elsewhere.`,
    );
  }
  if (refs.length > MAX_PHOTOS) {
    throw new PlatformError(
      'content_rejected',
      `A TikTok photo post carries at most ${MAX_PHOTOS} photos; this one has ${refs.length}.`,
    );
  }
  return 'photo';
}

function refuseLongText(mode: TikTokCheckpoint['mode'], text: string): void {
  const max = mode === 'video' ? MAX_VIDEO_TITLE : MAX_PHOTO_DESCRIPTION;
  if (text.length > max) {
    throw new PlatformError(
      'content_rejected',
      `TikTok takes up to ${max} characters of text on a ${mode} post; this one has ${text.length}. Shorten the caption or hashtags.`,
    );
  }
}

/** A photo post's title: the caption's first line, within TikTok's 90 characters (the full text is the description). */
function photoTitle(caption: string): string {
  const firstLine = caption.split('\n')[0]!.trim();
  let title = '';
  for (const character of firstLine) {
    if (title.length + character.length > MAX_PHOTO_TITLE) break;
    title += character;
  }
  return title;
}

/**
 * The level asked for in `platform_specific.tiktok.privacy_level` when TikTok offers it (refused with
 * TikTok's own code when it does not), else the first level offered. An app that has not passed
 * TikTok's audit is offered SELF_ONLY alone: the notice then tells the user the post is private.
 */
function choosePrivacy(requested: string | undefined, offered: unknown): { privacyLevel: string; notice?: string } {
  const options = Array.isArray(offered) ? offered.filter((level): level is string => typeof level === 'string') : [];
  if (requested !== undefined) {
    if (options.includes(requested)) return { privacyLevel: requested };
    throw new PlatformError(
      'content_rejected',
      `TikTok refuses privacy level ${requested} for this account ("privacy_level_option_mismatch"): it offers ${
        options.join(', ') || 'none'
      }. Set platform_specific.tiktok.privacy_level to one of those.`,
    );
  }
  const first = options[0];
  if (!first) {
    throw new PlatformError('content_rejected', 'TikTok offers this account no privacy level to post with right now.');
  }
  if (first !== 'SELF_ONLY') return { privacyLevel: first };
  const why =
    options.length === 1
      ? "it is the only level TikTok lets this app use (an app that has not passed TikTok's audit posts privately)"
      : 'it is the first level TikTok offered for this account';
  return {
    privacyLevel: first,
    notice: `Posted to TikTok as SELF_ONLY, visible only to the account owner: ${why}. Set platform_specific.tiktok.privacy_level to choose the audience.`,
  };
}

async function videoFile(session: LiveSession): Promise<MediaFile> {
  const video = (await session.media()).find((file) => file.kind === 'video');
  if (!video) throw new PlatformError('media_invalid', 'The video of this TikTok post could not be read.');
  return video;
}
