/**
 * X's chunked media upload (initialize, append segments, finalize, poll processing), resumable: the
 * checkpoint records each finished file and the open upload's next segment, so a process killed
 * mid-video continues the same upload session instead of initializing a second one.
 */
import { z } from 'zod';
import { PlatformError, type LiveSession, type MediaFile } from '../platform-client.ts';
import { answerData, xCall, type XCall } from './request.ts';
import { checkpointCodec } from '../checkpoint.ts';

/** X takes segments up to 5 MB; 4 MiB leaves room for the multipart framing. */
export const DEFAULT_SEGMENT_BYTES = 4 * 1024 * 1024;

/** An uploaded id is reused on a resume only when it outlives the post's creation by this much. */
const REUSE_MARGIN_MS = 10 * 60_000;

/** How long processing may take, summed over X's `check_after_secs`, before the publish gives up. */
const MAX_PROCESSING_WAIT_MS = 15 * 60_000;

const CATEGORY: Record<MediaFile['kind'], string> = {
  image: 'tweet_image',
  gif: 'tweet_gif',
  video: 'tweet_video',
};

/** A file X holds, ready for a post until `expiresAt` (epoch ms, from X's `expires_after_secs`). */
export interface UploadedMedia {
  id: string;
  expiresAt: number;
}

/** The upload under way: which file, X's id for it, and how far it got. */
export interface OpenUpload {
  file: number;
  id: string;
  totalBytes: number;
  /** Segment boundaries depend on it, so a resume cuts the file the same way. */
  segmentBytes: number;
  nextSegment: number;
  finalized: boolean;
  expiresAt: number;
}

/** What the X publisher keeps in the attempt's checkpoint. `media[i]` is the post's i-th file. */
export interface XMediaCheckpoint {
  media: UploadedMedia[];
  upload: OpenUpload | null;
}

export interface XUploadSettings {
  apiBaseUrl: string;
  segmentBytes: number;
  now: () => Date;
}

interface ProcessingInfo {
  state?: unknown;
  check_after_secs?: unknown;
  error?: { code?: unknown; name?: unknown; message?: unknown };
}

/** Uploads the post's files in order, skipping what the checkpoint shows done; answers X's media ids. */
export async function uploadPostMedia(
  session: LiveSession,
  files: MediaFile[],
  settings: XUploadSettings,
): Promise<string[]> {
  const saved = readCheckpoint(session.checkpoint.data);
  const media = saved.media.slice(0, files.length);
  for (const [index, file] of files.entries()) {
    const earlier = media[index];
    if (earlier && earlier.expiresAt - settings.now().getTime() > REUSE_MARGIN_MS) continue;
    const open = saved.upload;
    const resumable =
      open && open.file === index && open.totalBytes === file.bytes.length && usable(open, settings) ? open : null;
    media[index] = await new FileUpload(session, file, index, files.length, settings).run(resumable);
    await session.checkpoint.save({ media: [...media], upload: null } satisfies XMediaCheckpoint);
  }
  return media.map((uploaded) => uploaded.id);
}

/**
 * Gives each uploaded image that has alt text its description (`POST /2/media/metadata`), before the
 * post uses it. Setting the same text again changes nothing, so a resumed publish simply sends it again.
 */
export async function describePostMedia(
  session: LiveSession,
  files: MediaFile[],
  mediaIds: string[],
  settings: Pick<XUploadSettings, 'apiBaseUrl' | 'now'>,
): Promise<void> {
  for (const [index, file] of files.entries()) {
    // Images and GIFs: what X's alt text is for.
    if (!file.altText || file.kind === 'video') continue;
    await xCall(
      session,
      {
        label: 'media.metadata',
        context: 'media',
        subject: `the alt text of media ${index + 1} of ${files.length}`,
        method: 'POST',
        url: `${settings.apiBaseUrl}/2/media/metadata`,
        json: { id: mediaIds[index], metadata: { alt_text: { text: file.altText } } },
      },
      settings.now,
    );
  }
}

class FileUpload {
  private readonly subject: string;

  constructor(
    private readonly session: LiveSession,
    private readonly file: MediaFile,
    private readonly index: number,
    count: number,
    private readonly settings: XUploadSettings,
  ) {
    this.subject = `media ${index + 1} of ${count} (${file.mimeType})`;
  }

  /**
   * Continues `resume`, or a new upload. When X no longer takes the upload where this side thinks
   * it stands (a 404 for a forgotten or expired id, a 400 for a segment X already holds because an
   * answer was lost), the file starts over once in a new upload session.
   */
  async run(resume: OpenUpload | null): Promise<UploadedMedia> {
    // A refusal at initialize is about the file itself, so it is not retried.
    const upload = resume ?? (await this.initialize());
    try {
      return await this.continueUpload(upload);
    } catch (error) {
      if (!isLostUpload(error)) throw error;
    }
    return this.continueUpload(await this.initialize());
  }

  private async initialize(): Promise<OpenUpload> {
    const answer = await this.send({
      label: 'media.initialize',
      method: 'POST',
      url: `${this.settings.apiBaseUrl}/2/media/upload/initialize`,
      json: {
        media_type: this.file.mimeType,
        total_bytes: this.file.bytes.length,
        media_category: CATEGORY[this.file.kind],
      },
    });
    const data = answerData(answer, 'transient', `the upload of ${this.subject}`);
    if (typeof data.id !== 'string') {
      throw new PlatformError('transient', `X answered the upload of ${this.subject} without a media id.`);
    }
    const upload: OpenUpload = {
      file: this.index,
      id: data.id,
      totalBytes: this.file.bytes.length,
      segmentBytes: this.settings.segmentBytes,
      nextSegment: 0,
      finalized: false,
      expiresAt: this.expiry(data.expires_after_secs),
    };
    await this.save(upload);
    return upload;
  }

