/**
 * Publishing on Threads, Meta's two steps (meta/containers.ts): the 24-hour quota is read first
 * (`threads_publishing_limit`), then a container is made (TEXT, IMAGE or VIDEO, or a CAROUSEL of 2 to
 * 20 items, each made with `is_carousel_item`), its media downloaded by Threads from the service's
 * public URLs; it is polled until FINISHED and published with one `threads_publish`, the create
 * call, whose id is saved at once; the post's `permalink` is its URL. Every container id is saved the
 * moment Threads answers it, so a resumed publish polls the same containers instead of making more.
 */
import { z } from 'zod';
import { checkpointCodec } from '../checkpoint.ts';
import { awaitContainer, containerIdOf, isContainerStatus } from '../meta/containers.ts';
import {
  PlatformError,
  type LateUrlRequest,
  type LivePost,
  type LivePublisher,
  type LiveSession,
  type MediaRef,
} from '../platform-client.ts';
import { publicMediaRefusal } from '../public-media.ts';
import { ThreadsContainerNotReady } from './errors.ts';
import { threadsCall, threadsRequest, type ThreadsCall } from './request.ts';

export interface ThreadsPublisherOptions {
  /** Waits between container status reads, in ms (the last repeats); tests make them short. */
  pollDelaysMs?: number[];
  /** How long a container may stay IN_PROGRESS before the publish gives up (5 minutes, Meta's advice). */
  maxProcessingMs?: number;
  now?: () => Date;
}

/** Meta suggests polling about once a minute for at most 5 minutes; text and images are usually ready at once. */
const DEFAULT_POLL_DELAYS_MS = [1_000, 2_000, 5_000, 10_000, 30_000, 60_000];
const DEFAULT_MAX_PROCESSING_MS = 5 * 60_000;
export const MIN_CAROUSEL = 2;
export const MAX_CAROUSEL = 20;
/** How often `threads_publish` is tried again after a not-ready refusal before giving up. */
const NOT_READY_RETRIES = 3;
/** How many of the account's latest posts a look-up for a lost publish reads. */
const RECENT_POSTS = 25;
/** Clocks differ a little: a post made this long before the create call still counts. */
const CLOCK_SLACK_MS = 5 * 60_000;

/** What the publisher keeps in the attempt's checkpoint, each field read back through its schema. */
const THREADS_CHECKPOINT = checkpointCodec({
  /** The container `threads_publish` takes (the carousel's parent, or the single post's). */
  containerId: z.string().min(1),
  /** A carousel's items in order; null where not made yet. */
  children: z.array(z.string().min(1).nullable()),
  /** The published post's id, saved the moment `threads_publish` answers it. */
  mediaId: z.string().min(1),
});

