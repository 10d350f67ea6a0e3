/**
 * Posts published without a public URL yet (TikTok makes a post public only after its moderation,
 * possibly hours later): a maintenance pass asks the platform again and fills `url` in, on the attempt
 * and in its item's `publish_results`.
 */
import { and, desc, eq, gte, inArray, isNotNull, isNull } from 'drizzle-orm';
import { writeTransaction } from '../../../db/client.ts';
import { content, publishAttempts, socialAccounts, type Platform } from '../../../db/schema/index.ts';
import { PLATFORMS } from '../platforms/registry.ts';
import type { Runtime } from '../context.ts';
import { usableAccessToken, type TokenSource } from '../social-accounts/token-lifecycle.ts';
import type { LivePlatformClient } from '../platforms/platform-client.ts';
import { webUrlOrNull } from './permalinks.ts';

/** A post still without its URL after this long is left as it is: the platform will not make it public. */
export const LATE_URL_HORIZON_MS = 7 * 24 * 3600 * 1000;
/** Posts asked about per pass, newest first: platform status calls are rate-limited per account. */
const PER_PASS = 20;

export type LiveClientLookup = (platform: Platform) => { client: LivePlatformClient; source: TokenSource } | null;

/** Answers how many URLs were filled in. Failures are logged and asked again on a later pass. */
export async function fillLateUrls(runtime: Runtime, clientFor: LiveClientLookup): Promise<number> {
  const { db, clock, config } = runtime;
  const platforms = PLATFORMS.filter((platform) => clientFor(platform)?.client.publisher.lateUrl);
  if (platforms.length === 0) return 0;
  const since = new Date(clock.now().getTime() - LATE_URL_HORIZON_MS);
  const waiting = await db
    .select({ attempt: publishAttempts, account: socialAccounts })
    .from(publishAttempts)
    .innerJoin(socialAccounts, eq(socialAccounts.id, publishAttempts.socialAccountId))
    .where(
      and(
        eq(publishAttempts.status, 'published'),
        isNull(publishAttempts.url),
        isNotNull(publishAttempts.platformPostId),
        inArray(publishAttempts.platform, platforms),
        gte(publishAttempts.attemptedAt, since),
        eq(socialAccounts.mode, 'live'),
        eq(socialAccounts.status, 'active'),
      ),
    )
    .orderBy(desc(publishAttempts.attemptedAt))
    .limit(PER_PASS)
    .all();
  let filled = 0;
  for (const { attempt, account } of waiting) {
    const found = clientFor(account.platform);
    if (!found?.client.publisher.lateUrl) continue;
    const ref = { ...account };
    try {
      const answered = await found.client.publisher.lateUrl({
        account: { id: account.id, platformUserId: account.platformUserId, username: account.username },
        platformPostId: attempt.platformPostId!,
        accessToken: () => usableAccessToken(runtime, ref, found.source),
        requestTimeoutMs: config.publishing.platformTimeoutSeconds * 1000,
      });
      // Not public yet, or an answer that is no http(s) URL: asked again on a later pass.
      const url = webUrlOrNull(answered);
      if (answered !== null && url === null) {
        runtime.log.warn(
          { publishAttemptId: attempt.id, platform: attempt.platform },
          'a platform answered a post URL that is not http(s); it is not stored',
        );
      }
      if (url === null) continue;
      await recordLateUrl(runtime, attempt.id, attempt.contentId, attempt.platform, attempt.platformPostId!, url);
      filled += 1;
    } catch (error) {
      runtime.log.warn(
        { publishAttemptId: attempt.id, platform: attempt.platform, reason: (error as Error).message },
        'looking up a published post URL failed',
      );
    }
  }
  return filled;
}

/** Sets the URL on the attempt and on its item's result for that platform, if that result is this post's. */
async function recordLateUrl(
  runtime: Runtime,
  attemptId: string,
  contentId: string,
  platform: string,
  platformPostId: string,
  url: string,
): Promise<void> {
  const { db } = runtime;
  await writeTransaction(db, async () => {
    await db.update(publishAttempts).set({ url }).where(eq(publishAttempts.id, attemptId)).run();
    const item = await db
      .select({ results: content.publishResults })
      .from(content)
      .where(eq(content.id, contentId))
      .get();
    if (!item) return;
    const results = item.results.map((result) =>
      result.platform === platform && result.platform_post_id === platformPostId ? { ...result, url } : result,
    );
    await db.update(content).set({ publishResults: results }).where(eq(content.id, contentId)).run();
  });
}
