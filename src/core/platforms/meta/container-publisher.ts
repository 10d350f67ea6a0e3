/**
 * Publishing through one of Meta's container APIs (Instagram's, Threads'), written once: the 24-hour
 * quota is read first, then a container is made from the media's URLs (Meta downloads them itself),
 * polled until FINISHED, and published with one publish call, the create call, whose id is saved at
 * once; the post's `permalink` is its URL. Every container id is saved the moment the platform
 * answers it, so a resumed publish polls the same containers instead of making more. After a crash
 * past the create call, `reconcile` finishes from the saved post id, or finds the post through the
 * container's PUBLISHED status and the account's latest posts.
 *
 * What differs between the APIs (edges, labels, parameter names, media types, polling pace, limits,
 * their own error codes) is the `ContainerApi` each platform's folder declares.
 */
import { z } from 'zod';
import { checkpointCodec } from '../checkpoint.ts';
import {
  PlatformError,
  type LateUrlRequest,
  type LivePost,
  type LivePublisher,
  type LiveSession,
  type MediaRef,
} from '../platform-client.ts';
import { publicMediaRefusal } from '../public-media.ts';
import {
  awaitContainer,
  ContainerExpired,
  ContainerNotReady,
  containerIdOf,
  isContainerStatus,
  type ContainerStatus,
} from './containers.ts';
import { possessive } from './errors.ts';
import {
  graphCall,
  graphRequest,
  type GraphApi,
  type GraphCall,
  type GraphHost,
  type GraphObject,
} from './graph-call.ts';

export interface ContainerApi {
  graph: GraphApi;
  /** The edges under `/{user-id}/`. */
  edges: { create: string; publish: string; publishingLimit: string; list: string };
  /** The session's label of each call, named like the fake's routes. */
  labels: { create: string; publish: string; publishingLimit: string; list: string; get: string };
  /** The parameter (and the field of a listed post) that carries the post's text: `caption`, `text`. */
  textParam: string;
  /** The fields a container status read asks for: the status code, and the words that explain it. */
  statusFields: { code: string; text: string };
  /** A text-only container's parameters; undefined where every post needs media. */
  textOnly?: Record<string, string>;
  /** A container's parameters for one media, alone or as a carousel item (`is_carousel_item` is added here). */
  mediaParams(ref: MediaRef, carouselItem: boolean): Record<string, string>;
  maxCarousel: number;
  /** Waits between status reads, in ms (the last repeats), and how long processing may take in all. */
  polling: { delaysMs: readonly number[]; maxProcessingMs: number };
}

export interface ContainerPublisherOptions {
  /** Waits between container status reads, in ms (the last repeats); tests make them short. */
  pollDelaysMs?: number[];
  /** How long a container may stay IN_PROGRESS before the publish gives up. */
  maxProcessingMs?: number;
  now?: () => Date;
}

/** How often the publish is tried again after a not-ready refusal before giving up. */
const NOT_READY_RETRIES = 3;
/** How many of the account's latest posts a look-up for a lost publish reads. */
const RECENT_POSTS = 25;
/** Clocks differ a little: a post made this long before the create call (or the container) still counts. */
const CLOCK_SLACK_MS = 5 * 60_000;

/** What the publisher keeps in the attempt's checkpoint, each field read back through its schema. */
const CONTAINER_CHECKPOINT = checkpointCodec({
  /** The container the publish call takes (the carousel's parent, or the single post's). */
  containerId: z.string().min(1),
  /** When it was made (epoch ms): a lost publish is looked for among posts made after it. */
  containerCreatedAt: z.number(),
  /** A carousel's items in order; null where not made yet (or unreadable: made again, the others kept). */
  children: z
    .array(z.unknown())
    .transform((children) => children.map((child) => (typeof child === 'string' && child ? child : null))),
  /** Set once an expired container has been made again: that happens once per publish. */
  recreated: z.literal(true),
  /** The published post's id, saved the moment the publish call answers it. */
  mediaId: z.string().min(1),
});

/** The checkpoint as the publisher wrote it; a field that does not read counts as not done. */
type ContainerCheckpoint = ReturnType<typeof CONTAINER_CHECKPOINT.read>;