export function threadsPublisher(app: { apiBaseUrl: string }, options: ThreadsPublisherOptions = {}): LivePublisher {
  const apiBaseUrl = app.apiBaseUrl.replace(/\/+$/, '');
  const now = options.now ?? (() => new Date());
  const pollDelaysMs = options.pollDelaysMs ?? DEFAULT_POLL_DELAYS_MS;
  const maxProcessingMs = options.maxProcessingMs ?? DEFAULT_MAX_PROCESSING_MS;
  const send = (session: LiveSession, call: ThreadsCall) => threadsCall(session, apiBaseUrl, call, now);
  const userPath = (session: LiveSession, edge: string) =>
    `/${encodeURIComponent(session.account.platformUserId)}/${edge}`;

  const status = async (session: LiveSession, id: string) => {
    const answer = await send(session, {
      label: 'container.status',
      context: 'read',
      subject: 'the container status read',
      method: 'GET',
      path: `/${encodeURIComponent(id)}`,
      params: { fields: 'status,error_message' },
    });
    if (!isContainerStatus(answer.status)) {
      throw new PlatformError('transient', 'Threads answered the container status read without a known status.');
    }
    return { code: answer.status, text: typeof answer.error_message === 'string' ? answer.error_message : null };
  };
  const finished = (session: LiveSession, id: string, subject: string) =>
    awaitContainer(
      { platformName: 'Threads', readStatus: () => status(session, id), session, pollDelaysMs, maxProcessingMs },
      subject,
    );

  /** Makes one container; its id is answered for the caller to save at once. */
  const create = async (session: LiveSession, params: Record<string, string>, subject: string) =>
    containerIdOf(
      'Threads',
      await send(session, {
        label: 'threads.create',
        context: 'container',
        subject,
        method: 'POST',
        path: userPath(session, 'threads'),
        params,
      }),
      subject,
    );

  const mediaParams = (ref: MediaRef): Record<string, string> =>
    ref.kind === 'video' ? { media_type: 'VIDEO', video_url: ref.url } : { media_type: 'IMAGE', image_url: ref.url };

  /** The container to publish, FINISHED: the saved one, else made now (a carousel's items first). */
  const ready = async (session: LiveSession, media: MediaRef[], text: string): Promise<string> => {
    const saved = THREADS_CHECKPOINT.read(session.checkpoint.data);
    if (saved.containerId) {
      await finished(session, saved.containerId, 'the post');
      return saved.containerId;
    }
    let id: string;
    if (media.length <= 1) {
      const params: Record<string, string> =
        media.length === 0 ? { media_type: 'TEXT', text } : { ...mediaParams(media[0]!), text };
      id = await create(session, params, 'the post');
    } else {
      const children = [...(saved.children ?? [])].slice(0, media.length);
      while (children.length < media.length) children.push(null);
      for (const [index, ref] of media.entries()) {
        const subject = `media ${index + 1} of ${media.length} (${ref.mimeType})`;
        if (!children[index]) {
          children[index] = await create(session, { ...mediaParams(ref), is_carousel_item: 'true' }, subject);
          await THREADS_CHECKPOINT.save(session.checkpoint, { children: [...children] });
        }
        // A carousel is made from FINISHED items only.
        await finished(session, children[index]!, subject);
      }
      id = await create(session, { media_type: 'CAROUSEL', children: children.join(','), text }, 'the carousel');
    }
    await THREADS_CHECKPOINT.save(session.checkpoint, { containerId: id });
    await finished(session, id, 'the post');
    return id;
  };

  /** The post's public URL; null when the read fails (the post stands, and `lateUrl` asks again). */
  const permalink = async (session: LiveSession, mediaId: string): Promise<string | null> => {
    try {
      const answer = await send(session, {
        label: 'threads.get',
        context: 'read',
        subject: 'the post look-up',
        method: 'GET',
        path: `/${encodeURIComponent(mediaId)}`,
        params: { fields: 'permalink' },
      });
      return typeof answer.permalink === 'string' ? answer.permalink : null;
    } catch (error) {
      if (error instanceof PlatformError && error.kind === 'reauth_required') throw error;
      return null;
    }
  };

  /** Refuses before anything is made when the last 24 hours' posts already use the quota. */
  const refuseWhenQuotaUsed = async (session: LiveSession) => {
    const answer = await send(session, {
      label: 'threads.publishing_limit',
      context: 'read',
      subject: 'the publishing limit read',
      method: 'GET',
      path: userPath(session, 'threads_publishing_limit'),
      params: { fields: 'quota_usage,config' },
    });
    const entry = (Array.isArray(answer.data) ? answer.data[0] : undefined) as Record<string, unknown> | undefined;
    const usage = entry?.quota_usage;
    const total = (entry?.config as Record<string, unknown> | undefined)?.quota_total;
    if (typeof usage === 'number' && typeof total === 'number' && usage >= total) {
      throw new PlatformError(
        'content_rejected',
        `The Threads account has published ${usage} of its ${total} posts allowed in 24 hours (threads_publishing_limit); publish again once older posts leave the window.`,
      );
    }
  };

  /** After a lost `threads_publish` answer: the account's latest posts, for one with this text made since the call. */
  const findPublished = async (session: LiveSession): Promise<LivePost | null> => {
    const answer = await send(session, {
      label: 'threads.list',
      context: 'read',
      subject: "the account's latest posts",
      method: 'GET',
      path: userPath(session, 'threads'),
      params: { fields: 'id,text,timestamp,permalink', limit: String(RECENT_POSTS) },
    });
    const since = (session.createSentAt?.getTime() ?? 0) - CLOCK_SLACK_MS;
    const posts = Array.isArray(answer.data) ? (answer.data as Array<Record<string, unknown>>) : [];
    const found = posts.find(
      (post) =>
        post.text === session.post.text && typeof post.timestamp === 'string' && Date.parse(post.timestamp) >= since,
    );
    if (!found || typeof found.id !== 'string') return null;
    await THREADS_CHECKPOINT.save(session.checkpoint, { mediaId: found.id });
    return { platformPostId: found.id, url: typeof found.permalink === 'string' ? found.permalink : null };
  };

  return {
    platform: 'threads',

    async publish(session: LiveSession): Promise<LivePost> {
      const saved = THREADS_CHECKPOINT.read(session.checkpoint.data);
      if (saved.mediaId) return { platformPostId: saved.mediaId, url: await permalink(session, saved.mediaId) };
      const media = await session.mediaRefs();
      if (media.length > MAX_CAROUSEL) {
        throw new PlatformError('content_rejected', `Threads takes at most ${MAX_CAROUSEL} media items per post.`);
      }
      const refusal = publicMediaRefusal(
        session.publicBaseUrl,
        apiBaseUrl,
        'Threads',
        media.map((ref) => ref.url),
      );
      if (refusal) throw new PlatformError('content_rejected', refusal);
      await refuseWhenQuotaUsed(session);
      const containerId = await ready(session, media, session.post.text);
      for (let attempt = 0; ; attempt++) {
        try {
          const answer = await send(session, {
            label: 'threads.publish',
            context: 'publish',
            subject: 'the post',
            method: 'POST',
            path: userPath(session, 'threads_publish'),
            params: { creation_id: containerId },
            create: true,
          });
          const mediaId = typeof answer.id === 'number' ? String(answer.id) : answer.id;
          // The post was made; without its id there is no telling which post it is.
          if (typeof mediaId !== 'string' || !mediaId) {
            throw new PlatformError('unknown_outcome', 'Threads answered the publish without a post id.');
          }
          await THREADS_CHECKPOINT.save(session.checkpoint, { mediaId });
          return { platformPostId: mediaId, url: await permalink(session, mediaId) };
        } catch (error) {
          // A definite refusal that made nothing: poll again, then publish the same container.
          if (error instanceof ThreadsContainerNotReady && attempt < NOT_READY_RETRIES) {
            await finished(session, containerId, 'the post');
            continue;
          }
          throw error;
        }
      }
    },

    async reconcile(session: LiveSession): Promise<LivePost | null> {
      const saved = THREADS_CHECKPOINT.read(session.checkpoint.data);
      if (saved.mediaId) return { platformPostId: saved.mediaId, url: await permalink(session, saved.mediaId) };
      if (!saved.containerId) return null;
      const current = await status(session, saved.containerId).catch((error: unknown) => {
        if (error instanceof PlatformError && error.kind === 'reauth_required') throw error;
        return null; // Unreadable: the account's latest posts may still show it.
      });
      // FINISHED, ERROR, EXPIRED or IN_PROGRESS: the publish did not take.
      if (current && current.code !== 'PUBLISHED') return null;
      return findPublished(session);
    },

    async lateUrl(request: LateUrlRequest): Promise<string | null> {
      const answer = await threadsRequest(
        apiBaseUrl,
        {
          context: 'read',
          subject: 'the post look-up',
          method: 'GET',
          path: `/${encodeURIComponent(request.platformPostId)}`,
          params: { fields: 'permalink' },
        },
        await request.accessToken(),
        request.requestTimeoutMs,
        now,
      );
      return typeof answer.permalink === 'string' ? answer.permalink : null;
    },
  };
}
