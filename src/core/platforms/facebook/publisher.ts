/**
 * Publishing on a Facebook Page, as the Page (the account's token is the Page token, its platform
 * user id the Page id). Facebook downloads the media itself from the URLs given. Which call makes the
 * post public, and so is THE create call:
 * - text: `POST /{page}/feed`;
 * - one photo: `POST /{page}/photos` with `url` (it publishes at once);
 * - several photos: each `POST /{page}/photos` with `published=false` first (invisible, and kept in the
 *   checkpoint so a resume does not upload them again), then `POST /{page}/feed` with `attached_media`;
 * - a video: `POST {graph-video}/{page}/videos` with `file_url`; Facebook publishes it once processed,
 *   so its status is polled until `ready` or `error`.
 * The created id is saved the moment the create call answers, so `reconcile` can finish from it after a
 * crash; when the answer itself was lost, it looks for the post among the Page's latest.
 */
import { publicMediaRefusal } from '../public-media.ts';
import {
  PlatformError,
  type LivePost,
  type LivePublisher,
  type LiveSession,
  type MediaRef,
} from '../platform-client.ts';
import { answerId, FacebookGraph, type FacebookApp } from './api.ts';
import {
  altTextField,
  findLostPost,
  postPermalink,
  uploadUnpublishedPhotos,
  waitForVideo,
  type CreatedPost,
} from './steps.ts';
import { UsageGovernor } from '../meta/usage.ts';
import { FACEBOOK_CHECKPOINT, type FacebookCheckpoint } from './checkpoint.ts';

export type { FacebookCheckpoint } from './checkpoint.ts';

export interface FacebookPublisherOptions {
  /** The clock the usage pauses and the reconcile window are judged by. */
  now?: () => Date;
}

type Plan =
  | { kind: 'feed' }
  | { kind: 'photo'; ref: MediaRef }
  | { kind: 'album'; refs: MediaRef[] }
  | { kind: 'video'; ref: MediaRef };

