/**
 * The fake Instagram's containers and published media. A container is made from a URL the fake
 * really downloads (an image at once, failing the request as Meta does; a video's failure shows
 * later as status ERROR), then moves IN_PROGRESS → FINISHED on its processing script, EXPIRED 24 h
 * after creation, and PUBLISHED once `media_publish` turns it into a post.
 */
import { randomBytes } from 'node:crypto';
import type { FakeClock } from './shared/clock.ts';
import type { Reply } from './shared/http-fake.ts';
import { numericId } from './shared/token-store.ts';
import { INSTAGRAM_ERRORS } from './instagram-errors.ts';
import { graphError, invalidParameter, noSuchObject } from './meta-graph.ts';

export type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';
export type ContainerKind = 'IMAGE' | 'REELS' | 'VIDEO' | 'CAROUSEL';

/**
 * How a new container reaches its outcome: after `steps` status reads (`poll`) or `steps` seconds
 * (`clock`). Images and videos have their own step counts; a carousel is as ready as its children.
 */
export interface ContainerProcessingScript {
  advance: 'poll' | 'clock';
  imageSteps: number;
  videoSteps: number;
  outcome: 'FINISHED' | 'ERROR';
}

export const DEFAULT_CONTAINER_PROCESSING: ContainerProcessingScript = {
  advance: 'poll',
  imageSteps: 0,
  videoSteps: 1,
  outcome: 'FINISHED',
};

/** Meta keeps an unpublished container for 24 hours. */
const CONTAINER_LIFETIME_MS = 24 * 3600 * 1000;
export const MAX_CAPTION = 2200;
export const MAX_HASHTAGS = 30;

export interface InstagramContainer {
  id: string;
  ownerId: string;
  kind: ContainerKind;
  isCarouselItem: boolean;
  mediaUrl?: string;
  /** What the download of `mediaUrl` gave: its size, or why it failed. */
  fetched?: { bytes: number; contentType: string } | { error: string };
  children: string[];
  caption: string;
  createdAt: number;
  steps: number;
  polls: number;
  outcome: 'FINISHED' | 'ERROR';
  errorStatus?: string;
  publishedMediaId?: string;
  /** A carousel child already taken by a parent. */
  usedBy?: string;
}

export interface InstagramMedia {
  id: string;
  ownerId: string;
  containerId: string;
  mediaType: 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM';
  mediaProductType: 'FEED' | 'REELS';
  caption: string;
  permalink: string;
  timestamp: number;
  children: string[];
}

export interface ContainerRequest {
  ownerId: string;
  params: Record<string, string>;
}

export class InstagramMediaStore {
  readonly containers = new Map<string, InstagramContainer>();
  readonly media: InstagramMedia[] = [];
  processing: ContainerProcessingScript = DEFAULT_CONTAINER_PROCESSING;
  downloadTimeoutMs = 5_000;

  constructor(private readonly clock: FakeClock) {}

