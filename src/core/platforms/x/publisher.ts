/**
 * Publishing on X: the media go up first (chunked, resumable from the checkpoint), then one
 * `POST /2/tweets` carries the text and the media ids. After a crash past that call, `reconcile`
 * looks through the user's latest posts for the text that was sent.
 */
import {
  PlatformError,
  type LivePost,
  type LivePublisher,
  type LiveSession,
  type MediaFile,
} from '../platform-client.ts';
import { DEFAULT_SEGMENT_BYTES, describePostMedia, uploadPostMedia } from './media.ts';
import { answerData, xCall } from './request.ts';

export interface XPublisherOptions {
  /** The size of each appended segment; tests make it small to see a file go up in several. */
  segmentBytes?: number;
  /** The clock media expiry is judged by. */
  now?: () => Date;
}

/** How many of the user's latest posts `reconcile` reads: the lost post is among the newest. */
const RECONCILE_LOOKBACK = 20;
/** How far the service's clock and X's may disagree when a reconcile asks for posts since the create call. */
const CLOCK_SKEW_ALLOWANCE_MS = 60_000;

export function xPublisher(app: { apiBaseUrl: string }, options: XPublisherOptions = {}): LivePublisher {
  const apiBaseUrl = app.apiBaseUrl.replace(/\/+$/, '');
  const now = options.now ?? (() => new Date());
  const segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;

  return {
    platform: 'twitter',

    async publish(session: LiveSession): Promise<LivePost> {
      const files = await session.media();
      refuseUnpostableMedia(files);
      const text = session.post.text;
      if (text === '' && files.length === 0) {
        throw new PlatformError('content_rejected', 'An X post needs text or media; this one has neither.');
      }
      const mediaIds = await uploadPostMedia(session, files, { apiBaseUrl, segmentBytes, now });
      await describePostMedia(session, files, mediaIds, { apiBaseUrl, now });
      const answer = await xCall(
        session,
        {
          label: 'tweets.create',
          context: 'tweet',
          subject: 'the post',
          method: 'POST',
          url: `${apiBaseUrl}/2/tweets`,
          json: { ...(text !== '' && { text }), ...(mediaIds.length > 0 && { media: { media_ids: mediaIds } }) },
          create: true,
        },
        now,
      );
      // The post was accepted; without its id there is no telling which post it is.
      const id = answerData(answer, 'unknown_outcome', 'the post').id;
      if (typeof id !== 'string') {
        throw new PlatformError('unknown_outcome', `X answered ${answer.status} to the post without a post id.`, {
          status: answer.status,
        });
      }
      return { platformPostId: id, url: postUrl(session.account.username, id) };
    },

    async reconcile(session: LiveSession): Promise<LivePost | null> {
      const userId = encodeURIComponent(session.account.platformUserId);
      const answer = await xCall(
        session,
        {
          label: 'users.tweets',
          context: 'read',
          subject: "the look-up of the account's latest posts",
          method: 'GET',
          url: `${apiBaseUrl}/2/users/${userId}/tweets?${reconcileQuery(session.createSentAt)}`,
        },
        now,
      );
      const posts = (answer.body as { data?: unknown } | null)?.data;
      if (!Array.isArray(posts)) return null;
      const sent = session.post.text;
      const found = posts.find(
        (post: { id?: unknown; text?: unknown }) =>
          typeof post.id === 'string' && typeof post.text === 'string' && isSameText(sent, post.text),
      ) as { id: string } | undefined;
      return found ? { platformPostId: found.id, url: postUrl(session.account.username, found.id) } : null;
    },
  };
}

/**
 * The latest posts, only those made since the create call was sent (less a minute for clocks that
 * disagree): an older post with the same text is another post, never this one.
 */
function reconcileQuery(createSentAt: Date | null): string {
  const query = new URLSearchParams({ max_results: String(RECONCILE_LOOKBACK), 'tweet.fields': 'created_at' });
  if (createSentAt) {
    const since = new Date(createSentAt.getTime() - CLOCK_SKEW_ALLOWANCE_MS);
    query.set('start_time', since.toISOString().replace(/\.\d{3}Z$/, 'Z'));
  }
  return query.toString();
}

function postUrl(username: string, id: string): string {
  return `https://x.com/${encodeURIComponent(username)}/status/${id}`;
}

/** X takes 4 images, or 1 GIF, or 1 video on one post; anything else is refused before uploading. */
function refuseUnpostableMedia(files: MediaFile[]): void {
  const count = (kind: MediaFile['kind']) => files.filter((file) => file.kind === kind).length;
  const images = count('image');
  const gifs = count('gif');
  const videos = count('video');
  const fits = images === files.length ? images <= 4 : files.length === 1;
  if (fits) return;
  const has = [
    images && `${images} image${images === 1 ? '' : 's'}`,
    gifs && `${gifs} GIF${gifs === 1 ? '' : 's'}`,
    videos && `${videos} video${videos === 1 ? '' : 's'}`,
  ]
    .filter(Boolean)
    .join(', ');
  throw new PlatformError(
    'media_invalid',
    `X takes up to 4 images, or 1 GIF, or 1 video on a post; this post has ${has}. Remove media until it fits.`,
  );
}

/**
 * Whether X's stored text is the text sent. X shows links as t.co links, appends one for attached
 * media, and escapes `&`, `<` and `>`; so links compare as placeholders, and the stored text may
 * end with extra links.
 */
export function isSameText(sent: string, stored: string): boolean {
  const a = normalize(sent);
  const b = normalize(stored);
  if (a === b) return true;
  const rest = a === '' ? b : b.startsWith(`${a} `) ? b.slice(a.length + 1) : undefined;
  return rest !== undefined && rest !== '' && /^(?:<link>\s*)+$/.test(rest);
}

function normalize(text: string): string {
  return text
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&')
    .replace(/https?:\/\/\S+/g, '<link>')
    .trim();
}
