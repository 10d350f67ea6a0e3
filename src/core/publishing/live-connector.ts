/**
 * The framework around a live platform client: it hands the client a session (fresh tokens, the
 * post's media, the attempt's checkpoint) and applies the rules every platform shares:
 * - a rate limit is waited out, and a 5xx or network error before the create call retried with
 *   backoff (at most 3 times), within PLATFORM_RETRY_WINDOW_SECONDS;
 * - a 401 is retried once after refreshing the token; refused again, the account needs reconnecting;
 * - the moment the create call is sent is committed first, and only one process can mark it: after a
 *   crash past that point the post is looked for (reconciled) or reported unknown, never sent again.
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../../db/client.ts';
import { publishCheckpoints } from '../../../db/schema/index.ts';
import { inNextCommit } from '../batch.ts';
import type { Runtime } from '../context.ts';
import {
  needsReconnect,
  ReconnectRequired,
  usableAccessToken,
  type LiveAccountRef,
  type TokenSource,
} from '../social-accounts/token-lifecycle.ts';
import type { PlatformPost, PublishOutcome, PublishTarget } from './connector.ts';
import { altTextOf, describePostMedia, readPostMedia } from '../platforms/media.ts';
import {
  PlatformError,
  type LivePlatformClient,
  type LivePost,
  type LiveSession,
  type MediaFile,
} from '../platforms/platform-client.ts';

/** Kinds that are the platform's definite refusal of the post: nothing of it stands. */
const DEFINITE_REFUSALS: ReadonlySet<PlatformError['kind']> = new Set([
  'duplicate',
  'content_rejected',
  'media_invalid',
]);

/** Retries of a `transient` failure before the create call, each after a longer wait. */
const TRANSIENT_RETRIES = 3;
const TRANSIENT_BACKOFF_MS = [1_000, 2_000, 4_000];
/** A rate limit that names no reset is retried after this, doubling, up to a minute. */
const RATE_LIMIT_BACKOFF_MS = 5_000;

/** Writes the attempt's checkpoint row; the publishing run does it with the pending attempt, in its commit. */
export async function openCheckpoint(db: Db, attemptId: string, now: Date): Promise<void> {
  await db.insert(publishCheckpoints).values({ attemptId, data: {}, updatedAt: now }).onConflictDoNothing().run();
}

/**
 * Drops the checkpoint of a settled attempt: it is needed only while the attempt is pending, and it
 * may hold upload URLs and tokens a platform handed out for the upload.
 */
export async function closeCheckpoint(db: Db, attemptId: string): Promise<void> {
  await db.delete(publishCheckpoints).where(eq(publishCheckpoints.attemptId, attemptId)).run();
}

/** Whether the attempt has a checkpoint: a pending attempt with one can be resumed by a new holder. */
export async function hasCheckpoint(db: Db, attemptId: string): Promise<boolean> {
  return (
    (await db
      .select({ id: publishCheckpoints.attemptId })
      .from(publishCheckpoints)
      .where(eq(publishCheckpoints.attemptId, attemptId))
      .get()) !== undefined
  );
}

export interface LiveConnector {
  publish(post: PlatformPost, target: PublishTarget): Promise<PublishOutcome>;
}

