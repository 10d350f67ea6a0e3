/**
 * Publishing on Instagram (professional accounts, Instagram Login): the daily quota is read first,
 * then a container is made from the media's URL (Meta downloads it), polled until FINISHED, and
 * published with one `media_publish`, the create call; its media id is saved at once and the URL read
 * from `permalink`. After a crash past that call, `reconcile` finishes from the saved media id, or
 * finds the post through the container's PUBLISHED status and the account's latest media.
 */
import { publicMediaRefusal } from '../public-media.ts';
import {
  PlatformError,
  type LateUrlRequest,
  type LivePost,
  type LivePublisher,
  type LiveSession,
  type MediaRef,
} from '../platform-client.ts';
import { Containers, type InstagramCheckpoint } from './containers.ts';
import { ContainerExpired, ContainerNotReady } from './errors.ts';
import { graphRequest } from './request.ts';

export interface InstagramPublisherOptions {
  /** Waits between container status reads, in ms (the last repeats); tests make them short. */
  pollDelaysMs?: number[];
  /** How long a container may stay IN_PROGRESS before the publish gives up (10 minutes by default). */
  maxProcessingMs?: number;
  now?: () => Date;
}

/** Meta suggests polling about once a minute for videos; images are usually ready at once. */
const DEFAULT_POLL_DELAYS_MS = [1_000, 2_000, 3_000, 5_000, 10_000, 15_000, 30_000];
const DEFAULT_MAX_PROCESSING_MS = 10 * 60_000;
const MAX_CAROUSEL = 10;
/** How often `media_publish` is tried again after a 9007 (not ready) before giving up. */
const NOT_READY_RETRIES = 3;
/** How many of the account's latest media a look-up for a lost publish reads. */
const RECENT_MEDIA = 25;
/** Clocks differ a little: a post made this long before the container was saved still counts. */
const CLOCK_SLACK_MS = 5 * 60_000;

