/**
 * The fake TikTok's publishes: the init calls' checks (privacy level, TikTok's chunk rules, photo
 * URLs), the video upload by chunks (Content-Range, order, sizes), the photos it really downloads, and
 * the status each publish moves through on the fake's clock.
 */
import { randomBytes } from 'node:crypto';
import type { FakeClock } from './shared/clock.ts';
import { numericId } from './shared/token-store.ts';
import type { FakeRequest, Reply } from './shared/http-fake.ts';
import { apiAnswer, apiError, invalidParams, logId } from './tiktok-errors.ts';

const MB = 1024 * 1024;
const MIN_CHUNK = 5 * MB;
const MAX_CHUNK = 64 * MB;
const MAX_FINAL_CHUNK = 128 * MB;
const MAX_CHUNKS = 1000;
const MAX_VIDEO_BYTES = 4 * 1024 * MB;
const MAX_PHOTO_BYTES = 20 * MB;
const UPLOAD_URL_LIFETIME_MS = 3600 * 1000;
const VIDEO_TYPES = new Set(['video/mp4', 'video/quicktime', 'video/webm']);
export const PRIVACY_LEVELS = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'];

export type PublishStatus =
  'PROCESSING_UPLOAD' | 'PROCESSING_DOWNLOAD' | 'SEND_TO_USER_INBOX' | 'PUBLISH_COMPLETE' | 'FAILED';

/**
 * How a publish whose media is in hand reaches its outcome: after `steps` status fetches (`poll`) or
 * `steps` seconds (`clock`). With PUBLISH_COMPLETE, the public post id appears `publicIdAfter` fetches
 * (or seconds) later, or, when null, only once `makePublic` is called (moderation that takes hours).
 */
export interface PublishProcessingScript {
  advance: 'poll' | 'clock';
  steps: number;
  outcome: 'PUBLISH_COMPLETE' | 'SEND_TO_USER_INBOX' | 'FAILED';
  /** The `fail_reason` of a FAILED outcome. */
  failReason: string;
  publicIdAfter: number | null;
}

export const DEFAULT_PUBLISH_PROCESSING: PublishProcessingScript = {
  advance: 'poll',
  steps: 1,
  outcome: 'PUBLISH_COMPLETE',
  failReason: 'internal',
  publicIdAfter: 0,
};

export interface TikTokPublish {
  publishId: string;
  openId: string;
  kind: 'video' | 'photo';
  source: 'FILE_UPLOAD' | 'PULL_FROM_URL';
  postMode: 'DIRECT_POST' | 'MEDIA_UPLOAD';
  /** The init body's `post_info`, as sent. */
  postInfo: Record<string, unknown>;
  createdAt: number;
  upload?: {
    secret: string;
    videoSize: number;
    chunkSize: number;
    totalChunks: number;
    expiresAt: number;
    chunks: Buffer[];
  };
  /** The whole video, once uploaded or downloaded. */
  video?: Buffer;
  /** The photos as downloaded, in order. */
  photos?: Array<{ url: string; bytes?: Buffer }>;
  uploadedBytes: number;
  downloadedBytes: number;
  /** When all the media was in hand (the last chunk, or the downloads). */
  mediaReadyAt?: number;
  /** Why the media cannot be published (a failed download, a file that is not a video or a photo). */
  mediaProblem?: string;
  processing: PublishProcessingScript & { polls: number; completedAt?: number; pollsSinceComplete: number };
  publicId?: string;
}

export interface InitContext {
  openId: string;
  /** The levels `creator_info/query` offers this user now. */
  privacyOptions: string[];
  audited: boolean;
  /** URL prefixes verified for PULL_FROM_URL; undefined: every URL counts as verified. */
  verifiedUrlPrefixes: string[] | undefined;
  scopes: string[];
}

export class TikTokPublishStore {
  readonly publishes = new Map<string, TikTokPublish>();
  processing: PublishProcessingScript = DEFAULT_PUBLISH_PROCESSING;

  constructor(
    private readonly clock: FakeClock,
    private readonly baseUrl: () => string,
  ) {}