  private async continueUpload(start: OpenUpload): Promise<UploadedMedia> {
    let upload = start;
    const segments = Math.ceil(upload.totalBytes / upload.segmentBytes);
    for (let segment = upload.nextSegment; segment < segments; segment++) {
      const bytes = this.file.bytes.subarray(segment * upload.segmentBytes, (segment + 1) * upload.segmentBytes);
      const form = new FormData();
      form.set('segment_index', String(segment));
      form.set('media', new Blob([new Uint8Array(bytes)], { type: this.file.mimeType }), 'media');
      await this.send({
        label: 'media.append',
        method: 'POST',
        url: `${this.settings.apiBaseUrl}/2/media/upload/${encodeURIComponent(upload.id)}/append`,
        form,
      });
      upload = { ...upload, nextSegment: segment + 1 };
      await this.save(upload);
    }
    let processing: ProcessingInfo | undefined;
    if (!upload.finalized) {
      const answer = await this.send({
        label: 'media.finalize',
        method: 'POST',
        url: `${this.settings.apiBaseUrl}/2/media/upload/${encodeURIComponent(upload.id)}/finalize`,
      });
      const data = answerData(answer, 'transient', `the upload of ${this.subject}`);
      processing = data.processing_info as ProcessingInfo | undefined;
      upload = { ...upload, finalized: true, expiresAt: this.expiry(data.expires_after_secs, upload.expiresAt) };
      await this.save(upload);
    } else if (this.file.kind !== 'image') {
      // Finalized before the crash: where processing stands is only known by asking.
      processing = await this.status(upload.id);
    }
    await this.awaitProcessing(upload.id, processing);
    return { id: upload.id, expiresAt: upload.expiresAt };
  }

  private async awaitProcessing(id: string, first: ProcessingInfo | undefined): Promise<void> {
    let info = first;
    let waited = 0;
    while (info && (info.state === 'pending' || info.state === 'in_progress')) {
      const seconds = typeof info.check_after_secs === 'number' ? info.check_after_secs : 1;
      const ms = Math.max(1, seconds) * 1000;
      if (waited + ms > MAX_PROCESSING_WAIT_MS) {
        throw new PlatformError(
          'transient',
          `X was still processing ${this.subject} after ${Math.round(waited / 1000)} s (state "${String(info.state)}"); publish again later.`,
        );
      }
      await this.session.wait(ms);
      waited += ms;
      info = await this.status(id);
    }
    if (info?.state === 'failed') {
      const error = info.error ?? {};
      const named = [error.name, error.message].filter((part) => typeof part === 'string').join(': ');
      throw new PlatformError(
        'media_invalid',
        `X could not process ${this.subject}${named ? ` ("${named}")` : ''}. Replace the file with one X accepts.`,
      );
    }
  }

  private async status(id: string): Promise<ProcessingInfo | undefined> {
    const answer = await this.send({
      label: 'media.status',
      method: 'GET',
      url: `${this.settings.apiBaseUrl}/2/media/upload?command=STATUS&media_id=${encodeURIComponent(id)}`,
    });
    return answerData(answer, 'transient', `the status of ${this.subject}`).processing_info as
      ProcessingInfo | undefined;
  }

  private send(call: Omit<XCall, 'context' | 'subject'>) {
    return xCall(this.session, { ...call, context: 'media', subject: this.subject }, this.settings.now);
  }

  private save(upload: OpenUpload): Promise<void> {
    return this.session.checkpoint.save({ upload } satisfies Partial<XMediaCheckpoint>);
  }

  private expiry(expiresAfterSecs: unknown, fallback?: number): number {
    if (typeof expiresAfterSecs === 'number' && expiresAfterSecs > 0) {
      return this.settings.now().getTime() + expiresAfterSecs * 1000;
    }
    // X documents a day; without its word, assume the shortest useful life rather than forever.
    return fallback ?? this.settings.now().getTime() + 60 * 60_000;
  }
}

function usable(upload: OpenUpload, settings: XUploadSettings): boolean {
  return upload.expiresAt - settings.now().getTime() > REUSE_MARGIN_MS;
}

function isLostUpload(error: unknown): boolean {
  return (
    error instanceof PlatformError &&
    error.kind === 'media_invalid' &&
    (error.details.status === 404 || error.details.status === 400)
  );
}

const UPLOADED_MEDIA = z.object({ id: z.string(), expiresAt: z.number() });
const OPEN_UPLOAD = z.object({
  file: z.number().int(),
  id: z.string(),
  totalBytes: z.number().int(),
  segmentBytes: z.number().int().positive(),
  nextSegment: z.number().int(),
  finalized: z.boolean(),
  expiresAt: z.number(),
});

/** The checkpoint's fields, each read back through its schema (checkpoint.ts). */
const X_CHECKPOINT = checkpointCodec({
  // Files are uploaded in order: the done ones are those before the first entry that does not read.
  media: z.array(z.unknown()).transform((entries) => {
    const done: UploadedMedia[] = [];
    for (const entry of entries) {
      const parsed = UPLOADED_MEDIA.safeParse(entry);
      if (!parsed.success) break;
      done.push(parsed.data);
    }
    return done;
  }),
  upload: OPEN_UPLOAD,
});

/** The checkpoint as the publisher wrote it; anything malformed counts as not done. */
export function readCheckpoint(data: Readonly<Record<string, unknown>>): XMediaCheckpoint {
  const saved = X_CHECKPOINT.read(data);
  return { media: saved.media ?? [], upload: saved.upload ?? null };
}
