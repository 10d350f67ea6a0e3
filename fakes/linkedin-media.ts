import { randomBytes } from 'node:crypto';
import type { FakeClock } from './shared/clock.ts';
import { jsonObject, type FakeRequest, type Reply } from './shared/http-fake.ts';
import { accessDenied, notFound, restError, unprocessable } from './linkedin-errors.ts';

export type VideoStatus = 'WAITING_UPLOAD' | 'PROCESSING' | 'AVAILABLE' | 'PROCESSING_FAILED';

/** How a finalized video reaches its outcome: after `steps` GETs (`poll`) or `steps` seconds (`clock`). */
export interface VideoProcessingScript {
  advance: 'poll' | 'clock';
  steps: number;
  outcome: 'AVAILABLE' | 'PROCESSING_FAILED';
}

export const DEFAULT_VIDEO_PROCESSING: VideoProcessingScript = { advance: 'poll', steps: 1, outcome: 'AVAILABLE' };

export interface LinkedInImage {
  urn: string;
  owner: string;
  uploadSecret: string;
  bytes?: Buffer;
}

export interface LinkedInVideo {
  urn: string;
  owner: string;
  fileSizeBytes: number;
  uploadSecret: string;
  uploadToken: string;
  parts: Array<{ firstByte: number; lastByte: number; etag?: string }>;
  finalizedAt?: number;
  processing?: VideoProcessingScript & { polls: number };
}

const UPLOAD_URL_LIFETIME_MS = 24 * 3600 * 1000;

/** Images (one PUT) and videos (PUT per part, ETags checked at finalize) of one fake LinkedIn. */
export class LinkedInMediaStore {
  readonly images = new Map<string, LinkedInImage>();
  readonly videos = new Map<string, LinkedInVideo>();
  videoProcessing: VideoProcessingScript = DEFAULT_VIDEO_PROCESSING;
  partSizeBytes = 4 * 1024 * 1024;

  constructor(
    private readonly clock: FakeClock,
    private readonly baseUrl: () => string,
  ) {}

  initializeImage(request: FakeRequest, memberUrn: string): Reply {
    const owner = initializeRequest(request)?.owner;
    if (typeof owner !== 'string') return unprocessable('/initializeUploadRequest/owner', 'is required but missing');
    if (owner !== memberUrn) return accessDenied('images.ACTION.initializeUpload');
    const image: LinkedInImage = { urn: `urn:li:image:${mediaId('D4')}`, owner, uploadSecret: secret() };
    this.images.set(image.urn, image);
    return {
      status: 200,
      json: {
        value: {
          uploadUrlExpiresAt: this.clock.now() + UPLOAD_URL_LIFETIME_MS,
          uploadUrl: `${this.baseUrl()}/dms-uploads/image/${encodeURIComponent(image.urn)}?token=${image.uploadSecret}`,
          image: image.urn,
        },
      },
    };
  }

  uploadImage(request: FakeRequest): Reply {
    const image = this.images.get(request.params.urn!);
    if (!image || request.query.token !== image.uploadSecret) return restError(403, 'Invalid upload URL');
    if (request.body.kind !== 'binary') return restError(400, 'The image bytes must be the raw request body.');
    image.bytes = request.body.bytes;
    return { status: 201 };
  }

  getImage(request: FakeRequest, memberUrn: string): Reply {
    const image = this.images.get(request.params.urn!);
    if (!image) return notFound(`Image ${request.params.urn} not found`);
    if (image.owner !== memberUrn) return accessDenied('images.GET');
    return { status: 200, json: { id: image.urn, owner: image.owner, status: this.imageStatus(image) } };
  }

  initializeVideo(request: FakeRequest, memberUrn: string): Reply {
    const upload = initializeRequest(request);
    if (typeof upload?.owner !== 'string') {
      return unprocessable('/initializeUploadRequest/owner', 'is required but missing');
    }
    if (upload.owner !== memberUrn) return accessDenied('videos.ACTION.initializeUpload');
    const size = upload.fileSizeBytes;
    if (!Number.isInteger(size) || (size as number) <= 0) {
      return unprocessable('/initializeUploadRequest/fileSizeBytes', 'must be a positive integer');
    }
    const video: LinkedInVideo = {
      urn: `urn:li:video:${mediaId('D5')}`,
      owner: upload.owner,
      fileSizeBytes: size as number,
      uploadSecret: secret(),
      uploadToken: secret(),
      parts: [],
    };
    for (let first = 0; first < video.fileSizeBytes; first += this.partSizeBytes) {
      video.parts.push({ firstByte: first, lastByte: Math.min(first + this.partSizeBytes, video.fileSizeBytes) - 1 });
    }
    this.videos.set(video.urn, video);
    const base = `${this.baseUrl()}/dms-uploads/video/${encodeURIComponent(video.urn)}`;
    return {
      status: 200,
      json: {
        value: {
          uploadUrlsExpireAt: this.clock.now() + UPLOAD_URL_LIFETIME_MS,
          video: video.urn,
          uploadInstructions: video.parts.map((part, index) => ({
            uploadUrl: `${base}/part/${index}?token=${video.uploadSecret}`,
            firstByte: part.firstByte,
            lastByte: part.lastByte,
          })),
          uploadToken: video.uploadToken,
        },
      },
    };
  }

