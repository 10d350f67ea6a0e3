/**
 * A post's media uploaded to LinkedIn, resumable: each finished step is saved in the attempt's
 * checkpoint before the next one starts, and a publish that finds a checkpoint skips what it records.
 *
 * - Images: initializeUpload, then one PUT; the image URN is saved once its bytes are up. A crash
 *   between the two costs one unused upload slot, which LinkedIn discards.
 * - Video: initializeUpload answers the video URN, an upload token and the byte ranges of its parts;
 *   all three are saved at once, then each part's ETag as that part finishes, then the finalize. A
 *   resume PUTs only the parts without an ETag and never opens a second upload session.
 */
import { z } from 'zod';
import { PlatformError, type LiveSession, type MediaFile } from '../platform-client.ts';
import { pollUntilProcessed, type PollPacing } from '../processing-poll.ts';
import type { LinkedInApi } from './api.ts';
import { checkpointCodec } from '../checkpoint.ts';

/** LinkedIn's multiImage takes 2 to 20 images; a post takes one video, alone. */
export const MAX_LINKEDIN_IMAGES = 20;

/** The Posts API's `content` for the uploaded media. */
export type LinkedInContent =
  { media: { id: string; altText?: string } } | { multiImage: { images: Array<{ id: string; altText?: string }> } };

/**
 * The pause after the finalize and its cap between polls of a processing video; beyond
 * `giveUpAfterMs` the publish gives up for now (`transient`): a resume polls the same video again.
 */
const VIDEO_POLL: PollPacing = { firstPauseMs: 3_000, maxPauseMs: 20_000, giveUpAfterMs: 30 * 60_000 };

const ImageUrns = z.array(z.string().nullable());

const VideoUpload = z.object({
  urn: z.string(),
  fileSizeBytes: z.number(),
  uploadToken: z.string(),
  parts: z.array(
    z.object({ uploadUrl: z.string(), firstByte: z.number(), lastByte: z.number(), etag: z.string().optional() }),
  ),
  finalized: z.boolean().optional(),
  available: z.boolean().optional(),
});
type VideoUpload = z.infer<typeof VideoUpload>;

/** The checkpoint's fields, each read back through its schema (checkpoint.ts). */
const LINKEDIN_CHECKPOINT = checkpointCodec({ imageUrns: ImageUrns, videoUpload: VideoUpload });

const InitializedImage = z.object({ value: z.object({ uploadUrl: z.string(), image: z.string() }) });
const InitializedVideo = z.object({
  value: z.object({
    video: z.string(),
    uploadToken: z.string().default(''),
    uploadInstructions: z
      .array(z.object({ uploadUrl: z.string(), firstByte: z.number(), lastByte: z.number() }))
      .min(1),
  }),
});
const VideoState = z.object({ status: z.string(), processingFailureReason: z.string().optional() });

/** Uploads `media` (resuming from the checkpoint) and answers the post's `content`, or undefined for none. */
export async function uploadLinkedInMedia(
  api: LinkedInApi,
  session: LiveSession,
  owner: string,
  media: MediaFile[],
): Promise<LinkedInContent | undefined> {
  if (media.length === 0) return undefined;
  const videos = media.filter((file) => file.kind === 'video');
  if (videos.length > 0) {
    if (media.length > 1) {
      throw new PlatformError(
        'content_rejected',
        `A LinkedIn post carries one video and nothing else; this one has ${media.length} media files.`,
      );
    }
    return { media: { id: await uploadVideo(api, session, owner, videos[0]!) } };
  }
  if (media.length > MAX_LINKEDIN_IMAGES) {
    throw new PlatformError(
      'content_rejected',
      `A LinkedIn post carries at most ${MAX_LINKEDIN_IMAGES} images; this one has ${media.length}.`,
    );
  }
  const urns = await uploadImages(api, session, owner, media);
  // Each image's alt text, as the Posts API's `altText` (up to 4,086 characters; ours are at most 1,000).
  const images = urns.map((id, i) => ({ id, ...(media[i]!.altText && { altText: media[i]!.altText }) }));
  return images.length === 1 ? { media: images[0]! } : { multiImage: { images } };
}

/** GIFs go through the Images API too: LinkedIn shows them animated. */
async function uploadImages(
  api: LinkedInApi,
  session: LiveSession,
  owner: string,
  images: MediaFile[],
): Promise<string[]> {
  const saved = LINKEDIN_CHECKPOINT.read(session.checkpoint.data).imageUrns;
  const urns: Array<string | null> = images.map((_, index) => saved?.[index] ?? null);
  for (const [index, image] of images.entries()) {
    if (urns[index]) continue;
    const initialized = await api.rest('images.initializeUpload', {
      method: 'POST',
      path: '/rest/images?action=initializeUpload',
      json: { initializeUploadRequest: { owner } },
      subject: 'media',
    });
    const { uploadUrl, image: urn } = expectShape(InitializedImage, initialized.body, 'images initializeUpload').value;
    await api.upload('images.upload', uploadUrl, image.bytes, { bearer: true });
    urns[index] = urn;
    await session.checkpoint.save({ imageUrns: [...urns] });
  }
  return urns as string[];
}

