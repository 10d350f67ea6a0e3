/**
 * What the fake Facebook stores for its Pages: posts, photos and videos, and how it reads them back
 * (`GET /{id}?fields=…`, a Page's feed and videos). Photos and videos are given by URL, and the fake
 * really GETs each one, as Meta does, answering Graph's own codes when that fails (324 for a photo,
 * 389 for a video) or when the bytes are not an image or a video. Videos then process on the clock.
 */
import type { FakeClock } from './shared/clock.ts';
import type { Reply } from './shared/http-fake.ts';
import { numericId } from './shared/token-store.ts';
import {
  duplicateStatus,
  invalidImage,
  invalidParameter,
  nonexistingField,
  unknownObject,
  unsupportedVideo,
  videoFetchFailed,
} from './facebook-errors.ts';

/** How a video given by `file_url` moves on: after `steps` status reads (`poll`) or `steps` seconds (`clock`). */
export interface FacebookVideoProcessing {
  advance: 'poll' | 'clock';
  steps: number;
  outcome: 'ready' | 'error';
}

export const DEFAULT_VIDEO_PROCESSING: FacebookVideoProcessing = { advance: 'poll', steps: 1, outcome: 'ready' };

export interface StoredFacebookPost {
  /** `{page-id}_{post-id}`, as Graph names posts. */
  id: string;
  pageId: string;
  kind: 'status' | 'photo' | 'album' | 'video';
  message: string;
  link?: string;
  photoIds: string[];
  videoId?: string;
  createdAt: number;
}

export interface FacebookPhoto {
  id: string;
  pageId: string;
  url: string;
  mimeType: string;
  bytes: number;
  message: string;
  published: boolean;
  /** `alt_text_custom`: the photo's description for screen readers, when given. */
  altText?: string;
  /** The post showing it: its own (published), or the one it was attached to. */
  postId?: string;
  createdAt: number;
}

export interface FacebookVideo {
  id: string;
  pageId: string;
  fileUrl: string;
  bytes: number;
  description: string;
  title?: string;
  createdAt: number;
  processing: FacebookVideoProcessing & { polls: number };
  /** Set once processing ends ready: the video is then published on the Page. */
  postId?: string;
}

export interface MediaFetch {
  url: string;
  /** The media server's status, or null when it could not be reached. */
  status: number | null;
  bytes: number;
}

const IMAGE_MAX_BYTES = 10 * 1024 * 1024;
const VIDEO_MAX_BYTES = 1024 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 10_000;
/** Graph refuses the same status text on a Page within this long. */
const DUPLICATE_WINDOW_MS = 24 * 3600 * 1000;

const FIELDS = {
  Post: ['id', 'message', 'created_time', 'permalink_url', 'status_type', 'is_published', 'link'],
  Photo: ['id', 'created_time', 'link', 'name', 'page_story_id', 'published'],
  Video: ['id', 'created_time', 'description', 'title', 'permalink_url', 'status', 'published'],
  Page: ['id', 'name', 'link', 'category'],
} as const;

type NodeType = keyof typeof FIELDS;

export type GraphParams = Record<string, unknown>;

export class FacebookContent {
  readonly posts: StoredFacebookPost[] = [];
  readonly photos = new Map<string, FacebookPhoto>();
  readonly videos = new Map<string, FacebookVideo>();
  readonly mediaFetches: MediaFetch[] = [];
  videoProcessing: FacebookVideoProcessing = DEFAULT_VIDEO_PROCESSING;

  constructor(private readonly clock: FakeClock) {}