  /** `POST /v2/post/publish/video/init/`: a DIRECT_POST video by FILE_UPLOAD or PULL_FROM_URL. */
  async initVideo(body: Record<string, unknown>, context: InitContext): Promise<Reply> {
    const postInfo = asObject(body.post_info);
    const sourceInfo = asObject(body.source_info);
    if (!postInfo || !sourceInfo) return invalidParams('post_info and source_info are required.');
    const refusal = checkPostInfo(postInfo, context, { maxTitle: 2200 }) ?? checkBooleans(postInfo, VIDEO_TOGGLES);
    if (refusal) return refusal;
    const publish = this.newPublish('video', sourceInfo.source, context.openId, postInfo, 'DIRECT_POST');
    if (sourceInfo.source === 'FILE_UPLOAD') {
      const sizes = checkChunkRules(sourceInfo);
      if (typeof sizes === 'string') return invalidParams(sizes);
      publish.upload = {
        ...sizes,
        secret: randomBytes(16).toString('hex'),
        expiresAt: this.clock.now() + UPLOAD_URL_LIFETIME_MS,
        chunks: [],
      };
      this.publishes.set(publish.publishId, publish);
      const uploadUrl = `${this.baseUrl()}/upload/video/${encodeURIComponent(publish.publishId)}?upload_token=${publish.upload.secret}`;
      return apiAnswer({ publish_id: publish.publishId, upload_url: uploadUrl });
    }
    if (sourceInfo.source !== 'PULL_FROM_URL')
      return invalidParams('source_info.source must be FILE_UPLOAD or PULL_FROM_URL.');
    const url = sourceInfo.video_url;
    if (typeof url !== 'string' || !isHttpUrl(url))
      return invalidParams('source_info.video_url must be an http(s) URL.');
    if (!isVerified(url, context)) return urlOwnershipUnverified();
    this.publishes.set(publish.publishId, publish);
    const downloaded = await download(url, MAX_VIDEO_BYTES);
    if (!downloaded) publish.mediaProblem = 'video_pull_failed';
    else {
      publish.video = downloaded;
      publish.downloadedBytes = downloaded.length;
      if (!isVideo(downloaded)) publish.mediaProblem = 'file_format_check_failed';
    }
    publish.mediaReadyAt = this.clock.now();
    return apiAnswer({ publish_id: publish.publishId });
  }

  /** `POST /v2/post/publish/content/init/`: photos by PULL_FROM_URL, downloaded at once. */
  async initPhotos(body: Record<string, unknown>, context: InitContext): Promise<Reply> {
    if (body.media_type !== 'PHOTO') return invalidParams('media_type must be PHOTO.');
    const postMode = body.post_mode;
    if (postMode !== 'DIRECT_POST' && postMode !== 'MEDIA_UPLOAD') {
      return invalidParams('post_mode must be DIRECT_POST or MEDIA_UPLOAD.');
    }
    if (postMode === 'MEDIA_UPLOAD' && !context.scopes.includes('video.upload')) {
      return apiError(401, 'scope_not_authorized', 'MEDIA_UPLOAD needs the video.upload scope.');
    }
    const postInfo = asObject(body.post_info);
    const sourceInfo = asObject(body.source_info);
    if (!postInfo || !sourceInfo) return invalidParams('post_info and source_info are required.');
    const refusal =
      (postMode === 'DIRECT_POST' ? checkPostInfo(postInfo, context, { maxTitle: 90 }) : checkTitle(postInfo, 90)) ??
      checkBooleans(postInfo, PHOTO_TOGGLES);
    if (refusal) return refusal;
    const description = postInfo.description;
    if (description !== undefined && (typeof description !== 'string' || description.length > 4000)) {
      return invalidParams('post_info.description must be a string of at most 4000 characters.');
    }
    if (sourceInfo.source !== 'PULL_FROM_URL')
      return invalidParams('Photos are posted with source PULL_FROM_URL only.');
    const images = sourceInfo.photo_images;
    if (!Array.isArray(images) || images.length < 1 || images.length > 35) {
      return invalidParams('source_info.photo_images must list 1 to 35 image URLs.');
    }
    if (!images.every((url): url is string => typeof url === 'string' && isHttpUrl(url))) {
      return invalidParams('Every photo_images entry must be an http(s) URL.');
    }
    const cover = sourceInfo.photo_cover_index;
    if (!Number.isInteger(cover) || (cover as number) < 0 || (cover as number) >= images.length) {
      return invalidParams('source_info.photo_cover_index must be the index of one of the photo_images.');
    }
    if (!images.every((url) => isVerified(url, context))) return urlOwnershipUnverified();
    const publish = this.newPublish('photo', 'PULL_FROM_URL', context.openId, postInfo, postMode);
    this.publishes.set(publish.publishId, publish);
    publish.photos = [];
    for (const url of images) {
      const bytes = await download(url, MAX_PHOTO_BYTES);
      publish.photos.push({ url, ...(bytes && { bytes }) });
      if (!bytes) publish.mediaProblem ??= 'photo_pull_failed';
      else {
        publish.downloadedBytes += bytes.length;
        if (!isPhoto(bytes)) publish.mediaProblem ??= 'file_format_check_failed';
      }
    }
    publish.mediaReadyAt = this.clock.now();
    return apiAnswer({ publish_id: publish.publishId });
  }