async function uploadVideo(api: LinkedInApi, session: LiveSession, owner: string, video: MediaFile): Promise<string> {
  let upload = resumableVideo(session, video);
  if (!upload) {
    const initialized = await api.rest('videos.initializeUpload', {
      method: 'POST',
      path: '/rest/videos?action=initializeUpload',
      json: {
        initializeUploadRequest: {
          owner,
          fileSizeBytes: video.bytes.length,
          uploadCaptions: false,
          uploadThumbnail: false,
        },
      },
      subject: 'media',
    });
    const value = expectShape(InitializedVideo, initialized.body, 'videos initializeUpload').value;
    upload = {
      urn: value.video,
      fileSizeBytes: video.bytes.length,
      uploadToken: value.uploadToken,
      parts: value.uploadInstructions.map(({ uploadUrl, firstByte, lastByte }) => ({ uploadUrl, firstByte, lastByte })),
    };
    await session.checkpoint.save({ videoUpload: upload });
  }

  if (!upload.finalized) {
    for (const [index, part] of upload.parts.entries()) {
      if (part.etag) continue;
      const bytes = video.bytes.subarray(part.firstByte, part.lastByte + 1);
      const answer = await api.upload('videos.uploadPart', part.uploadUrl, bytes, { bearer: false });
      const etag = answer.headers.get('etag');
      if (!etag) {
        throw new PlatformError('transient', `LinkedIn took part ${index + 1} of the video without an ETag.`);
      }
      upload = { ...upload, parts: upload.parts.map((p, i) => (i === index ? { ...p, etag } : p)) };
      await session.checkpoint.save({ videoUpload: upload });
    }
    try {
      await api.rest('videos.finalizeUpload', {
        method: 'POST',
        path: '/rest/videos?action=finalizeUpload',
        json: {
          finalizeUploadRequest: {
            video: upload.urn,
            uploadToken: upload.uploadToken,
            uploadedPartIds: upload.parts.map((part) => part.etag),
          },
        },
        subject: 'media',
      });
    } catch (error) {
      // Finalizing twice is refused (400): a finalize whose answer was lost, or a resume after a crash
      // before the checkpoint recorded it. The video's own status tells whether it went through.
      if (!(error instanceof PlatformError) || error.details.status !== 400) throw error;
      if ((await videoStatus(api, upload.urn)) === 'WAITING_UPLOAD') throw error;
    }
    upload = { ...upload, finalized: true };
    await session.checkpoint.save({ videoUpload: upload });
  }

  if (!upload.available) {
    await awaitProcessing(api, session, upload.urn);
    await session.checkpoint.save({ videoUpload: { ...upload, available: true } });
  }
  return upload.urn;
}

/** The saved upload session of this very file, or undefined when there is none to resume. */
function resumableVideo(session: LiveSession, video: MediaFile): VideoUpload | undefined {
  const saved = LINKEDIN_CHECKPOINT.read(session.checkpoint.data).videoUpload;
  if (!saved || saved.fileSizeBytes !== video.bytes.length) return undefined;
  return saved;
}

/** The video's processing status as LinkedIn reports it now. */
async function videoStatus(api: LinkedInApi, urn: string): Promise<string> {
  const answer = await api.rest('videos.get', {
    method: 'GET',
    path: `/rest/videos/${encodeURIComponent(urn)}`,
    subject: 'media',
  });
  return expectShape(VideoState, answer.body, 'video status').status;
}

/** Polls the video until LinkedIn has processed it; a failed processing refuses the file. */
async function awaitProcessing(api: LinkedInApi, session: LiveSession, urn: string): Promise<void> {
  await pollUntilProcessed(
    (ms) => session.wait(ms),
    VIDEO_POLL,
    async () => {
      const answer = await api.rest('videos.get', {
        method: 'GET',
        path: `/rest/videos/${encodeURIComponent(urn)}`,
        subject: 'media',
      });
      const state = expectShape(VideoState, answer.body, 'video status');
      if (state.status === 'AVAILABLE') return { done: true, value: undefined };
      if (state.status === 'PROCESSING_FAILED') {
        throw new PlatformError(
          'media_invalid',
          `LinkedIn could not process the video (PROCESSING_FAILED: ${state.processingFailureReason ?? 'no reason given'}). Upload it in another format (MP4 with H.264 is safest).`,
        );
      }
      return { done: false, status: state.status };
    },
    (waited, status) =>
      new PlatformError(
        'transient',
        `LinkedIn is still processing the video after ${Math.round(waited / 60_000)} minutes (status ${status}).`,
      ),
  );
}

function expectShape<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw new PlatformError('transient', `LinkedIn answered its ${what} call without the expected fields.`);
}