  createFeedPost(pageId: string, params: GraphParams): Reply {
    const message = stringParam(params.message);
    const link = stringParam(params.link);
    const attached = attachedMedia(params);
    if (attached === 'invalid') return invalidParameter('param attached_media must be an array of {"media_fbid": id}');
    const photos: FacebookPhoto[] = [];
    for (const [index, fbid] of attached.entries()) {
      const photo = this.photos.get(fbid);
      if (!photo || photo.pageId !== pageId) {
        return invalidParameter(`param attached_media[${index}] has an invalid media_fbid: ${fbid}`);
      }
      if (photo.published || photo.postId) {
        return invalidParameter(`param attached_media[${index}]: the photo ${fbid} is already published`);
      }
      photos.push(photo);
    }
    if (!message && !link && photos.length === 0) return invalidParameter('(#100) Missing message or attachment.');
    const now = this.clock.now();
    if (photos.length === 0 && message) {
      const repeated = this.posts.some(
        (post) =>
          post.pageId === pageId &&
          post.kind === 'status' &&
          post.message === message &&
          now - post.createdAt < DUPLICATE_WINDOW_MS,
      );
      if (repeated) return duplicateStatus();
    }
    const post = this.storePost({
      pageId,
      kind: photos.length ? 'album' : 'status',
      message: message ?? '',
      ...(link && { link }),
      photoIds: photos.map((photo) => photo.id),
    });
    for (const photo of photos) photo.postId = post.id;
    return { status: 200, json: { id: post.id }, createdPost: true };
  }

  async createPhoto(pageId: string, params: GraphParams): Promise<Reply> {
    const url = stringParam(params.url);
    if (!url) return invalidParameter('(#100) url should represent a valid URL');
    if (!isHttpUrl(url)) return invalidParameter('(#100) url should represent a valid URL');
    const fetched = await this.fetchMedia(url, IMAGE_MAX_BYTES);
    const mimeType = fetched && imageType(fetched);
    if (!fetched || !mimeType) return invalidImage();
    const published = !isFalse(params.published);
    const message = stringParam(params.message) ?? stringParam(params.caption) ?? '';
    const altText = params.alt_text_custom;
    if (altText !== undefined && (typeof altText !== 'string' || altText.trim() === '')) {
      return invalidParameter('(#100) Param alt_text_custom must be a non-empty string');
    }
    const photo: FacebookPhoto = {
      id: numericId(16),
      pageId,
      url,
      mimeType,
      bytes: fetched.length,
      message,
      published,
      ...(altText !== undefined && { altText }),
      createdAt: this.clock.now(),
    };
    this.photos.set(photo.id, photo);
    if (!published) return { status: 200, json: { id: photo.id } };
    const post = this.storePost({ pageId, kind: 'photo', message, photoIds: [photo.id] });
    photo.postId = post.id;
    return { status: 200, json: { id: photo.id, post_id: post.id }, createdPost: true };
  }

  async createVideo(pageId: string, params: GraphParams): Promise<Reply> {
    const fileUrl = stringParam(params.file_url);
    if (!fileUrl) {
      // The resumable upload (upload_phase=start/transfer/finish) is real too, but not served here.
      return invalidParameter('(#100) This fake serves videos by file_url only; file_url is required.');
    }
    if (!isHttpUrl(fileUrl)) return invalidParameter('(#100) file_url should represent a valid URL');
    const fetched = await this.fetchMedia(fileUrl, VIDEO_MAX_BYTES);
    if (!fetched) return videoFetchFailed();
    if (!isVideo(fetched)) return unsupportedVideo();
    const title = stringParam(params.title);
    const video: FacebookVideo = {
      id: numericId(16),
      pageId,
      fileUrl,
      bytes: fetched.length,
      description: stringParam(params.description) ?? '',
      ...(title && { title }),
      createdAt: this.clock.now(),
      processing: { ...this.videoProcessing, polls: 0 },
    };
    this.videos.set(video.id, video);
    return { status: 200, json: { id: video.id }, createdPost: true };
  }

  /** The Page that owns object `id`, or undefined when there is no such object. */
  ownerOf(id: string): string | undefined {
    return (
      this.posts.find((post) => post.id === id)?.pageId ?? this.photos.get(id)?.pageId ?? this.videos.get(id)?.pageId
    );
  }