export function instagramPublisher(
  app: { apiBaseUrl: string },
  options: InstagramPublisherOptions = {},
): LivePublisher {
  const apiBaseUrl = app.apiBaseUrl.replace(/\/+$/, '');
  const now = options.now ?? (() => new Date());
  const containersFor = (session: LiveSession) =>
    new Containers(session, {
      apiBaseUrl,
      igUserId: session.account.platformUserId,
      now,
      pollDelaysMs: options.pollDelaysMs ?? DEFAULT_POLL_DELAYS_MS,
      maxProcessingMs: options.maxProcessingMs ?? DEFAULT_MAX_PROCESSING_MS,
    });

  /** The post's public URL; null when the read fails (the post stands, and `lateUrl` asks again). */
  const permalink = async (containers: Containers, mediaId: string): Promise<string | null> => {
    try {
      const answer = await containers.send({
        label: 'media.get',
        context: 'read',
        subject: 'the permalink read',
        method: 'GET',
        path: `/${encodeURIComponent(mediaId)}`,
        params: { fields: 'permalink' },
      });
      return typeof answer.permalink === 'string' ? answer.permalink : null;
    } catch (error) {
      if (error instanceof PlatformError && error.kind !== 'reauth_required') return null;
      throw error;
    }
  };

  /** A media the account posted from this attempt's container: same caption, made after it. */
  const findPublished = async (
    containers: Containers,
    caption: string,
    createSentAt: Date | null,
  ): Promise<LivePost | null> => {
    // Only a post made from this attempt's publish (or, failing its moment, its container) on counts:
    // an older post with the same caption is another one.
    const since = (createSentAt?.getTime() ?? containers.saved.containerCreatedAt ?? 0) - CLOCK_SLACK_MS;
    const answer = await containers.send({
      label: 'media.list',
      context: 'read',
      subject: "the look-up of the account's latest posts",
      method: 'GET',
      path: `/${encodeURIComponent(containers.igUserId)}/media`,
      params: { fields: 'id,caption,timestamp,permalink', limit: String(RECENT_MEDIA) },
    });
    const list = Array.isArray(answer.data) ? (answer.data as Array<Record<string, unknown>>) : [];
    const found = list.find(
      (media) =>
        typeof media.id === 'string' &&
        (typeof media.caption === 'string' ? media.caption : '').trim() === caption.trim() &&
        postedAt(media.timestamp) >= since,
    );
    if (!found) return null;
    const id = found.id as string;
    await containers.save({ mediaId: id });
    return { platformPostId: id, url: typeof found.permalink === 'string' ? found.permalink : null };
  };

  return {
    platform: 'instagram',

    async publish(session: LiveSession): Promise<LivePost> {
      const media = await session.mediaRefs();
      refuseUnpostable(media, session.publicBaseUrl, apiBaseUrl);
      const caption = session.post.text;
      const containers = containersFor(session);
      const saved = containers.saved;
      if (saved.mediaId) return { platformPostId: saved.mediaId, url: await permalink(containers, saved.mediaId) };

      await refuseWhenQuotaUsed(containers);
      let container = await containers.ready(media, caption);
      for (let attempt = 0; ; attempt++) {
        if (container.status === 'PUBLISHED') {
          const found = await findPublished(containers, caption, session.createSentAt);
          if (found) return found;
          throw new PlatformError(
            'unknown_outcome',
            'Instagram shows the container as already published, but no matching post was found on the account.',
          );
        }
        try {
          const answer = await containers.send({
            label: 'media.publish',
            context: 'publish',
            subject: 'the post',
            method: 'POST',
            path: `/${encodeURIComponent(session.account.platformUserId)}/media_publish`,
            params: { creation_id: container.id },
            create: true,
          });
          const mediaId = typeof answer.id === 'number' ? String(answer.id) : answer.id;
          // The post was made; without its id there is no telling which post it is.
          if (typeof mediaId !== 'string' || !mediaId) {
            throw new PlatformError('unknown_outcome', 'Instagram answered the publish without a media id.');
          }
          await session.checkpoint.save({ mediaId } satisfies InstagramCheckpoint);
          return { platformPostId: mediaId, url: await permalink(containers, mediaId) };
        } catch (error) {
          // Both are definite refusals that made nothing: the same container (or a new one) may be published.
          if (error instanceof ContainerNotReady && attempt < NOT_READY_RETRIES) {
            container = { id: container.id, status: await containers.awaitFinished(container.id, 'the post') };
            continue;
          }
          if (error instanceof ContainerExpired && !containers.saved.recreated) {
            container = await containers.remake(media, caption);
            continue;
          }
          throw error;
        }
      }
    },

    async reconcile(session: LiveSession): Promise<LivePost | null> {
      const containers = containersFor(session);
      const saved = containers.saved;
      if (saved.mediaId) return { platformPostId: saved.mediaId, url: await permalink(containers, saved.mediaId) };
      if (!saved.containerId) return null;
      const status = await containers.status(saved.containerId).catch((error: unknown) => {
        if (error instanceof PlatformError && error.kind === 'reauth_required') throw error;
        return null; // Unreadable: the account's latest media may still show the post.
      });
      // FINISHED, ERROR, EXPIRED or IN_PROGRESS: the publish did not take.
      if (status && status.code !== 'PUBLISHED') return null;
      return findPublished(containers, session.post.text, session.createSentAt);
    },

    async lateUrl(request: LateUrlRequest): Promise<string | null> {
      const answer = await graphRequest(
        apiBaseUrl,
        {
          context: 'read',
          subject: 'the permalink read',
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

/**
 * What Instagram cannot take, refused before any call: a post without media, a carousel of more than
 * 10, and the service's own media when Instagram could not reach PUBLIC_BASE_URL to download it.
 */
function refuseUnpostable(media: MediaRef[], publicBaseUrl: string, apiBaseUrl: string): void {
  if (media.length === 0) {
    throw new PlatformError(
      'content_rejected',
      'Instagram has no text-only posts: add an image or a video (2 to 10 of them make a carousel).',
    );
  }
  if (media.length > MAX_CAROUSEL) {
    throw new PlatformError(
      'content_rejected',
      `An Instagram carousel takes 2 to ${MAX_CAROUSEL} images or videos; this post has ${media.length}. Remove ${media.length - MAX_CAROUSEL} before publishing.`,
    );
  }
  const refusal = publicMediaRefusal(
    publicBaseUrl,
    apiBaseUrl,
    'Instagram',
    media.map((ref) => ref.url),
  );
  if (refusal) throw new PlatformError('content_rejected', refusal);
}

/** `content_publishing_limit` first: a used-up quota is refused with the figures, before any container is made. */
async function refuseWhenQuotaUsed(containers: Containers): Promise<void> {
  const answer = await containers.send({
    label: 'publishing_limit',
    context: 'read',
    subject: 'the publishing limit read',
    method: 'GET',
    path: `/${encodeURIComponent(containers.igUserId)}/content_publishing_limit`,
    params: { fields: 'quota_usage,config' },
  });
  const entry = (Array.isArray(answer.data) ? answer.data[0] : undefined) as Record<string, unknown> | undefined;
  const used = Number(entry?.quota_usage);
  const config = entry?.config as { quota_total?: unknown; quota_duration?: unknown } | undefined;
  const total = Number(config?.quota_total);
  if (!Number.isFinite(used) || !Number.isFinite(total) || used < total) return;
  const hours = Number(config?.quota_duration) > 0 ? Math.round(Number(config!.quota_duration) / 3600) : 24;
  // Meta does not say when the oldest post leaves the rolling window, so there is no moment to wait for.
  throw new PlatformError(
    'content_rejected',
    `Instagram's publishing limit for this account is used up: ${used} of ${total} posts in the last ${hours} hours (content_publishing_limit). Publish again once older posts leave that window.`,
  );
}

/** Graph timestamps read `2026-06-15T09:00:00+0000`. */
function postedAt(value: unknown): number {
  if (typeof value !== 'string') return 0;
  const parsed = Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(parsed) ? 0 : parsed;
}
