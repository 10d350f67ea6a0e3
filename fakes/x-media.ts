import type { FakeClock } from './shared/clock.ts';
import type { FakeRequest, Reply } from './shared/http-fake.ts';
import { jsonObject } from './shared/http-fake.ts';
import { numericId } from './shared/token-store.ts';
import { invalidRequest, notFound } from './x-problems.ts';

export type MediaCategory = 'tweet_image' | 'tweet_gif' | 'tweet_video' | 'amplify_video';
export type ProcessingState = 'pending' | 'in_progress' | 'succeeded' | 'failed';

/** How finalized videos and GIFs move through processing. Images never need processing. */
export interface MediaProcessingScript {
  /** The states answered in turn, ending in `succeeded` or `failed`. */
  states: ProcessingState[];
  checkAfterSecs: number;
  /** `poll`: each STATUS call moves one state on. `clock`: one state per `checkAfterSecs` on the clock. */
  advance: 'poll' | 'clock';
}

export const DEFAULT_PROCESSING: MediaProcessingScript = {
  states: ['pending', 'in_progress', 'succeeded'],
  checkAfterSecs: 1,
  advance: 'poll',
};

export interface XMedia {
  id: string;
  mediaKey: string;
  ownerId: string;
  mediaType: string;
  category: MediaCategory;
  totalBytes: number;
  segments: Buffer[];
  createdAt: number;
  expiresAt: number;
  finalizedAt?: number;
  processing?: MediaProcessingScript & { polls: number };
  /** Set by POST /2/media/metadata. */
  altText?: string;
}

/** `metadata.alt_text.text`: at most 1,000 characters. */
export const MAX_ALT_TEXT_CHARS = 1000;

const CATEGORY_RULES: Record<
  MediaCategory,
  { keyPrefix: string; maxBytes: number; accepts: (type: string) => boolean }
> = {
  tweet_image: {
    keyPrefix: '3',
    maxBytes: 5 * 1024 * 1024,
    accepts: (type) => ['image/jpeg', 'image/png', 'image/webp', 'image/bmp', 'image/tiff'].includes(type),
  },
  tweet_gif: { keyPrefix: '16', maxBytes: 15 * 1024 * 1024, accepts: (type) => type === 'image/gif' },
  tweet_video: { keyPrefix: '7', maxBytes: 512 * 1024 * 1024, accepts: (type) => type.startsWith('video/') },
  amplify_video: { keyPrefix: '13', maxBytes: 512 * 1024 * 1024, accepts: (type) => type.startsWith('video/') },
};

const MEDIA_LIFETIME_SECS = 86_400;
const MAX_SEGMENT_BYTES = 5 * 1024 * 1024;

/** Chunked media uploads of one fake X: initialize, append in order, finalize, poll. */
export class XMediaStore {
  readonly items = new Map<string, XMedia>();
  processing: MediaProcessingScript = DEFAULT_PROCESSING;

  constructor(private readonly clock: FakeClock) {}

  initialize(request: FakeRequest, userId: string): Reply {
    const body = jsonObject(request);
    if (!body) return invalidRequest('Request body must be a JSON object.');
    const { media_type: mediaType, total_bytes: totalBytes, media_category: category = 'tweet_image' } = body;
    if (typeof mediaType !== 'string') return invalidRequest('$.media_type: is missing but it is required');
    if (!Number.isInteger(totalBytes) || (totalBytes as number) <= 0) {
      return invalidRequest('$.total_bytes: must be a positive integer', { total_bytes: [totalBytes] });
    }
    if (typeof category !== 'string' || !(category in CATEGORY_RULES)) {
      return invalidRequest(`$.media_category: does not have a value in the enumeration`, {
        media_category: [category],
      });
    }
    const rules = CATEGORY_RULES[category as MediaCategory];
    if (!rules.accepts(mediaType)) return invalidRequest(`media_type ${mediaType} is not valid for ${category}.`);
    if ((totalBytes as number) > rules.maxBytes) return invalidRequest(`total_bytes exceeds the ${category} limit.`);
    const now = this.clock.now();
    const media: XMedia = {
      id: numericId(),
      mediaKey: '',
      ownerId: userId,
      mediaType,
      category: category as MediaCategory,
      totalBytes: totalBytes as number,
      segments: [],
      createdAt: now,
      expiresAt: now + MEDIA_LIFETIME_SECS * 1000,
    };
    media.mediaKey = `${rules.keyPrefix}_${media.id}`;
    this.items.set(media.id, media);
    return {
      status: 200,
      json: { data: { id: media.id, media_key: media.mediaKey, expires_after_secs: MEDIA_LIFETIME_SECS } },
    };
  }