  uploadVideoPart(request: FakeRequest): Reply {
    const video = this.videos.get(request.params.urn!);
    const part = video?.parts[Number(request.params.part)];
    if (!video || !part || request.query.token !== video.uploadSecret) return restError(403, 'Invalid upload URL');
    if (video.finalizedAt !== undefined) return restError(400, 'The upload has been finalized.');
    if (request.body.kind !== 'binary') return restError(400, 'The part bytes must be the raw request body.');
    const expected = part.lastByte - part.firstByte + 1;
    if (request.body.bytes.length !== expected) {
      return restError(400, `Part must be bytes ${part.firstByte}-${part.lastByte} (${expected} bytes).`);
    }
    part.etag = `/ambry-video/signedId/${secret()}`;
    return { status: 200, headers: { etag: part.etag } };
  }

  finalizeVideo(request: FakeRequest, memberUrn: string): Reply {
    const finalize = jsonObject(request)?.finalizeUploadRequest as Record<string, unknown> | undefined;
    const video = typeof finalize?.video === 'string' ? this.videos.get(finalize.video) : undefined;
    if (!finalize || !video) return unprocessable('/finalizeUploadRequest/video', 'is not a known video');
    if (video.owner !== memberUrn) return accessDenied('videos.ACTION.finalizeUpload');
    if (video.finalizedAt !== undefined) return restError(400, 'The upload has already been finalized.');
    if (finalize.uploadToken !== video.uploadToken) return restError(400, 'The upload token does not match.');
    const etags = video.parts.map((part) => part.etag);
    if (etags.some((etag) => etag === undefined)) return restError(400, 'Not every part has been uploaded.');
    const sent = finalize.uploadedPartIds;
    if (!Array.isArray(sent) || sent.length !== etags.length || sent.some((etag, i) => etag !== etags[i])) {
      return restError(400, 'uploadedPartIds must list the ETag of every part, in order.');
    }
    video.finalizedAt = this.clock.now();
    video.processing = { ...this.videoProcessing, polls: 0 };
    return { status: 200 };
  }

  getVideo(request: FakeRequest, memberUrn: string): Reply {
    const video = this.videos.get(request.params.urn!);
    if (!video) return notFound(`Video ${request.params.urn} not found`);
    if (video.owner !== memberUrn) return accessDenied('videos.GET');
    if (video.processing?.advance === 'poll') video.processing.polls++;
    const status = this.videoStatus(video);
    return {
      status: 200,
      json: {
        id: video.urn,
        owner: video.owner,
        status,
        ...(status === 'PROCESSING_FAILED' && { processingFailureReason: 'Video format is not supported' }),
        ...(status === 'AVAILABLE' && {
          downloadUrl: `${this.baseUrl()}/dms-downloads/${encodeURIComponent(video.urn)}`,
        }),
      },
    };
  }

  /** Why the media `urn` cannot go on a post by `memberUrn`, or undefined when it can. */
  refuseForPost(urn: string, memberUrn: string, kinds: Array<'image' | 'video'>): string | undefined {
    const image = kinds.includes('image') ? this.images.get(urn) : undefined;
    const video = kinds.includes('video') ? this.videos.get(urn) : undefined;
    if (!image && !video) return `${urn} is not a known ${kinds.join(' or ')}.`;
    if ((image ?? video)!.owner !== memberUrn) return `${urn} belongs to another owner.`;
    const status = image ? this.imageStatus(image) : this.videoStatus(video!);
    return status === 'AVAILABLE' ? undefined : `${urn} is not AVAILABLE (${status}).`;
  }

  private imageStatus(image: LinkedInImage): 'AVAILABLE' | 'WAITING_UPLOAD' {
    return image.bytes ? 'AVAILABLE' : 'WAITING_UPLOAD';
  }

  private videoStatus(video: LinkedInVideo): VideoStatus {
    const plan = video.processing;
    if (video.finalizedAt === undefined || !plan) return 'WAITING_UPLOAD';
    const done =
      plan.advance === 'poll' ? plan.polls > plan.steps : this.clock.now() - video.finalizedAt >= plan.steps * 1000;
    return done ? plan.outcome : 'PROCESSING';
  }
}

function initializeRequest(request: FakeRequest): Record<string, unknown> | undefined {
  const inner = jsonObject(request)?.initializeUploadRequest;
  return typeof inner === 'object' && inner !== null ? (inner as Record<string, unknown>) : undefined;
}

function mediaId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('base64url').replace(/[-_]/g, 'A')}`;
}

function secret(): string {
  return randomBytes(16).toString('hex');
}
