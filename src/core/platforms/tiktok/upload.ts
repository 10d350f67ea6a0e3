/**
 * A video sent to TikTok with FILE_UPLOAD, by TikTok's chunk rules: chunks of 5 to 64 MB sent in
 * order, as many as the size divided by the chunk size rounded down (at most 1,000), the last one
 * taking the trailing bytes (up to 128 MB); a file under 5 MB goes as one chunk of its own size.
 * The plan is saved with the publish id right after `video/init` answers, and each chunk done after
 * its PUT, so a resumed publish continues the same upload.
 */
import { z } from 'zod';
import { PlatformError, type LiveSession, type MediaFile } from '../platform-client.ts';
import type { TikTokApi } from './api.ts';
import { checkpointCodec } from '../checkpoint.ts';

const MB = 1024 * 1024;
export const MIN_CHUNK_BYTES = 5 * MB;
export const MAX_CHUNK_BYTES = 64 * MB;
export const MAX_FINAL_CHUNK_BYTES = 128 * MB;
export const MAX_CHUNKS = 1000;
/** TikTok's own examples cut 10 MB chunks: big enough to be few, small enough to resend cheaply. */
export const DEFAULT_CHUNK_BYTES = 10 * MB;

export interface ChunkPlan {
  videoSize: number;
  chunkSize: number;
  totalChunks: number;
}

/** The `source_info` sizes for a video of `videoSize` bytes, cutting chunks of about `preferred` bytes. */
export function chunkPlan(videoSize: number, preferred = DEFAULT_CHUNK_BYTES): ChunkPlan {
  if (videoSize < MIN_CHUNK_BYTES) return { videoSize, chunkSize: videoSize, totalChunks: 1 };
  const wanted = Math.min(Math.max(preferred, MIN_CHUNK_BYTES, Math.ceil(videoSize / MAX_CHUNKS)), MAX_CHUNK_BYTES);
  // Over 64 MB a file must go in at least two chunks.
  const chunkSize = Math.min(wanted, videoSize > MAX_CHUNK_BYTES ? Math.floor(videoSize / 2) : videoSize);
  const totalChunks = Math.floor(videoSize / chunkSize);
  const finalChunk = videoSize - (totalChunks - 1) * chunkSize;
  if (totalChunks > MAX_CHUNKS || finalChunk > MAX_FINAL_CHUNK_BYTES) {
    throw new PlatformError('media_invalid', `The video (${videoSize} bytes) is too large to upload to TikTok.`);
  }
  return { videoSize, chunkSize, totalChunks };
}

/** Byte range of chunk `index`: the last one runs to the end of the file. */
export function chunkRange(plan: ChunkPlan, index: number): { first: number; end: number } {
  const first = index * plan.chunkSize;
  const end = index === plan.totalChunks - 1 ? plan.videoSize : first + plan.chunkSize;
  return { first, end };
}

/** What the TikTok publisher keeps in the attempt's checkpoint. */
export const TikTokCheckpoint = z.object({
  publishId: z.string(),
  mode: z.enum(['video', 'photo']),
  /** The creator's username when the post was made, for its URL. */
  username: z.string(),
  privacyLevel: z.string(),
  notice: z.string().optional(),
  upload: z
    .object({
      uploadUrl: z.string(),
      videoSize: z.number().int().positive(),
      chunkSize: z.number().int().positive(),
      totalChunks: z.number().int().positive(),
      chunksDone: z.number().int().min(0),
    })
    .optional(),
});
export type TikTokCheckpoint = z.infer<typeof TikTokCheckpoint>;
type UploadState = NonNullable<TikTokCheckpoint['upload']>;

/** The publisher's whole state, under one key (it is saved and read as one). */
const TIKTOK_CHECKPOINT = checkpointCodec({ tiktok: TikTokCheckpoint });

/** The checkpoint as the publisher wrote it, or undefined (nothing created yet, or unreadable). */
export function readCheckpoint(data: Readonly<Record<string, unknown>>): TikTokCheckpoint | undefined {
  return TIKTOK_CHECKPOINT.read(data).tiktok;
}

export function saveCheckpoint(session: LiveSession, state: TikTokCheckpoint): Promise<void> {
  return TIKTOK_CHECKPOINT.save(session.checkpoint, { tiktok: state });
}

/**
 * Sends the chunks not yet done, in order, saving progress after each. `heldBytes`, when TikTok's
 * status says how much it holds (`uploaded_bytes`), wins over the checkpoint: a chunk whose answer was
 * lost in a crash is then not sent twice.
 */
export async function sendChunks(
  api: TikTokApi,
  session: LiveSession,
  state: TikTokCheckpoint,
  video: MediaFile,
  heldBytes?: number,
): Promise<void> {
  let upload: UploadState | undefined = state.upload;
  if (!upload) return;
  if (video.bytes.length !== upload.videoSize) {
    throw new PlatformError(
      'media_invalid',
      `The video is ${video.bytes.length} bytes now but was ${upload.videoSize} when the TikTok upload began; publish it again as a new post.`,
    );
  }
  const plan: ChunkPlan = upload;
  if (heldBytes !== undefined) {
    const held = Array.from({ length: plan.totalChunks + 1 }, (_, index) => index).find(
      (count) => (count === plan.totalChunks ? plan.videoSize : count * plan.chunkSize) === heldBytes,
    );
    if (held !== undefined) upload = { ...upload, chunksDone: held };
  }
  for (let index = upload.chunksDone; index < plan.totalChunks; index++) {
    const { first, end } = chunkRange(plan, index);
    await api.uploadChunk(
      upload.uploadUrl,
      video.bytes.subarray(first, end),
      { first, total: plan.videoSize },
      video.mimeType,
    );
    upload = { ...upload, chunksDone: index + 1 };
    await saveCheckpoint(session, { ...state, upload });
  }
}