export function containerPublisher(
  api: ContainerApi,
  app: { apiBaseUrl: string },
  options: ContainerPublisherOptions = {},
): LivePublisher {
  const host: GraphHost = { ...api.graph, apiBaseUrl: app.apiBaseUrl.replace(/\/+$/, '') };
  const now = options.now ?? (() => new Date());
  const polling = {
    delaysMs: options.pollDelaysMs ?? api.polling.delaysMs,
    maxProcessingMs: options.maxProcessingMs ?? api.polling.maxProcessingMs,
  };
  const containersFor = (session: LiveSession) => new Containers(session, api, host, polling, now);
  const { name } = api.graph.refusals;

  return {
    platform: api.graph.platform,

    async publish(session: LiveSession): Promise<LivePost> {
      const containers = containersFor(session);
      const saved = containers.saved;
      if (saved.mediaId) return { platformPostId: saved.mediaId, url: await containers.permalink(saved.mediaId) };
      const media = await session.mediaRefs();
      refuseUnpostable(api, media, session.publicBaseUrl, host.apiBaseUrl);
      const text = session.post.text;

      await containers.refuseWhenQuotaUsed();
      let container = await containers.ready(media, text);
      for (let attempt = 0; ; attempt++) {
        if (container.status === 'PUBLISHED') {
          const found = await containers.findPublished(text, session.createSentAt);
          if (found) return found;
          throw new PlatformError(
            'unknown_outcome',
            `${name} shows the container as already published, but no matching post was found on the account.`,
          );
        }
        try {
          const answer = await containers.send({
            label: api.labels.publish,
            context: 'publish',
            subject: 'the post',
            method: 'POST',
            path: containers.userPath(api.edges.publish),
            params: { creation_id: container.id },
            create: true,
          });
          const mediaId = typeof answer.id === 'number' ? String(answer.id) : answer.id;
          // The post was made; without its id there is no telling which post it is.
          if (typeof mediaId !== 'string' || !mediaId) {
            throw new PlatformError('unknown_outcome', `${name} answered the publish without a post id.`);
          }
          await containers.save({ mediaId });
          return { platformPostId: mediaId, url: await containers.permalink(mediaId) };
        } catch (error) {
          // Both are definite refusals that made nothing: the same container (or a new one) may be published.
          if (error instanceof ContainerNotReady && attempt < NOT_READY_RETRIES) {
            container = { id: container.id, status: await containers.awaitFinished(container.id, 'the post') };
            continue;
          }
          if (error instanceof ContainerExpired && !containers.saved.recreated) {
            container = await containers.remake(media, text);
            continue;
          }
          throw error;
        }
      }
    },

    async reconcile(session: LiveSession): Promise<LivePost | null> {
      const containers = containersFor(session);
      const saved = containers.saved;
      if (saved.mediaId) return { platformPostId: saved.mediaId, url: await containers.permalink(saved.mediaId) };
      if (!saved.containerId) return null;
      const status = await containers.status(saved.containerId).catch((error: unknown) => {
        if (error instanceof PlatformError && error.kind === 'reauth_required') throw error;
        return null; // Unreadable: the account's latest posts may still show the post.
      });
      // FINISHED, ERROR, EXPIRED or IN_PROGRESS: the publish did not take.
      if (status && status.code !== 'PUBLISHED') return null;
      return containers.findPublished(session.post.text, session.createSentAt);
    },

    async lateUrl(request: LateUrlRequest): Promise<string | null> {
      const answer = await graphRequest(
        host,
        permalinkRead(request.platformPostId),
        await request.accessToken(),
        request.requestTimeoutMs,
        now,
      );
      return typeof answer.permalink === 'string' ? answer.permalink : null;
    },
  };
}

const permalinkRead = (mediaId: string): Omit<GraphCall, 'label'> => ({
  context: 'read',
  subject: 'the permalink read',
  method: 'GET',
  path: `/${encodeURIComponent(mediaId)}`,
  params: { fields: 'permalink' },
});

/**
 * What the API cannot take, refused before any call: a post without media where every post needs
 * some, a carousel past the limit, and the service's own media when the platform could not reach
 * PUBLIC_BASE_URL to download it.
 */