  async create({ ownerId, params }: ContainerRequest): Promise<Reply> {
    const mediaType = params.media_type;
    const isCarouselItem = params.is_carousel_item === 'true';
    const caption = params.caption ?? '';
    if (caption.length > MAX_CAPTION) {
      return invalidParameter(`Param caption must be at most ${MAX_CAPTION} characters long.`, 2207010);
    }
    if ((caption.match(/#[^\s#]+/g) ?? []).length > MAX_HASHTAGS) {
      return invalidParameter(`The caption may contain at most ${MAX_HASHTAGS} hashtags.`, 2207035);
    }
    if (mediaType === 'CAROUSEL') return this.createCarousel(ownerId, params, caption);
    if (mediaType === undefined || mediaType === 'IMAGE') {
      if (!params.image_url) return invalidParameter('The parameter image_url is required.');
      if (params.video_url) return invalidParameter('An image container takes image_url, not video_url.');
      return this.createFromUrl(ownerId, 'IMAGE', params.image_url, isCarouselItem, caption);
    }
    if (mediaType === 'REELS' || mediaType === 'VIDEO') {
      if (!params.video_url) return invalidParameter('The parameter video_url is required.');
      if (mediaType === 'VIDEO' && !isCarouselItem) {
        return invalidParameter('The VIDEO media type is only for carousel items; publish a single video as REELS.');
      }
      if (mediaType === 'REELS' && isCarouselItem) {
        return invalidParameter('A carousel item video takes media_type=VIDEO.');
      }
      return this.createFromUrl(ownerId, mediaType, params.video_url, isCarouselItem, caption);
    }
    return invalidParameter(`Param media_type must be one of {IMAGE, REELS, VIDEO, CAROUSEL, STORIES}.`);
  }

  private async createFromUrl(
    ownerId: string,
    kind: 'IMAGE' | 'REELS' | 'VIDEO',
    url: string,
    isCarouselItem: boolean,
    caption: string,
  ): Promise<Reply> {
    const fetched = await this.download(url);
    const isImage = kind === 'IMAGE';
    if ('error' in fetched) {
      // An image is fetched while the request waits; a video is fetched behind the answer, and its
      // failure shows in the container's status instead.
      if (isImage)
        return fetched.error === 'timeout' ? INSTAGRAM_ERRORS.downloadTimeout() : INSTAGRAM_ERRORS.fetchFailed();
    } else if (isImage && !isJpegOrPng(fetched.head)) {
      return graphError(400, 9004, 'The image format is not supported.', {
        subcode: 2207005,
        userTitle: 'Unsupported image format',
        userMsg: 'The image format is not supported. Use a JPEG image.',
      });
    } else if (!isImage && !isIsoMedia(fetched.head)) {
      return this.store(ownerId, kind, url, isCarouselItem, caption, fetched, {
        outcome: 'ERROR',
        errorStatus: 'Error: The video format is not supported. Please check spec for supported formats. (2207026)',
      });
    }
    const failed = 'error' in fetched;
    return this.store(ownerId, kind, url, isCarouselItem, caption, fetched, {
      outcome: failed ? 'ERROR' : this.processing.outcome,
      errorStatus: failed
        ? `Error: Media download has failed. The media URI doesn't meet our requirements. (${fetched.error === 'timeout' ? 2207003 : 2207052})`
        : 'Error: Media processing failed. (2207032)',
    });
  }

  private store(
    ownerId: string,
    kind: ContainerKind,
    url: string,
    isCarouselItem: boolean,
    caption: string,
    fetched: Fetched,
    end: { outcome: 'FINISHED' | 'ERROR'; errorStatus: string },
  ): Reply {
    const container: InstagramContainer = {
      id: numericId(17),
      ownerId,
      kind,
      isCarouselItem,
      mediaUrl: url,
      fetched:
        'error' in fetched ? { error: fetched.error } : { bytes: fetched.bytes, contentType: fetched.contentType },
      children: [],
      caption: isCarouselItem ? '' : caption,
      createdAt: this.clock.now(),
      // A failed download is known as soon as the fetch gives up.
      steps: 'error' in fetched ? 0 : kind === 'IMAGE' ? this.processing.imageSteps : this.processing.videoSteps,
      polls: 0,
      outcome: end.outcome,
      ...(end.outcome === 'ERROR' && { errorStatus: end.errorStatus }),
    };
    this.containers.set(container.id, container);
    return { status: 200, json: { id: container.id } };
  }

  private createCarousel(ownerId: string, params: Record<string, string>, caption: string): Reply {
    if (params.image_url || params.video_url) {
      return invalidParameter('A carousel container takes children, not image_url or video_url.');
    }
    const ids = (params.children ?? '').split(',').filter(Boolean);
    if (ids.length < 2 || ids.length > 10) {
      return invalidParameter('Param children must contain between 2 and 10 carousel item containers.', 2207028);
    }
    for (const id of ids) {
      const child = this.containers.get(id);
      if (!child || child.ownerId !== ownerId) return noSuchObject(id, 'post');
      if (!child.isCarouselItem) {
        return invalidParameter(`Container ${id} was not created with is_carousel_item=true.`, 2207028);
      }
      if (child.usedBy) return invalidParameter(`Container ${id} is already part of a carousel.`, 2207028);
      const status = this.status(child);
      if (status === 'EXPIRED') return INSTAGRAM_ERRORS.expired();
      if (status !== 'FINISHED') return INSTAGRAM_ERRORS.notReady();
    }
    const container: InstagramContainer = {
      id: numericId(17),
      ownerId,
      kind: 'CAROUSEL',
      isCarouselItem: false,
      children: ids,
      caption,
      createdAt: this.clock.now(),
      steps: 0,
      polls: 0,
      outcome: 'FINISHED',
    };
    for (const id of ids) this.containers.get(id)!.usedBy = container.id;
    this.containers.set(container.id, container);
    return { status: 200, json: { id: container.id } };
  }

  /** GET /{container-id}?fields=status_code,status (a read moves a poll-advanced container on). */
  read(container: InstagramContainer, fields: string[]): Reply {
    container.polls++;
    const status = this.status(container);
    const answer: Record<string, unknown> = { id: container.id };
    if (fields.includes('status_code')) answer.status_code = status;
    if (fields.includes('status')) answer.status = status === 'ERROR' ? container.errorStatus : STATUS_TEXT[status];
    return { status: 200, json: answer };
  }

  status(container: InstagramContainer): ContainerStatus {
    if (container.publishedMediaId) return 'PUBLISHED';
    if (this.clock.now() - container.createdAt >= CONTAINER_LIFETIME_MS) return 'EXPIRED';
    if (container.kind === 'CAROUSEL') {
      const children = container.children.map((id) => this.status(this.containers.get(id)!));
      if (children.includes('ERROR')) return 'ERROR';
      return children.every((child) => child === 'FINISHED') ? 'FINISHED' : 'IN_PROGRESS';
    }
    const done =
      this.processing.advance === 'poll'
        ? container.polls > container.steps
        : this.clock.now() - container.createdAt >= container.steps * 1000;
    return done || container.steps === 0 ? container.outcome : 'IN_PROGRESS';
  }

  /** Makes the post: the container's media, public from now on. */
  publish(container: InstagramContainer): InstagramMedia {
    const id = numericId(17);
    const shortcode = randomBytes(8).toString('base64url').slice(0, 11);
    const reel = container.kind === 'REELS';
    const media: InstagramMedia = {
      id,
      ownerId: container.ownerId,
      containerId: container.id,
      mediaType: container.kind === 'CAROUSEL' ? 'CAROUSEL_ALBUM' : container.kind === 'IMAGE' ? 'IMAGE' : 'VIDEO',
      mediaProductType: reel ? 'REELS' : 'FEED',
      caption: container.caption,
      permalink: `https://www.instagram.com/${reel ? 'reel' : 'p'}/${shortcode}/`,
      timestamp: this.clock.now(),
      children: container.children,
    };
    container.publishedMediaId = id;
    this.media.push(media);
    return media;
  }

  private async download(url: string): Promise<Fetched> {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(this.downloadTimeoutMs) });
      if (!response.ok) return { error: `HTTP ${response.status}` };
      const bytes = Buffer.from(await response.arrayBuffer());
      return {
        bytes: bytes.length,
        contentType: response.headers.get('content-type') ?? '',
        head: bytes.subarray(0, 16),
      };
    } catch (error) {
      return { error: error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'unreachable' };
    }
  }
}

type Fetched = { bytes: number; contentType: string; head: Buffer } | { error: string };

const STATUS_TEXT: Partial<Record<ContainerStatus, string>> = {
  IN_PROGRESS: 'In Progress: Media is still being processed.',
  FINISHED: 'Finished: Media has been uploaded and it is ready to be published.',
  EXPIRED: 'Expired: The container was not published within 24 hours and has expired.',
  PUBLISHED: 'Published: Media has been successfully published.',
};

/** Meta documents JPEG; PNG is taken in practice, so the fake takes both and nothing else. */
function isJpegOrPng(head: Buffer): boolean {
  const jpeg = head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff;
  const png = head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  return jpeg || png;
}

/** MP4 and MOV are ISO base media files: `ftyp` at offset 4. */
function isIsoMedia(head: Buffer): boolean {
  return head.subarray(4, 8).toString('latin1') === 'ftyp';
}
