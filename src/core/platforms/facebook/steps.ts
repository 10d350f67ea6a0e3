/**
 * The steps around a Facebook create call: the unpublished photos of a multi-photo post (resumable),
 * following a video's processing, reading a post's permalink, and finding a post whose create answer
 * was lost.
 */
import { PlatformError, type LiveSession, type MediaRef } from '../platform-client.ts';
import { answerId, type FacebookGraph } from './api.ts';
import { FACEBOOK_CHECKPOINT, type CreatedPostKind } from './checkpoint.ts';

/** What the create call made: the post (`feed`, `album`), the photo and its post, or the video. */
export interface CreatedPost {
  kind: CreatedPostKind;
  /** The post id (`{page}_{post}`), or the photo's or video's id. */
  id: string;
  /** The post showing a single photo. */
  postId?: string;
}

/** Waits between video status reads: quick at first, then every 10 s. */
const VIDEO_POLL_MS = [2_000, 3_000, 5_000, 10_000];
/** How long a video may process before the publish stops following it. */
const MAX_VIDEO_WAIT_MS = 20 * 60_000;
/** A lost post is looked for among the Page's latest this many. */
const LOOKBACK = 25;
/** Clocks differ: a post found this long before the create call was sent still counts. */
const CLOCK_SLACK_MS = 5 * 60_000;

const FACEBOOK_WEB = 'https://www.facebook.com';

/** Uploads each photo with `published=false`, skipping those the checkpoint holds; answers their ids in order. */
export async function uploadUnpublishedPhotos(
  graph: FacebookGraph,
  session: LiveSession,
  refs: MediaRef[],
  saved: readonly string[],
): Promise<string[]> {
  const ids = saved.slice(0, refs.length);
  const page = encodeURIComponent(session.account.platformUserId);
  for (const [index, ref] of refs.entries()) {
    if (typeof ids[index] === 'string' && ids[index] !== '') continue;
    const subject = `photo ${index + 1} of ${refs.length} (${ref.url})`;
    const answer = await graph.call({
      label: 'photos.upload',
      context: 'media',
      subject,
      method: 'POST',
      path: `/${page}/photos`,
      form: { url: ref.url, published: 'false', ...altTextField(ref) },
    });
    ids[index] = answerId(answer, 'id', subject, 'transient');
    await FACEBOOK_CHECKPOINT.save(session.checkpoint, { photos: [...ids] });
  }
  return ids;
}

/** Polls `status.video_status` until `ready`; `error` or `expired` is `media_invalid` with Facebook's reason. */
export async function waitForVideo(graph: FacebookGraph, session: LiveSession, videoId: string): Promise<void> {
  let waited = 0;
  for (let poll = 0; ; poll++) {
    const answer = await graph.call({
      label: 'videos.status',
      context: 'read',
      subject: `the status of video ${videoId}`,
      method: 'GET',
      path: `/${encodeURIComponent(videoId)}`,
      query: { fields: 'status' },
    });
    const status = answer.body.status as
      | { video_status?: unknown; processing_phase?: { errors?: Array<{ code?: unknown; message?: unknown }> } }
      | undefined;
    const state = status?.video_status;
    if (state === 'ready') return;
    if (state === 'error' || state === 'expired') {
      const reason = status?.processing_phase?.errors?.[0];
      const said =
        typeof reason?.message === 'string'
          ? ` (${typeof reason.code === 'number' ? `#${reason.code} ` : ''}"${reason.message}")`
          : '';
      throw new PlatformError(
        'media_invalid',
        `Facebook could not process the video (video_status "${state}")${said}; nothing was published. Replace the file with one Facebook takes.`,
      );
    }
    const ms = VIDEO_POLL_MS[Math.min(poll, VIDEO_POLL_MS.length - 1)]!;
    if (waited + ms > MAX_VIDEO_WAIT_MS) {
      throw new PlatformError(
        'transient',
        `Facebook was still processing the video after ${Math.round(waited / 1000)} s (video_status "${String(state)}").`,
      );
    }
    await session.wait(ms);
    waited += ms;
  }
}

/**
 * The post's public URL from `permalink_url` (a video's comes relative to facebook.com). The post is
 * published whatever this read answers, so a failed read falls back to the URL Facebook serves for any
 * post id rather than failing the publish.
 */
export async function postPermalink(graph: FacebookGraph, session: LiveSession, created: CreatedPost): Promise<string> {
  const id = created.kind === 'photo' ? (created.postId ?? created.id) : created.id;
  const fallback =
    created.kind === 'video'
      ? `${FACEBOOK_WEB}/${encodeURIComponent(session.account.platformUserId)}/videos/${encodeURIComponent(id)}/`
      : `${FACEBOOK_WEB}/${encodeURIComponent(id)}`;
  try {
    const answer = await graph.call({
      label: 'object.get',
      context: 'read',
      subject: 'the read of the post link',
      method: 'GET',
      path: `/${encodeURIComponent(id)}`,
      query: { fields: 'permalink_url' },
    });
    return absolute(answer.body.permalink_url) ?? fallback;
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    return fallback;
  }
}

/**
 * After a crash with the create answer lost: the Page's latest posts (or videos) for one created since
 * `sentAt` (when the create call was sent), with the same text. A post without text is taken only when
 * it is the one candidate.
 */
export async function findLostPost(
  graph: FacebookGraph,
  session: LiveSession,
  kind: CreatedPost['kind'],
  sentAt: Date,
): Promise<CreatedPost | null> {
  const page = encodeURIComponent(session.account.platformUserId);
  const since = sentAt.getTime() - CLOCK_SLACK_MS;
  const video = kind === 'video';
  const answer = await graph.call({
    label: video ? 'videos.list' : 'feed.list',
    context: 'read',
    subject: `the look-up of the Page's latest ${video ? 'videos' : 'posts'}`,
    method: 'GET',
    path: `/${page}/${video ? 'videos' : 'feed'}`,
    query: { fields: video ? 'id,description,created_time' : 'id,message,created_time', limit: String(LOOKBACK) },
  });
  const items = Array.isArray(answer.body.data) ? (answer.body.data as Array<Record<string, unknown>>) : [];
  const recent = items.filter((item) => typeof item.id === 'string' && graphTime(item.created_time) >= since);
  const text = session.post.text;
  const said = (item: Record<string, unknown>) => {
    const value = video ? item.description : item.message;
    return typeof value === 'string' ? value : '';
  };
  const matching = recent.filter((item) => said(item) === text);
  const found = text === '' ? (matching.length === 1 ? matching[0] : undefined) : matching[0];
  if (!found) return null;
  const id = found.id as string;
  // The feed names a single photo's post, not the photo: the post is what was published.
  return kind === 'photo' ? { kind: 'photo', id, postId: id } : { kind, id };
}

/** Graph's `2026-06-15T09:00:00+0000` as epoch ms; NaN-safe (an unreadable time counts as long ago). */
function graphTime(value: unknown): number {
  if (typeof value !== 'string') return 0;
  const parsed = Date.parse(value.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
  return Number.isNaN(parsed) ? 0 : parsed;
}

function absolute(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  if (/^https?:\/\//.test(value)) return value;
  return value.startsWith('/') ? `${FACEBOOK_WEB}${value}` : undefined;
}

/** A photo's alt text, as the Page photos edge takes it (`alt_text_custom`); nothing when it has none. */
export const altTextField = (ref: MediaRef): { alt_text_custom?: string } =>
  ref.altText ? { alt_text_custom: ref.altText } : {};