function refuseUnpostable(api: ContainerApi, media: MediaRef[], publicBaseUrl: string, apiBaseUrl: string): void {
  const { name } = api.graph.refusals;
  if (media.length === 0 && !api.textOnly) {
    throw new PlatformError(
      'content_rejected',
      `${name} has no text-only posts: add an image or a video (2 to ${api.maxCarousel} of them make a carousel).`,
    );
  }
  if (media.length > api.maxCarousel) {
    throw new PlatformError(
      'content_rejected',
      `${name} takes 2 to ${api.maxCarousel} images or videos in a carousel; this post has ${media.length}. Remove ${media.length - api.maxCarousel} before publishing.`,
    );
  }
  const refusal = publicMediaRefusal(
    publicBaseUrl,
    apiBaseUrl,
    name,
    media.map((ref) => ref.url),
  );
  if (refusal) throw new PlatformError('content_rejected', refusal);
}

type ReadyContainer = { id: string; status: 'FINISHED' | 'PUBLISHED' };

/** One publish's containers and the account's reads around them, through the session. */
class Containers {
  private readonly name: string;

  constructor(
    private readonly session: LiveSession,
    private readonly api: ContainerApi,
    private readonly host: GraphHost,
    private readonly polling: { delaysMs: readonly number[]; maxProcessingMs: number },
    private readonly now: () => Date,
  ) {
    this.name = api.graph.refusals.name;
  }

  get saved(): ContainerCheckpoint {
    return CONTAINER_CHECKPOINT.read(this.session.checkpoint.data);
  }

  save(patch: ContainerCheckpoint): Promise<void> {
    return CONTAINER_CHECKPOINT.save(this.session.checkpoint, patch);
  }

  send(call: GraphCall): Promise<GraphObject> {
    return graphCall(this.session, this.host, call, this.now);
  }

  userPath(edge: string): string {
    return `/${encodeURIComponent(this.session.account.platformUserId)}/${edge}`;
  }

  /**
   * The container to publish, FINISHED: the saved one when there is one, else made now. A container
   * that expired (not published within 24 h) is made again, once. Answers PUBLISHED when a dead
   * holder got as far as publishing it.
   */
  async ready(media: MediaRef[], text: string): Promise<ReadyContainer> {
    try {
      const id = this.saved.containerId ?? (await this.make(media, text));
      return { id, status: await this.awaitFinished(id, 'the post') };
    } catch (error) {
      if (!(error instanceof ContainerExpired) || this.saved.recreated) throw error;
    }
    return this.remake(media, text);
  }

  /** Forgets the expired containers and makes them again (the caller has checked it is the first time). */
  async remake(media: MediaRef[], text: string): Promise<ReadyContainer> {
    // A raw save: clearing fields is not a patch the codec would write.
    await this.session.checkpoint.save({
      containerId: undefined,
      containerCreatedAt: undefined,
      children: undefined,
      recreated: true,
    });
    const id = await this.make(media, text);
    return { id, status: await this.awaitFinished(id, 'the post') };
  }

  /** Reads a container's status once. */
  async status(id: string): Promise<{ code: ContainerStatus; text: string | null }> {
    const { code: codeField, text: textField } = this.api.statusFields;
    const answer = await this.send({
      label: 'container.status',
      context: 'read',
      subject: 'the container status read',
      method: 'GET',
      path: `/${encodeURIComponent(id)}`,
      params: { fields: `${codeField},${textField}` },
    });
    const code = answer[codeField];
    if (!isContainerStatus(code)) {
      throw new PlatformError(
        'transient',
        `${this.name} answered the container status read without a known ${codeField}.`,
      );
    }
    return { code, text: typeof answer[textField] === 'string' ? answer[textField] : null };
  }

  /** Polls until FINISHED (or PUBLISHED); ERROR is `media_invalid` with the platform's words, EXPIRED `ContainerExpired`. */
  awaitFinished(id: string, subject: string): Promise<'FINISHED' | 'PUBLISHED'> {
    const { delaysMs, maxProcessingMs } = this.polling;
    return awaitContainer(
      {
        platformName: this.name,
        readStatus: () => this.status(id),
        session: this.session,
        pollDelaysMs: delaysMs,
        maxProcessingMs,
      },
      subject,
    );
  }