  /** `GET /{id}?fields=…` of a post, photo or video; a status read counts as a poll of the video. */
  readNode(id: string, fields: string | undefined): Reply {
    const video = this.videos.get(id);
    if (video) {
      const wanted = parseFields(fields, ['id', 'description', 'created_time']);
      if (wanted.includes('status') && video.processing.advance === 'poll') video.processing.polls++;
      return this.answerFields('Video', wanted, this.videoFields(video));
    }
    this.settleVideos();
    const post = this.posts.find((candidate) => candidate.id === id);
    if (post)
      return this.answerFields('Post', parseFields(fields, ['id', 'message', 'created_time']), postFields(post));
    const photo = this.photos.get(id);
    if (photo) return this.answerFields('Photo', parseFields(fields, ['id', 'created_time']), photoFields(photo));
    return unknownObject(id);
  }

  listFeed(pageId: string, query: Record<string, string>): Reply {
    this.settleVideos();
    const wanted = parseFields(query.fields, ['id', 'message', 'created_time']);
    const unknown = wanted.find((field) => !(FIELDS.Post as readonly string[]).includes(field));
    if (unknown) return nonexistingField(unknown, 'Post');
    const posts = this.posts
      .filter((post) => post.pageId === pageId)
      .reverse()
      .slice(0, limitOf(query));
    return { status: 200, json: { data: posts.map((post) => pick(postFields(post), wanted)) } };
  }

  listVideos(pageId: string, query: Record<string, string>): Reply {
    const wanted = parseFields(query.fields, ['id', 'description', 'created_time']);
    const unknown = wanted.find((field) => !(FIELDS.Video as readonly string[]).includes(field));
    if (unknown) return nonexistingField(unknown, 'Video');
    const videos = [...this.videos.values()]
      .filter((video) => video.pageId === pageId)
      .reverse()
      .slice(0, limitOf(query));
    return { status: 200, json: { data: videos.map((video) => pick(this.videoFields(video), wanted)) } };
  }

  /** A video that processing has finished with `ready` is published: it gets its post on the Page. */
  settleVideos(): void {
    for (const video of this.videos.values()) this.videoState(video);
  }

  private videoState(video: FacebookVideo): 'processing' | 'ready' | 'error' {
    const plan = video.processing;
    const done =
      plan.advance === 'poll' ? plan.polls > plan.steps : this.clock.now() - video.createdAt >= plan.steps * 1000;
    if (!done) return 'processing';
    if (plan.outcome === 'ready' && !video.postId) {
      const post = this.storePost({
        pageId: video.pageId,
        kind: 'video',
        message: video.description,
        photoIds: [],
        videoId: video.id,
      });
      video.postId = post.id;
    }
    return plan.outcome;
  }

  private videoFields(video: FacebookVideo): Record<string, unknown> {
    const state = this.videoState(video);
    const phase = (status: string) => ({ status });
    return {
      id: video.id,
      created_time: graphTime(video.createdAt),
      description: video.description,
      ...(video.title && { title: video.title }),
      published: state === 'ready',
      // Graph answers a video's permalink relative to facebook.com.
      permalink_url: `/${video.pageId}/videos/${video.id}/`,
      status: {
        video_status: state,
        uploading_phase: { status: 'complete', bytes_transferred: video.bytes },
        processing_phase:
          state === 'error'
            ? {
                status: 'error',
                errors: [
                  {
                    code: 6000,
                    message: 'There was a problem uploading your video file. Please try again with another file.',
                  },
                ],
              }
            : phase(state === 'ready' ? 'complete' : 'in_progress'),
        publishing_phase:
          state === 'ready'
            ? { status: 'complete', publish_status: 'published', publish_time: graphTime(video.createdAt) }
            : phase('not_started'),
      },
    };
  }

  private answerFields(type: NodeType, wanted: string[], values: Record<string, unknown>): Reply {
    const unknown = wanted.find((field) => !(FIELDS[type] as readonly string[]).includes(field));
    if (unknown) return nonexistingField(unknown, type);
    return { status: 200, json: pick(values, wanted) };
  }

  private storePost(fields: Omit<StoredFacebookPost, 'id' | 'createdAt'>): StoredFacebookPost {
    const post: StoredFacebookPost = {
      id: `${fields.pageId}_${numericId(16)}`,
      createdAt: this.clock.now(),
      ...fields,
    };
    this.posts.push(post);
    return post;
  }

