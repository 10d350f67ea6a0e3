/**
 * A LiveSession for testing one platform publisher against its fake on its own, without the
 * publishing run: a fixed access token, media read from files, a checkpoint kept in memory and calls
 * sent once (no retries: the framework's retry rules have tests of their own).
 */
import type { ContentType, Platform } from '../../db/schema/index.ts';
import { postText } from '../../src/core/publishing/post.ts';
import type { LiveSession, MediaFile, MediaRef } from '../../src/core/platforms/platform-client.ts';

export interface TestSessionOptions {
  platform: Platform;
  accessToken: string;
  account: { platformUserId: string; username: string };
  caption: string;
  hashtags?: string[];
  /** The post's languages, as composePost would give them. */
  languages?: string[];
  contentType?: ContentType;
  /** The post's media, as the framework would hand them over (test/fixtures/media/files.ts makes bytes). */
  media?: Omit<MediaFile, 'url'>[];
  /**
   * The post's media by URL, for platforms that download it themselves (the test serves the files).
   * When given, these are the post's media_urls and `media` is ignored.
   */
  mediaRefs?: MediaRef[];
  /** PUBLIC_BASE_URL as the session reports it (http://127.0.0.1:3000 by default). */
  publicBaseUrl?: string;
  /** Checkpoint data a previous (crashed) publish left. */
  checkpoint?: Record<string, unknown>;
  attemptId?: string;
  /** When a (crashed) earlier publish sent the create call; a create call in this session sets it too. */
  createSentAt?: Date | null;
  /** The clock a create call is stamped with (the platform fake's, so both agree); the wall clock by default. */
  now?: () => Date;
}

export interface TestSession extends Omit<LiveSession, 'createSentAt'> {
  createSentAt: Date | null;
  /** Every label passed to `call`, in order, with whether it was the create call. */
  calls: { label: string; create: boolean }[];
  /** The checkpoint as saved so far. */
  saved: Record<string, unknown>;
  /** The waits asked for, in milliseconds (they do not really wait). */
  waits: number[];
}

export function testSession(options: TestSessionOptions): TestSession {
  const media = options.media ?? [];
  const hashtags = options.hashtags ?? [];
  const saved: Record<string, unknown> = { ...(options.checkpoint ?? {}) };
  const session: TestSession = {
    post: {
      platform: options.platform,
      contentType: options.contentType ?? ((options.mediaRefs ?? media).length === 0 ? 'text_only' : 'single_image'),
      caption: options.caption,
      hashtags,
      mediaUrls: options.mediaRefs
        ? options.mediaRefs.map((ref) => ref.url)
        : media.map((_, index) => `https://media.example.test/${index}`),
      text: postText(options.caption, hashtags),
      languages: options.languages ?? [],
    },
    account: { id: 'acct_test', ...options.account },
    attemptId: options.attemptId ?? 'attempt_test',
    checkpoint: {
      get data() {
        return saved;
      },
      async save(patch) {
        Object.assign(saved, patch);
      },
    },
    async media() {
      return media.map((file, index) => ({ url: `https://media.example.test/${index}`, ...file }));
    },
    async mediaRefs() {
      return (
        options.mediaRefs ??
        media.map(({ bytes: _bytes, ...file }, index) => ({ url: `https://media.example.test/${index}`, ...file }))
      );
    },
    publicBaseUrl: options.publicBaseUrl ?? 'http://127.0.0.1:3000',
    createSentAt: options.createSentAt ?? null,
    async call(label, request, callOptions) {
      session.calls.push({ label, create: callOptions?.create ?? false });
      if (callOptions?.create) session.createSentAt = options.now ? options.now() : new Date();
      return request(options.accessToken);
    },
    async wait(ms) {
      session.waits.push(ms);
    },
    requestTimeoutMs: 5_000,
    calls: [],
    saved,
    waits: [],
  };
  return session;
}