  /** `PUT {upload_url}`: one chunk, in order, with `Content-Range: bytes a-b/total`. */
  uploadChunk(request: FakeRequest): Reply {
    const publish = this.publishes.get(request.params.publishId ?? '');
    const upload = publish?.upload;
    if (!publish || !upload) return uploadError(404, 'The upload was not found.');
    if (request.query.upload_token !== upload.secret) return uploadError(403, 'The upload URL is not valid.');
    if (this.clock.now() >= upload.expiresAt) return uploadError(403, 'The upload URL has expired.');
    const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!VIDEO_TYPES.has(contentType))
      return uploadError(400, 'Content-Type must be video/mp4, video/quicktime or video/webm.');
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(request.headers['content-range'] ?? '');
    if (!range) return uploadError(400, 'Content-Range must be "bytes {first}-{last}/{total}".');
    const [first, last, total] = [Number(range[1]), Number(range[2]), Number(range[3])];
    const index = upload.chunks.length;
    if (index >= upload.totalChunks) return uploadError(416, 'Every chunk has been uploaded already.');
    if (total !== upload.videoSize) return uploadError(416, `The total must be video_size (${upload.videoSize}).`);
    const expectedFirst = index * upload.chunkSize;
    const expectedLast = index === upload.totalChunks - 1 ? upload.videoSize - 1 : expectedFirst + upload.chunkSize - 1;
    if (first !== expectedFirst || last !== expectedLast) {
      return uploadError(
        416,
        `Chunks go in order: chunk ${index + 1} of ${upload.totalChunks} is bytes ${expectedFirst}-${expectedLast}.`,
      );
    }
    const bytes = request.body.kind === 'binary' ? request.body.bytes : Buffer.alloc(0);
    if (bytes.length !== last - first + 1) {
      return uploadError(400, `The body has ${bytes.length} bytes; the range says ${last - first + 1}.`);
    }
    upload.chunks.push(bytes);
    publish.uploadedBytes += bytes.length;
    if (upload.chunks.length < upload.totalChunks) return { status: 206 };
    publish.video = Buffer.concat(upload.chunks);
    if (!isVideo(publish.video)) publish.mediaProblem = 'file_format_check_failed';
    publish.mediaReadyAt = this.clock.now();
    return { status: 201 };
  }

  /** `POST /v2/post/publish/status/fetch/`: where the publish stands, moving it on. */
  fetchStatus(publish: TikTokPublish): Reply {
    const status = this.advance(publish);
    const data = {
      status,
      ...(status === 'FAILED' && { fail_reason: publish.mediaProblem ?? publish.processing.failReason }),
      ...(publish.source === 'FILE_UPLOAD'
        ? { uploaded_bytes: publish.uploadedBytes }
        : { downloaded_bytes: publish.downloadedBytes }),
      publicaly_available_post_id: '__IDS__',
    };
    // The ids are 64-bit integers, sent as JSON numbers as TikTok does: written into the text by hand.
    const ids = publish.publicId ? [publish.publicId] : [];
    const text = JSON.stringify({ data, error: { code: 'ok', message: '', log_id: logId() } }).replace(
      '"__IDS__"',
      `[${ids.join(',')}]`,
    );
    return { status: 200, text, headers: { 'content-type': 'application/json' } };
  }

  /** The moderation of a post that waits for it (`publicIdAfter: null`) ends: its public id appears. */
  makePublic(publishId: string): string {
    const publish = this.publishes.get(publishId);
    if (!publish) throw new Error(`No fake TikTok publish ${publishId}`);
    publish.publicId ??= numericId(19);
    return publish.publicId;
  }

  private advance(publish: TikTokPublish): PublishStatus {
    const waiting: PublishStatus = publish.source === 'FILE_UPLOAD' ? 'PROCESSING_UPLOAD' : 'PROCESSING_DOWNLOAD';
    const plan = publish.processing;
    if (publish.mediaReadyAt === undefined) return waiting;
    const now = this.clock.now();
    if (plan.completedAt === undefined) {
      if (plan.advance === 'poll') plan.polls++;
      const done = plan.advance === 'poll' ? plan.polls > plan.steps : now - publish.mediaReadyAt >= plan.steps * 1000;
      if (!done) return waiting;
      plan.completedAt = now;
    } else if (plan.advance === 'poll') {
      plan.pollsSinceComplete++;
    }
    if (publish.mediaProblem || plan.outcome === 'FAILED') return 'FAILED';
    if (plan.outcome === 'SEND_TO_USER_INBOX' || publish.postMode === 'MEDIA_UPLOAD') return 'SEND_TO_USER_INBOX';
    const after = plan.publicIdAfter;
    const elapsed = plan.advance === 'poll' ? plan.pollsSinceComplete : (now - plan.completedAt) / 1000;
    if (after !== null && elapsed >= after) publish.publicId ??= numericId(19);
    return 'PUBLISH_COMPLETE';
  }

  private newPublish(
    kind: TikTokPublish['kind'],
    source: unknown,
    openId: string,
    postInfo: Record<string, unknown>,
    postMode: TikTokPublish['postMode'],
  ): TikTokPublish {
    const via = source === 'FILE_UPLOAD' ? 'file' : 'url';
    return {
      publishId: `${kind === 'video' ? 'v' : 'p'}_pub_${via}~v2-1.${numericId(19)}`,
      openId,
      kind,
      source: source === 'FILE_UPLOAD' ? 'FILE_UPLOAD' : 'PULL_FROM_URL',
      postMode,
      postInfo,
      createdAt: this.clock.now(),
      uploadedBytes: 0,
      downloadedBytes: 0,
      processing: { ...this.processing, polls: 0, pollsSinceComplete: 0 },
    };
  }
}