  append(request: FakeRequest, userId: string): Reply {
    const media = this.owned(request.params.id!, userId);
    if (!media) return notFound();
    if (media.finalizedAt !== undefined) return invalidRequest('This media has already been finalized.');
    const segment = readSegment(request);
    if ('error' in segment) return invalidRequest(segment.error);
    if (segment.index !== media.segments.length) {
      return invalidRequest(`segment_index ${segment.index} is out of order: expected ${media.segments.length}.`, {
        segment_index: [segment.index],
      });
    }
    if (segment.bytes.length > MAX_SEGMENT_BYTES) return invalidRequest('A segment must not exceed 5 MB.');
    if (receivedBytes(media) + segment.bytes.length > media.totalBytes) {
      return invalidRequest('The appended segments exceed total_bytes.');
    }
    media.segments.push(segment.bytes);
    return { status: 200, json: { data: { expires_at: Math.floor(media.expiresAt / 1000) } } };
  }

  finalize(request: FakeRequest, userId: string): Reply {
    const media = this.owned(request.params.id!, userId);
    if (!media) return notFound();
    if (media.finalizedAt !== undefined) return invalidRequest('This media has already been finalized.');
    const received = receivedBytes(media);
    if (received !== media.totalBytes) {
      return invalidRequest(`File size mismatch: received ${received} bytes, total_bytes was ${media.totalBytes}.`);
    }
    media.finalizedAt = this.clock.now();
    if (media.category !== 'tweet_image') media.processing = { ...this.processing, polls: 0 };
    const processing = this.processingInfo(media);
    return {
      status: 200,
      json: {
        data: {
          id: media.id,
          media_key: media.mediaKey,
          size: media.totalBytes,
          expires_after_secs: this.secondsLeft(media),
          ...(processing && { processing_info: processing }),
        },
      },
    };
  }

  status(request: FakeRequest, userId: string): Reply {
    if (request.query.command !== 'STATUS') {
      return invalidRequest('command must be STATUS.', { command: [request.query.command] });
    }
    const media = this.owned(request.query.media_id ?? '', userId);
    if (!media) return notFound();
    if (media.finalizedAt === undefined) return invalidRequest('This media has not been finalized.');
    if (media.processing?.advance === 'poll') media.processing.polls++;
    const processing = this.processingInfo(media) ?? { state: 'succeeded', progress_percent: 100 };
    return { status: 200, json: { data: { id: media.id, media_key: media.mediaKey, processing_info: processing } } };
  }

  /** POST /2/media/metadata: `{ id, metadata: { alt_text: { text } } }` on media the user uploaded. */
  metadata(request: FakeRequest, userId: string): Reply {
    const body = jsonObject(request);
    if (!body) return invalidRequest('Request body must be a JSON object.');
    if (typeof body.id !== 'string') return invalidRequest('$.id: is missing but it is required');
    const altText = (body.metadata as { alt_text?: { text?: unknown } } | undefined)?.alt_text;
    if (typeof altText?.text !== 'string')
      return invalidRequest('$.metadata.alt_text.text: is missing but it is required');
    if ([...altText.text].length > MAX_ALT_TEXT_CHARS) {
      return invalidRequest(`$.metadata.alt_text.text: must be at most ${MAX_ALT_TEXT_CHARS} characters`);
    }
    const media = this.owned(body.id, userId);
    if (!media || this.clock.now() >= media.expiresAt) return notFound();
    if (media.finalizedAt === undefined) return invalidRequest('This media has not been finalized.');
    media.altText = altText.text;
    return {
      status: 200,
      json: { data: { id: media.id, associated_metadata: { alt_text: { text: altText.text } } } },
    };
  }