  /** The post's public URL; null when the read fails (the post stands, and `lateUrl` asks again). */
  async permalink(mediaId: string): Promise<string | null> {
    try {
      const answer = await this.send({ label: this.api.labels.get, ...permalinkRead(mediaId) });
      return typeof answer.permalink === 'string' ? answer.permalink : null;
    } catch (error) {
      if (error instanceof PlatformError && error.kind !== 'reauth_required') return null;
      throw error;
    }
  }

  /** The publishing limit first: a used-up quota is refused with the figures, before any container is made. */
  async refuseWhenQuotaUsed(): Promise<void> {
    const edge = this.api.edges.publishingLimit;
    const answer = await this.send({
      label: this.api.labels.publishingLimit,
      context: 'read',
      subject: 'the publishing limit read',
      method: 'GET',
      path: this.userPath(edge),
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
      `${possessive(this.name)} publishing limit for this account is used up: ${used} of ${total} posts in the last ${hours} hours (${edge}). Publish again once older posts leave that window.`,
    );
  }

  /** After a lost publish answer: a post the account made from this attempt, with the same text. */
  async findPublished(text: string, createSentAt: Date | null): Promise<LivePost | null> {
    const textParam = this.api.textParam;
    // Only a post made from this attempt's publish (or, failing its moment, its container) on counts:
    // an older post with the same text is another one.
    const since = (createSentAt?.getTime() ?? this.saved.containerCreatedAt ?? 0) - CLOCK_SLACK_MS;
    const answer = await this.send({
      label: this.api.labels.list,
      context: 'read',
      subject: "the look-up of the account's latest posts",
      method: 'GET',
      path: this.userPath(this.api.edges.list),
      params: { fields: `id,${textParam},timestamp,permalink`, limit: String(RECENT_POSTS) },
    });
    const list = Array.isArray(answer.data) ? (answer.data as Array<Record<string, unknown>>) : [];
    const found = list.find(
      (post) =>
        typeof post.id === 'string' &&
        (typeof post[textParam] === 'string' ? post[textParam] : '').trim() === text.trim() &&
        postedAt(post.timestamp) >= since,
    );
    if (!found) return null;
    const id = found.id as string;
    await this.save({ mediaId: id });
    return { platformPostId: id, url: typeof found.permalink === 'string' ? found.permalink : null };
  }

  private async make(media: MediaRef[], text: string): Promise<string> {
    const textParam = this.api.textParam;
    if (media.length <= 1) {
      const params = media[0] ? this.api.mediaParams(media[0], false) : this.api.textOnly!;
      return this.saveContainer(await this.create({ ...params, [textParam]: text }, 'the post'));
    }
    const children = [...(this.saved.children ?? [])].slice(0, media.length);
    while (children.length < media.length) children.push(null);
    for (const [index, ref] of media.entries()) {
      const subject = `media ${index + 1} of ${media.length} (${ref.mimeType})`;
      if (!children[index]) {
        children[index] = await this.create({ ...this.api.mediaParams(ref, true), is_carousel_item: 'true' }, subject);
        await this.save({ children: [...children] });
      }
      // A carousel is made from FINISHED items only.
      await this.awaitFinished(children[index]!, subject);
    }
    const parent = { media_type: 'CAROUSEL', children: children.join(','), [textParam]: text };
    return this.saveContainer(await this.create(parent, 'the carousel'));
  }

  private async saveContainer(id: string): Promise<string> {
    await this.save({ containerId: id, containerCreatedAt: this.now().getTime() });
    return id;
  }

  /** Makes one container; its id is answered for the caller to save at once. */
  private async create(params: Record<string, string>, subject: string): Promise<string> {
    const answer = await this.send({
      label: this.api.labels.create,
      context: 'container',
      subject,
      method: 'POST',
      path: this.userPath(this.api.edges.create),
      params,
    });
    return containerIdOf(this.name, answer, subject);
  }
}

/** Graph timestamps read `2026-06-15T09:00:00+0000` (Instagram) or ISO 8601 (Threads). */
function postedAt(value: unknown): number {
  if (typeof value !== 'string') return 0;
  const parsed = Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(parsed) ? 0 : parsed;
}