const VIDEO_TOGGLES = [
  'disable_comment',
  'disable_duet',
  'disable_stitch',
  'brand_content_toggle',
  'brand_organic_toggle',
  'is_aigc',
];
const PHOTO_TOGGLES = ['disable_comment', 'auto_add_music', 'brand_content_toggle', 'brand_organic_toggle'];

/** The privacy level against the app's audit and the creator's options, then the title's length. */
function checkPostInfo(
  postInfo: Record<string, unknown>,
  context: InitContext,
  limits: { maxTitle: number },
): Reply | undefined {
  const level = postInfo.privacy_level;
  if (typeof level !== 'string' || !PRIVACY_LEVELS.includes(level)) {
    return invalidParams(`post_info.privacy_level must be one of ${PRIVACY_LEVELS.join(', ')}.`);
  }
  if (!context.audited && level !== 'SELF_ONLY') {
    return apiError(
      403,
      'unaudited_client_can_only_post_to_private_accounts',
      'Please review our integration guidelines at https://developers.tiktok.com/doc/content-sharing-guidelines/',
    );
  }
  if (!context.privacyOptions.includes(level)) {
    return apiError(
      403,
      'privacy_level_option_mismatch',
      `privacy_level ${level} is not among the creator's privacy_level_options.`,
    );
  }
  return checkTitle(postInfo, limits.maxTitle);
}