  /** Why `ids` cannot go on a post by `userId`, or undefined when they can: 4 images, or 1 GIF, or 1 video. */
  refuseForPost(ids: unknown, userId: string): string | undefined {
    if (!Array.isArray(ids) || ids.length < 1 || ids.length > 4) return 'media.media_ids must hold 1 to 4 ids.';
    if (new Set(ids).size !== ids.length) return 'media.media_ids must not repeat an id.';
    const items: XMedia[] = [];
    for (const id of ids) {
      const media = typeof id === 'string' ? this.items.get(id) : undefined;
      if (!media || media.ownerId !== userId || this.clock.now() >= media.expiresAt) {
        return `Your media IDs are invalid: ${String(id)}.`;
      }
      const state = this.state(media);
      if (state !== 'succeeded') return `Media ${media.id} is not ready to be used (${state}).`;
      items.push(media);
    }
    const images = items.filter((media) => media.category === 'tweet_image').length;
    if (images !== items.length && items.length > 1) {
      return 'A post takes up to 4 images, or 1 GIF, or 1 video, not a mix.';
    }
    return undefined;
  }

  private owned(id: string, userId: string): XMedia | undefined {
    const media = this.items.get(id);
    return media && media.ownerId === userId && this.clock.now() < media.expiresAt ? media : undefined;
  }

  private state(media: XMedia): ProcessingState | 'uploading' {
    if (media.finalizedAt === undefined) return 'uploading';
    const plan = media.processing;
    if (!plan) return 'succeeded';
    const step =
      plan.advance === 'poll'
        ? plan.polls
        : Math.floor((this.clock.now() - media.finalizedAt) / (plan.checkAfterSecs * 1000));
    return plan.states[Math.min(step, plan.states.length - 1)]!;
  }

  private processingInfo(media: XMedia): Record<string, unknown> | undefined {
    const plan = media.processing;
    if (!plan) return undefined;
    const state = this.state(media) as ProcessingState;
    if (state === 'succeeded') return { state, progress_percent: 100 };
    if (state === 'failed') {
      return {
        state,
        progress_percent: 0,
        error: { code: 1, name: 'InvalidMedia', message: 'Unsupported video format' },
      };
    }
    return { state, check_after_secs: plan.checkAfterSecs, progress_percent: state === 'pending' ? 0 : 50 };
  }

  private secondsLeft(media: XMedia): number {
    return Math.max(0, Math.floor((media.expiresAt - this.clock.now()) / 1000));
  }
}

function receivedBytes(media: XMedia): number {
  return media.segments.reduce((sum, segment) => sum + segment.length, 0);
}

/** A segment comes as multipart (`segment_index` field, `media` file) or as JSON with base64 `media`. */
function readSegment(request: FakeRequest): { index: number; bytes: Buffer } | { error: string } {
  const { body } = request;
  let index: unknown;
  let bytes: Buffer | undefined;
  if (body.kind === 'multipart') {
    index = body.fields.segment_index === undefined ? undefined : Number(body.fields.segment_index);
    bytes =
      body.files.media?.bytes ?? (body.fields.media_data ? Buffer.from(body.fields.media_data, 'base64') : undefined);
  } else if (body.kind === 'json') {
    const json = jsonObject(request) ?? {};
    index = json.segment_index;
    if (typeof json.media === 'string') bytes = Buffer.from(json.media, 'base64');
  } else {
    return { error: 'An append must be multipart/form-data with segment_index and media.' };
  }
  if (!Number.isInteger(index) || (index as number) < 0 || (index as number) > 999) {
    return { error: 'segment_index must be an integer from 0 to 999.' };
  }
  if (!bytes || bytes.length === 0) return { error: 'media is missing or empty.' };
  return { index: index as number, bytes };
}