export function liveConnector(runtime: Runtime, client: LivePlatformClient, source: TokenSource): LiveConnector {
  const { publisher } = client;
  const unknown = (why: string): PublishOutcome => ({
    status: 'unknown',
    error: `outcome unknown: ${why}; check the ${source.platformName} account before publishing again`,
  });

  return {
    async publish(post, target) {
      const account: LiveAccountRef = { ...target.account, platform: post.platform };
      const session = await openSession(runtime, source, post, account, target.attemptId);
      const reconcile = async (why: string): Promise<PublishOutcome> => {
        if (!publisher.reconcile) return unknown(why);
        try {
          const found = await publisher.reconcile(session);
          return found ? published(found) : unknown(`${why}, and no such post was found on ${source.platformName}`);
        } catch (error) {
          // The platform's definite word on the post (its processing failed, it was refused) settles it.
          if (error instanceof PlatformError && DEFINITE_REFUSALS.has(error.kind)) {
            return { status: 'rejected', error: error.message };
          }
          return unknown(`${why}, and looking for the post failed (${(error as Error).message})`);
        }
      };

      if (session.createSentBefore) return reconcile('the create call was sent before the publishing process stopped');
      try {
        return published(await publisher.publish(session));
      } catch (error) {
        if (!(error instanceof PlatformError)) {
          // Our own failure (storage, a bug): before the create call nothing reached the platform, so
          // it is a plain refusal with the reason; after it, the caller reports the outcome unknown.
          if (session.createSentNow) throw error;
          const reason = error instanceof Error ? error.message : String(error);
          return {
            status: 'rejected',
            error: `The service failed before sending the post to ${source.platformName} (${reason}); nothing was posted.`,
          };
        }
        // The create call was answered with success, and a later step (reading the permalink, polling
        // the processing) failed for a reason that says nothing of the post: it exists, so it is looked
        // for (or reported unknown), never refused, which would invite publishing it twice.
        if (session.createAnswered && !DEFINITE_REFUSALS.has(error.kind)) {
          if (error.kind === 'reauth_required' && !(error instanceof ReconnectRequired)) {
            await needsReconnect(runtime, account, source, asClause(error));
          }
          return reconcile(`the post was created, then ${asClause(error)}`);
        }
        switch (error.kind) {
          case 'unknown_outcome':
            return reconcile(asClause(error));
          case 'reauth_required': {
            // The token lifecycle has moved the account already when the token could not be renewed;
            // a 401 that a fresh token did not cure arrives here as the client's own error.
            const reconnect =
              error instanceof ReconnectRequired
                ? error
                : await needsReconnect(runtime, account, source, asClause(error));
            return { status: 'rejected', error: reconnect.message };
          }
          default:
            return { status: 'rejected', error: error.message };
        }
      }
    },
  };
}

/** A message as a clause inside another sentence: without its full stop. */
const asClause = (error: Error): string => error.message.replace(/\.$/, '');

const published = (post: LivePost): PublishOutcome => ({
  status: 'published',
  platformPostId: post.platformPostId,
  url: post.url,
  ...(post.notice && { notice: post.notice }),
});

interface OpenSession extends LiveSession {
  /** The checkpoint says a dead holder already sent the create call. */
  createSentBefore: boolean;
  /** This session holds the create mark: the create call may have reached the platform. */
  readonly createSentNow: boolean;
  /** The create call answered with success: the post exists on the platform. */
  readonly createAnswered: boolean;
}