function checkTitle(postInfo: Record<string, unknown>, max: number): Reply | undefined {
  const title = postInfo.title;
  if (title !== undefined && (typeof title !== 'string' || title.length > max)) {
    return invalidParams(`post_info.title must be a string of at most ${max} UTF-16 characters.`);
  }
  return undefined;
}

function checkBooleans(postInfo: Record<string, unknown>, names: string[]): Reply | undefined {
  const wrong = names.find((name) => postInfo[name] !== undefined && typeof postInfo[name] !== 'boolean');
  return wrong ? invalidParams(`post_info.${wrong} must be a boolean.`) : undefined;
}

/** TikTok's chunk rules for `source_info`, or why they are broken. */
function checkChunkRules(
  source: Record<string, unknown>,
): { videoSize: number; chunkSize: number; totalChunks: number } | string {
  const { video_size: videoSize, chunk_size: chunkSize, total_chunk_count: totalChunks } = source;
  if (![videoSize, chunkSize, totalChunks].every((value) => Number.isInteger(value) && (value as number) > 0)) {
    return 'video_size, chunk_size and total_chunk_count must be positive integers for FILE_UPLOAD.';
  }
  const size = videoSize as number;
  const chunk = chunkSize as number;
  const count = totalChunks as number;
  if (size > MAX_VIDEO_BYTES) return 'The video is larger than 4 GB.';
  if (size < MIN_CHUNK) {
    return chunk === size && count === 1
      ? { videoSize: size, chunkSize: chunk, totalChunks: count }
      : 'A video under 5 MB is uploaded whole: chunk_size must equal video_size and total_chunk_count be 1.';
  }
  if (chunk < MIN_CHUNK || chunk > MAX_CHUNK) return 'chunk_size must be between 5 MB and 64 MB.';
  if (count !== Math.floor(size / chunk))
    return 'total_chunk_count must be video_size divided by chunk_size, rounded down.';
  if (count > MAX_CHUNKS) return 'total_chunk_count must be at most 1000.';
  if (size > MAX_CHUNK && count < 2) return 'A video over 64 MB must be uploaded in several chunks.';
  if (size - (count - 1) * chunk > MAX_FINAL_CHUNK) return 'The final chunk must be at most 128 MB.';
  return { videoSize: size, chunkSize: chunk, totalChunks: count };
}

const urlOwnershipUnverified = (): Reply =>
  apiError(403, 'url_ownership_unverified', 'The domain or URL prefix of the media URL is not verified for this app.');

function uploadError(status: number, message: string): Reply {
  return {
    status,
    json: { error: { code: status === 416 ? 'range_not_satisfiable' : 'invalid_upload', message, log_id: logId() } },
  };
}

function isVerified(url: string, context: InitContext): boolean {
  return (
    context.verifiedUrlPrefixes === undefined || context.verifiedUrlPrefixes.some((prefix) => url.startsWith(prefix))
  );
}

/** The fake really downloads what it is told to pull; undefined when that fails. */
async function download(url: string, maxBytes: number): Promise<Buffer | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    if (!response.ok) return undefined;
    const bytes = Buffer.from(await response.arrayBuffer());
    return bytes.length > 0 && bytes.length <= maxBytes ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/** MP4 and MOV (an ISO box `ftyp` at byte 4) or WebM (EBML magic). */
function isVideo(bytes: Buffer): boolean {
  return (
    bytes.subarray(4, 8).toString('latin1') === 'ftyp' ||
    bytes.subarray(0, 4).equals(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]))
  );
}

/** JPEG or WebP: TikTok's photo posts take nothing else. */
function isPhoto(bytes: Buffer): boolean {
  const jpeg = bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
  const webp =
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP';
  return jpeg || webp;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
