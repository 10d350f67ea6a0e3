/**
 * Instagram's media containers: made from the media's URLs (Meta downloads them), then polled until
 * FINISHED. Every container id is saved in the checkpoint the moment Instagram answers it, so a
 * process killed mid-way resumes polling the same containers and never makes a second set.
 */
import { z } from 'zod';
import { PlatformError, type LiveSession, type MediaRef } from '../platform-client.ts';
import {
  awaitContainer,
  ContainerExpired,
  containerIdOf as metaContainerIdOf,
  isContainerStatus,
  type ContainerStatus,
} from '../meta/containers.ts';
import { graphCall, type InstagramCall } from './request.ts';
import { checkpointCodec } from '../checkpoint.ts';

export type { ContainerStatus } from '../meta/containers.ts';

/** What the Instagram publisher keeps in the attempt's checkpoint. */
export interface InstagramCheckpoint {
  /** The container that `media_publish` takes (the carousel's parent, or the single media's). */
  containerId?: string;
  /** When it was made (epoch ms): a lost publish is looked for among media posted after it. */
  containerCreatedAt?: number;
  /** A carousel's children in order; null where not made yet. */
  children?: Array<string | null>;
  /** Set once an expired container has been made again: that happens once per publish. */
  recreated?: boolean;
  /** The published media's id, saved the moment `media_publish` answers it. */
  mediaId?: string;
}

export interface ContainerSettings {
  apiBaseUrl: string;
  igUserId: string;
  now: () => Date;
  /** Waits between status reads, in ms; the last one repeats. */
  pollDelaysMs: number[];
  /** How long processing may take in all before the publish gives up. */
  maxProcessingMs: number;
}

export class Containers {
  constructor(
    private readonly session: LiveSession,
    private readonly settings: ContainerSettings,
  ) {}

  get saved(): InstagramCheckpoint {
    return readCheckpoint(this.session.checkpoint.data);
  }

  get igUserId(): string {
    return this.settings.igUserId;
  }

  save(patch: InstagramCheckpoint): Promise<void> {
    return this.session.checkpoint.save({ ...patch });
  }

  /**
   * The container to publish, FINISHED: the saved one when there is one, else made now. A container
   * that expired (not published within 24 h) is made again, once. Answers PUBLISHED when a dead
   * holder got as far as publishing it.
   */
  async ready(media: MediaRef[], caption: string): Promise<{ id: string; status: 'FINISHED' | 'PUBLISHED' }> {
    try {
      const id = this.saved.containerId ?? (await this.make(media, caption));
      return { id, status: await this.awaitFinished(id, 'the post') };
    } catch (error) {
      if (!(error instanceof ContainerExpired) || this.saved.recreated) throw error;
    }
    return this.remake(media, caption);
  }

  /** Forgets the expired containers and makes them again (the caller has checked it is the first time). */
  async remake(media: MediaRef[], caption: string): Promise<{ id: string; status: 'FINISHED' | 'PUBLISHED' }> {
    await this.session.checkpoint.save({
      containerId: undefined,
      containerCreatedAt: undefined,
      children: undefined,
      recreated: true,
    } satisfies InstagramCheckpoint);
    const id = await this.make(media, caption);
    return { id, status: await this.awaitFinished(id, 'the post') };
  }

  /** Reads a container's status once. */
  async status(id: string): Promise<{ code: ContainerStatus; text: string | null }> {
    const answer = await this.send({
      label: 'container.status',
      context: 'read',
      subject: 'the media container status read',
      method: 'GET',
      path: `/${encodeURIComponent(id)}`,
      params: { fields: 'status_code,status' },
    });
    const code = answer.status_code;
    if (!isContainerStatus(code)) {
      throw new PlatformError('transient', `Instagram answered the container status read without a known status_code.`);
    }
    return { code, text: typeof answer.status === 'string' ? answer.status : null };
  }

  private async make(media: MediaRef[], caption: string): Promise<string> {
    if (media.length === 1) {
      const id = await this.create(media[0]!, { caption }, 'the post');
      await this.session.checkpoint.save({ containerId: id, containerCreatedAt: this.settings.now().getTime() });
      return id;
    }
    const children = [...(this.saved.children ?? [])].slice(0, media.length);
    while (children.length < media.length) children.push(null);
    for (const [index, ref] of media.entries()) {
      const subject = `media ${index + 1} of ${media.length} (${ref.mimeType})`;
      if (!children[index]) {
        children[index] = await this.create(ref, { is_carousel_item: 'true' }, subject);
        await this.session.checkpoint.save({ children: [...children] } satisfies InstagramCheckpoint);
      }
      // The carousel can only be made from FINISHED items.
      await this.awaitFinished(children[index]!, subject);
    }
    const parent = await this.send({
      label: 'media.create',
      context: 'container',
      subject: 'the carousel',
      method: 'POST',
      path: `/${encodeURIComponent(this.settings.igUserId)}/media`,
      params: { media_type: 'CAROUSEL', children: children.join(','), caption },
    });
    const id = containerIdOf(parent, 'the carousel');
    await this.session.checkpoint.save({ containerId: id, containerCreatedAt: this.settings.now().getTime() });
    return id;
  }

  private async create(ref: MediaRef, extra: Record<string, string>, subject: string): Promise<string> {
    const isVideo = ref.kind === 'video';
    const carouselItem = extra.is_carousel_item === 'true';
    const params: Record<string, string> = isVideo
      ? { media_type: carouselItem ? 'VIDEO' : 'REELS', video_url: ref.url, ...extra }
      : { image_url: ref.url, ...extra };
    const answer = await this.send({
      label: 'media.create',
      context: 'container',
      subject,
      method: 'POST',
      path: `/${encodeURIComponent(this.settings.igUserId)}/media`,
      params,
    });
    return containerIdOf(answer, subject);
  }

  /** Polls until FINISHED (or PUBLISHED); ERROR is `media_invalid` with Instagram's status, EXPIRED `ContainerExpired`. */
  awaitFinished(id: string, subject: string): Promise<'FINISHED' | 'PUBLISHED'> {
    const { pollDelaysMs, maxProcessingMs } = this.settings;
    const polling = { platformName: 'Instagram', readStatus: () => this.status(id), session: this.session };
    return awaitContainer({ ...polling, pollDelaysMs, maxProcessingMs }, subject);
  }

  send(call: Omit<InstagramCall, 'create'> & { create?: boolean }) {
    return graphCall(this.session, this.settings.apiBaseUrl, call, this.settings.now);
  }
}

const containerIdOf = (answer: Record<string, unknown>, subject: string) =>
  metaContainerIdOf('Instagram', answer, subject);

/** The checkpoint's fields, each read back through its schema (checkpoint.ts). */
const INSTAGRAM_CHECKPOINT = checkpointCodec({
  containerId: z.string().min(1),
  containerCreatedAt: z.number(),
  // A child not made (or unreadable) is null: it is made again, the others are kept.
  children: z
    .array(z.unknown())
    .transform((children) => children.map((child) => (typeof child === 'string' && child ? child : null))),
  recreated: z.literal(true),
  mediaId: z.string().min(1),
});

/** The checkpoint as the publisher wrote it; a field that does not read counts as not done. */
export function readCheckpoint(data: Readonly<Record<string, unknown>>): InstagramCheckpoint {
  return INSTAGRAM_CHECKPOINT.read(data);
}