  /** GETs a media URL the way Meta's fetcher does; null when it cannot (unreachable, non-2xx, too big). */
  private async fetchMedia(url: string, maxBytes: number): Promise<Buffer | null> {
    const fetched: MediaFetch = { url, status: null, bytes: 0 };
    this.mediaFetches.push(fetched);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      fetched.status = response.status;
      const bytes = Buffer.from(await response.arrayBuffer());
      fetched.bytes = bytes.length;
      return response.ok && bytes.length > 0 && bytes.length <= maxBytes ? bytes : null;
    } catch {
      return null;
    }
  }
}

function postFields(post: StoredFacebookPost): Record<string, unknown> {
  const [page, story] = post.id.split('_');
  return {
    id: post.id,
    ...(post.message && { message: post.message }),
    created_time: graphTime(post.createdAt),
    permalink_url: `https://www.facebook.com/${page}/posts/${story}`,
    status_type: { status: 'mobile_status_update', photo: 'added_photos', album: 'added_photos', video: 'added_video' }[
      post.kind
    ],
    is_published: true,
    ...(post.link && { link: post.link }),
  };
}

function photoFields(photo: FacebookPhoto): Record<string, unknown> {
  return {
    id: photo.id,
    created_time: graphTime(photo.createdAt),
    link: `https://www.facebook.com/photo.php?fbid=${photo.id}`,
    ...(photo.message && { name: photo.message }),
    ...(photo.postId && { page_story_id: photo.postId }),
    published: photo.published,
  };
}

/** Graph's timestamps: ISO 8601 with a `+0000` offset. */
export function graphTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+0000');
}

function parseFields(fields: string | undefined, fallback: string[]): string[] {
  if (fields === undefined) return fallback;
  const list = fields
    .split(',')
    .map((field) => field.trim())
    .filter(Boolean);
  return list.includes('id') ? list : ['id', ...list];
}

function pick(values: Record<string, unknown>, wanted: string[]): Record<string, unknown> {
  return Object.fromEntries(
    wanted.filter((field) => values[field] !== undefined).map((field) => [field, values[field]]),
  );
}

function limitOf(query: Record<string, string>): number {
  const limit = Number(query.limit ?? 25);
  return Number.isInteger(limit) && limit > 0 ? Math.min(limit, 100) : 25;
}

function stringParam(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isFalse(value: unknown): boolean {
  return value === false || value === 'false' || value === '0';
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * `attached_media` as Graph takes it: a JSON array (in a JSON body, or as one form value), or one
 * form value per item (`attached_media[0]={"media_fbid":"…"}`). The media ids, or 'invalid'.
 */
function attachedMedia(params: GraphParams): string[] | 'invalid' {
  let items: unknown[];
  const whole = params.attached_media;
  if (whole !== undefined) {
    const parsed = typeof whole === 'string' ? parseJson(whole) : whole;
    if (!Array.isArray(parsed)) return 'invalid';
    items = parsed;
  } else {
    const indexed = Object.keys(params)
      .map((name) => /^attached_media\[(\d+)\]$/.exec(name))
      .filter((match): match is RegExpExecArray => match !== null)
      .sort((a, b) => Number(a[1]) - Number(b[1]));
    items = indexed.map((match) => {
      const value = params[match[0]];
      return typeof value === 'string' ? parseJson(value) : value;
    });
  }
  const ids: string[] = [];
  for (const item of items) {
    const fbid = (item as { media_fbid?: unknown } | null)?.media_fbid;
    if (typeof fbid !== 'string' || !/^\d+$/.test(fbid)) return 'invalid';
    ids.push(fbid);
  }
  return ids;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function imageType(bytes: Buffer): string | null {
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47]))) return 'image/png';
  if (bytes.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') {
    return 'image/webp';
  }
  return null;
}

function isVideo(bytes: Buffer): boolean {
  if (bytes.subarray(4, 8).toString('latin1') === 'ftyp') return true;
  return bytes.subarray(0, 4).equals(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]));
}