async function openSession(
  runtime: Runtime,
  source: TokenSource,
  post: PlatformPost,
  account: LiveAccountRef,
  attemptId: string,
): Promise<OpenSession> {
  const { db, clock, config } = runtime;
  const row = await db.select().from(publishCheckpoints).where(eq(publishCheckpoints.attemptId, attemptId)).get();
  let data: Record<string, unknown> = { ...(row?.data ?? {}) };
  let createMarked = false;
  let createAnswered = false;
  let createSentAt: Date | null = row?.createSentAt ?? null;
  let media: Promise<MediaFile[]> | undefined;
  /** Each file with the alt text it goes out with (the item's own, else its media asset's). */
  const withAltText = <File extends { url: string }>(files: File[]) =>
    Promise.all(
      files.map(async (file) => ({ ...file, altText: await altTextOf(runtime, file.url, post.mediaAltText) })),
    );
  const windowEnds = Date.now() + config.live.retryWindowSeconds * 1000;
  const name = source.platformName;

  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

  /** Commits the moment of the create call; false when another process already sent it. */
  const markCreateSent = async (): Promise<boolean> => {
    if (createMarked) return true;
    const now = clock.now();
    const marked = await inNextCommit(db, async () => {
      await openCheckpoint(db, attemptId, now);
      return db
        .update(publishCheckpoints)
        .set({ createSentAt: now, updatedAt: now })
        .where(and(eq(publishCheckpoints.attemptId, attemptId), isNull(publishCheckpoints.createSentAt)))
        .returning({ id: publishCheckpoints.attemptId })
        .get();
    });
    createMarked = marked !== undefined;
    if (createMarked) createSentAt = now;
    return createMarked;
  };

  /** Takes the mark back after a definite refusal of the create call; only the holder can. */
  const unmarkCreateSent = async (): Promise<void> => {
    if (!createMarked) return;
    const now = clock.now();
    await inNextCommit(db, async () =>
      db
        .update(publishCheckpoints)
        .set({ createSentAt: null, updatedAt: now })
        .where(eq(publishCheckpoints.attemptId, attemptId))
        .run(),
    );
    createMarked = false;
    createSentAt = null;
  };

  return {
    post,
    account: { id: account.id, platformUserId: account.platformUserId, username: account.username },
    attemptId,
    createSentBefore: row?.createSentAt != null,
    get createSentAt() {
      return createSentAt;
    },
    get createSentNow() {
      return createMarked;
    },
    get createAnswered() {
      return createAnswered;
    },
    requestTimeoutMs: config.publishing.platformTimeoutSeconds * 1000,
    checkpoint: {
      get data() {
        return data;
      },
      async save(patch) {
        data = { ...data, ...patch };
        const now = clock.now();
        const saved = data;
        await inNextCommit(db, async () =>
          db
            .insert(publishCheckpoints)
            .values({ attemptId, data: saved, updatedAt: now })
            .onConflictDoUpdate({ target: publishCheckpoints.attemptId, set: { data: saved, updatedAt: now } })
            .run(),
        );
      },
    },
    media: () => (media ??= readPostMedia(runtime, post.mediaUrls).then(withAltText)),
    mediaRefs: () => describePostMedia(runtime, post.mediaUrls).then(withAltText),
    publicBaseUrl: config.publicBaseUrl,
    async wait(ms) {
      if (Date.now() + ms > windowEnds) {
        throw new PlatformError(
          'transient',
          `${name} was still processing after the retry window of ${config.live.retryWindowSeconds} s (PLATFORM_RETRY_WINDOW_SECONDS).`,
        );
      }
      await sleep(ms);
    },
    async call(label, request, options = {}) {
      let rejected: string | undefined;
      let refreshed = false;
      let transientRetries = 0;
      let rateLimitBackoff = RATE_LIMIT_BACKOFF_MS;
      /** Waits before the next try when `error` allows one within the window; false when it does not. */
      const waitToRetry = async (error: PlatformError): Promise<boolean> => {
        let waitMs: number;
        if (error.kind === 'rate_limited') {
          waitMs = error.details.retryAt
            ? Math.max(0, error.details.retryAt.getTime() - clock.now().getTime()) + 250
            : rateLimitBackoff;
          rateLimitBackoff = Math.min(rateLimitBackoff * 2, 60_000);
        } else if (error.kind === 'transient' && transientRetries < TRANSIENT_RETRIES) {
          waitMs = TRANSIENT_BACKOFF_MS[transientRetries]!;
          transientRetries += 1;
        } else return false;
        if (Date.now() + waitMs > windowEnds) return false;
        runtime.log.info({ platform: post.platform, step: label, kind: error.kind, waitMs }, 'platform call: retrying');
        await sleep(waitMs);
        return true;
      };
      for (;;) {
        let token: string;
        try {
          token = await usableAccessToken(runtime, account, source, rejected === undefined ? {} : { rejected });
        } catch (error) {
          // A token endpoint that is busy or briefly down: nothing was sent yet, so it is retried alike.
          if (error instanceof PlatformError && (await waitToRetry(error))) continue;
          throw error;
        }
        if (options.create && !(await markCreateSent())) {
          throw new PlatformError('unknown_outcome', `another process already sent the ${name} create call`);
        }
        try {
          const answer = await request(token);
          if (options.create) createAnswered = true;
          return answer;
        } catch (error) {
          if (!(error instanceof PlatformError)) {
            if (options.create)
              throw new PlatformError(
                'unknown_outcome',
                `the ${name} create call failed (${(error as Error).message})`,
              );
            throw error;
          }
          // A create call the platform answered with a 4xx (a 401, a 429, "not ready yet", a duplicate)
          // stored nothing: the mark is taken back, so a crash while waiting or retrying does not leave
          // an unknown outcome.
          const answeredRefusal =
            error.details.status !== undefined && error.details.status >= 400 && error.details.status < 500;
          if (options.create && answeredRefusal) await unmarkCreateSent();
          if (error.kind === 'reauth_required' && !refreshed) {
            refreshed = true;
            rejected = token;
            continue;
          }
          // A create call sent without an answer may have been stored: never resend it blind.
          if (options.create && error.kind === 'transient') {
            throw new PlatformError('unknown_outcome', `${asClause(error)} after the create call was sent`);
          }
          if (await waitToRetry(error)) continue;
          throw error;
        }
      }
    },
  };
}