export function facebookPublisher(app: FacebookApp, options: FacebookPublisherOptions = {}): LivePublisher {
  const hosts: FacebookApp = {
    apiBaseUrl: app.apiBaseUrl.replace(/\/+$/, ''),
    graphVideoBaseUrl: app.graphVideoBaseUrl.replace(/\/+$/, ''),
    graphVersion: app.graphVersion,
  };
  const now = options.now ?? (() => new Date());
  // One per publisher: Meta's usage counts are the app's and each Page's, across posts.
  const governor = new UsageGovernor(now, { platform: 'Facebook', account: 'Page' });
  const graphFor = (session: LiveSession) => new FacebookGraph(hosts, session, governor, now);

  const finish = async (graph: FacebookGraph, session: LiveSession, created: CreatedPost): Promise<LivePost> => {
    if (created.kind === 'video') {
      await waitForVideo(graph, session, created.id);
      return { platformPostId: created.id, url: await postPermalink(graph, session, created) };
    }
    const postId = created.postId ?? created.id;
    return { platformPostId: postId, url: await postPermalink(graph, session, created) };
  };

  return {
    platform: 'facebook',

    async publish(session) {
      const graph = graphFor(session);
      const plan = planPost(await session.mediaRefs());
      refuseLocalMedia(session, plan, hosts);
      const text = session.post.text;
      const page = encodeURIComponent(session.account.platformUserId);
      const saved: FacebookCheckpoint = FACEBOOK_CHECKPOINT.read(session.checkpoint.data);

      const create = async (
        kind: CreatedPost['kind'],
        call: { label: string; path: string; form: Record<string, string>; host?: 'video'; subject: string },
      ): Promise<CreatedPost> => {
        await FACEBOOK_CHECKPOINT.save(session.checkpoint, { sending: { kind, at: now().toISOString() } });
        const answer = await graph.call({
          ...call,
          method: 'POST',
          context: kind === 'feed' || kind === 'album' ? 'post' : 'media',
          create: true,
        });
        const id = answerId(answer, 'id', call.subject, 'unknown_outcome');
        const postId = typeof answer.body.post_id === 'string' ? answer.body.post_id : undefined;
        const created: CreatedPost = { kind, id, ...(postId && { postId }) };
        await FACEBOOK_CHECKPOINT.save(session.checkpoint, { created });
        return created;
      };

      let created: CreatedPost;
      switch (plan.kind) {
        case 'feed':
          if (text === '')
            throw new PlatformError('content_rejected', 'A Facebook post needs text or media; this one has neither.');
          created = await create('feed', {
            label: 'feed.create',
            path: `/${page}/feed`,
            form: { message: text },
            subject: 'the post',
          });
          break;
        case 'photo':
          created = await create('photo', {
            label: 'photos.create',
            path: `/${page}/photos`,
            form: { url: plan.ref.url, ...(text !== '' && { message: text }), ...altTextField(plan.ref) },
            subject: `the photo (${plan.ref.url})`,
          });
          break;
        case 'album': {
          const photoIds = await uploadUnpublishedPhotos(graph, session, plan.refs, saved.photos ?? []);
          const form: Record<string, string> = text !== '' ? { message: text } : {};
          photoIds.forEach((id, index) => {
            form[`attached_media[${index}]`] = JSON.stringify({ media_fbid: id });
          });
          created = await create('album', { label: 'feed.create', path: `/${page}/feed`, form, subject: 'the post' });
          break;
        }
        case 'video':
          created = await create('video', {
            label: 'videos.create',
            host: 'video',
            path: `/${page}/videos`,
            form: { file_url: plan.ref.url, ...(text !== '' && { description: text }) },
            subject: `the video (${plan.ref.url})`,
          });
          break;
      }
      try {
        return await finish(graph, session, created);
      } catch (error) {
        if (!(error instanceof PlatformError) || error.kind === 'media_invalid') throw error;
        // The video was handed over and may still publish: only a later look can tell.
        throw new PlatformError(
          'unknown_outcome',
          `Facebook received the video (id ${created.id}) but its processing could not be followed to the end: ${error.message}`,
        );
      }
    },

    async reconcile(session) {
      const graph = graphFor(session);
      const saved: FacebookCheckpoint = FACEBOOK_CHECKPOINT.read(session.checkpoint.data);
      if (saved.created) return finish(graph, session, saved.created);
      if (!saved.sending) return null;
      // The framework's mark is the moment the call went; the publisher's own is the fallback.
      const sentAt = session.createSentAt ?? new Date(saved.sending.at);
      const found = await findLostPost(graph, session, saved.sending.kind, sentAt);
      if (!found) return null;
      await FACEBOOK_CHECKPOINT.save(session.checkpoint, { created: found });
      return finish(graph, session, found);
    },
  };
}

/** Photos (any number), or one video; a GIF goes up as a photo, as on facebook.com. */
function planPost(refs: MediaRef[]): Plan {
  const videos = refs.filter((ref) => ref.kind === 'video');
  if (videos.length === 0) {
    if (refs.length === 0) return { kind: 'feed' };
    return refs.length === 1 ? { kind: 'photo', ref: refs[0]! } : { kind: 'album', refs };
  }
  if (refs.length === 1) return { kind: 'video', ref: videos[0]! };
  throw new PlatformError(
    'media_invalid',
    `A Facebook post takes photos, or one video; this post has ${videos.length} video${videos.length === 1 ? '' : 's'} and ${refs.length - videos.length} other file${refs.length - videos.length === 1 ? '' : 's'}. Split it into several posts.`,
  );
}

/** Facebook downloads the service's own media from PUBLIC_BASE_URL: refused up front when it cannot reach it. */
function refuseLocalMedia(session: LiveSession, plan: Plan, hosts: FacebookApp): void {
  const refs = plan.kind === 'feed' ? [] : plan.kind === 'album' ? plan.refs : [plan.ref];
  const host = plan.kind === 'video' ? hosts.graphVideoBaseUrl : hosts.apiBaseUrl;
  const refusal = publicMediaRefusal(
    session.publicBaseUrl,
    host,
    'Facebook',
    refs.map((ref) => ref.url),
  );
  if (refusal) throw new PlatformError('media_invalid', refusal);
}
