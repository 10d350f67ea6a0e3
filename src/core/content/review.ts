import { and, desc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { preparedStatements } from '../../../db/client.ts';
import { campaigns, content, type Platform } from '../../../db/schema/index.ts';
import { altTextOf } from '../platforms/media.ts';
import type { PostProblem } from '../platforms/problems.ts';
import { platformEntry, PLATFORMS } from '../platforms/registry.ts';
import type { ServiceContext } from '../context.ts';
import { defineOperation } from '../operation.ts';
import { codePointLength, hashtagsIn, measureText, PLATFORM_RULES } from '../platforms/rules.ts';
import { connectorsFor } from '../publishing/connectors/index.ts';
import { checkPlatform } from '../publishing/readiness.ts';
import type { Connectors } from '../publishing/connector.ts';
import type { PostSource } from '../publishing/post.ts';
import { boundedMap } from '../bounded-memo.ts';
import { sameJson } from '../same-json.ts';
import { platformAccountsOf, type PlatformAccountLookup } from '../social-accounts/operations.ts';
import { contentHistoryOf, type ContentHistoryEntry } from './history.ts';
import { getContentInWorkspace } from './operations.ts';
import type { ContentRow } from './serialize.ts';
import { ListContentInput } from './list-filters.ts';
import { listContentPage } from './list.ts';

/**
 * What people review: items with, per target platform, the post as that platform is sent it and
 * every reason it would be refused now (the publishing run's own judgement, readiness.ts). The
 * dashboard's pages read through these; the preview module turns the data into cards.
 */

/** One target platform's post as a preview shows it. */
export interface PlatformPreviewData {
  platform: string;
  /** How people name the platform ("X"), from the platform registry; absent for a platform it does not know. */
  name?: string;
  /** The text exactly as posted (caption, then the hashtags). */
  text: string;
  /** Its length as the platform counts it, the limit and the unit (X: weighted characters). */
  length: number;
  limit: number | null;
  unit: string;
  /** Where the platform cuts the text behind "…more" in a feed (code points), or null when it shows it all. */
  foldAt: number | null;
  hashtags: string[];
  mediaUrls: string[];
  /** Each media's alt text as it would be sent (the item's own, else its media asset's), or null: in mediaUrls' order. */
  mediaAltText: Array<string | null>;
  /** Why publishing would be refused on this platform now, each with its code and numbers; empty when it is ready. */
  problems: PostProblem[];
}

/** Where LinkedIn and Instagram cut a post in the feed behind "…more" (characters). */
export const FEED_FOLDS: Partial<Record<Platform, number>> = { linkedin: 210, instagram: 125 };

export async function previewsOf(
  ctx: ServiceContext,
  rows: readonly ContentRow[],
): Promise<Map<string, PlatformPreviewData[]>> {
  let connectors: Connectors | undefined;
  const accountFor = await platformAccountsOf(ctx.db, ctx.workspace.id);
  const previews = new Map<string, PlatformPreviewData[]>();
  for (const row of rows) {
    const lookups = row.targetPlatforms.map(accountFor);
    // Looked up before the memo, and part of its inputs: an asset's alt text changes without the item changing.
    const altTexts = new Map<string, string | null>();
    for (const url of attachedMediaOf(row)) altTexts.set(url, await altTextOf(ctx, url, row.mediaAltText));
    const inputs = previewInputs(row, lookups, altTexts);
    let kept = keptPreviews.get(row.id);
    if (!kept || !sameJson(kept.inputs, inputs)) {
      connectors ??= connectorsFor(ctx);
      kept = {
        inputs,
        previews: deepFreeze(
          row.targetPlatforms.map((platform, i) =>
            previewOf(
              connectors!,
              () => lookups[i]!,
              row,
              platform,
              (url) => altTexts.get(url) ?? null,
            ),
          ),
        ),
      };
      keptPreviews.set(row.id, kept);
    }
    previews.set(row.id, kept.previews);
  }
  return previews;
}

function previewOf(
  connectors: Connectors,
  accountFor: (platform: string) => PlatformAccountLookup,
  row: ContentRow,
  platform: string,
  altTextFor: (url: string) => string | null,
): PlatformPreviewData {
  const check = checkPlatform(connectors, accountFor, row, platform);
  const known = (PLATFORMS as readonly string[]).includes(platform) ? (platform as Platform) : null;
  // The post the check judged, composed once; an unknown platform has none, and shows the caption.
  const post = check.post;
  const text = post?.text ?? row.caption;
  const measured = known ? measureText(known, text) : { length: codePointLength(text), unit: 'characters' };
  return {
    platform,
    ...(known ? { name: platformEntry(known).name } : {}),
    text,
    length: measured.length,
    limit: known ? PLATFORM_RULES[known].maxText : null,
    unit: measured.unit,
    foldAt: known ? (FEED_FOLDS[known] ?? null) : null,
    hashtags: hashtagsIn(text),
    // A copy: kept previews are frozen, and the row's own list is not theirs to freeze.
    mediaUrls: post?.mediaUrls ?? [...row.mediaUrls],
    mediaAltText: (post?.mediaUrls ?? row.mediaUrls).map(altTextFor),
    problems: check.problems,
  };
}

/** Every media URL the item attaches, its own and any platform's override. */
const attachedMediaOf = (row: ContentRow): Set<string> =>
  new Set([...row.mediaUrls, ...Object.values(row.platformSpecific).flatMap((override) => override.media_urls ?? [])]);

/*
 * An item's previews are a pure function of what decides its posts (PostSource: caption, hashtags,
 * media, content type, per-platform overrides and alt texts), its target platforms and, for each
 * platform, the account publishing would use (whether there is one, its status and its name); the
 * platforms' rules are fixed. A reviewer's inbox shows the same items on every reload, so each item's
 * previews are kept with the inputs they were made from, for a thousand items at most, and made again
 * when any input differs: a kept preview is never stale. Compared, not hashed: comparing the few
 * fields costs a fraction of serialising and hashing them. Kept previews are shared between
 * requests, so they are frozen.
 */
const PREVIEWED_ITEMS = 1000;
const keptPreviews = boundedMap<string, { inputs: unknown; previews: PlatformPreviewData[] }>(PREVIEWED_ITEMS);

function previewInputs(
  row: ContentRow,
  lookups: readonly PlatformAccountLookup[],
  altTexts: ReadonlyMap<string, string | null>,
): unknown {
  const source: { [K in keyof PostSource]: PostSource[K] } = {
    caption: row.caption,
    hashtags: row.hashtags,
    mediaUrls: row.mediaUrls,
    contentType: row.contentType,
    platformSpecific: row.platformSpecific,
    mediaAltText: row.mediaAltText,
  };
  const accounts = lookups.map((lookup) =>
    lookup.state === 'none' ? null : [lookup.state, lookup.account.status, lookup.account.username],
  );
  return [row.targetPlatforms, source, accounts, [...altTexts]];
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** The dashboard's lists take the one list's filters (list-filters.ts), nothing of their own. */
export const BrowseContentInput = ListContentInput;

export interface ReviewItem {
  row: ContentRow;
  previews: PlatformPreviewData[];
}

/** How many campaigns a list offers to filter by, newest first. */
export const CAMPAIGN_CHOICES = 100;

export interface CampaignChoice {
  id: string;
  name: string;
}

const statements = preparedStatements((db) => ({
  campaignChoices: db
    .select({ id: campaigns.id, name: campaigns.name })
    .from(campaigns)
    .where(eq(campaigns.workspaceId, sql.placeholder('workspaceId')))
    .orderBy(desc(campaigns.createdAt), desc(campaigns.id))
    .limit(CAMPAIGN_CHOICES)
    .prepare(),
}));

/**
 * The dashboard's lists (the inbox, the content list): a page of the one content list (list.ts), each
 * item with its previews added on top, and the campaigns a person can filter by. One read for the
 * whole page: any role may.
 */
export const browseContent = defineOperation({
  name: 'browseContent',
  buckets: ['read'],
  scope: 'read',
  input: BrowseContentInput,
  output: z.custom<{ items: ReviewItem[]; nextCursor: string | null; campaigns: CampaignChoice[] }>(),
  async run(ctx, input) {
    const { rows, nextCursor } = await listContentPage(ctx.db, ctx.workspace.id, input);
    const previews = await previewsOf(ctx, rows);
    return {
      items: rows.map((row) => ({ row, previews: previews.get(row.id)! })),
      nextCursor,
      campaigns: await statements(ctx.db).campaignChoices.all({ workspaceId: ctx.workspace.id }),
    };
  },
});

/** One item for its page: the row, its previews and its history. Another workspace's item is not found. */
export const reviewContent = defineOperation({
  name: 'reviewContent',
  buckets: ['read'],
  scope: 'read',
  input: z.object({ id: z.string().min(1) }),
  output: z.custom<{ row: ContentRow; previews: PlatformPreviewData[]; history: ContentHistoryEntry[] }>(),
  async run(ctx, input) {
    const row = await getContentInWorkspace(ctx.db, ctx.workspace.id, input.id);
    return {
      row,
      previews: (await previewsOf(ctx, [row])).get(row.id)!,
      history: await contentHistoryOf(ctx.db, ctx.workspace.id, row.id),
    };
  },
});

/** Scheduled and published items whose time falls in [from, to), soonest first: the calendar. */
export const calendarContent = defineOperation({
  name: 'calendarContent',
  buckets: ['read'],
  scope: 'read',
  input: z.object({ from: z.date(), to: z.date() }),
  output: z.custom<ContentRow[]>(),
  async run(ctx, input): Promise<ContentRow[]> {
    const at = sql`coalesce(${content.publishedAt}, ${content.scheduledFor})`;
    return ctx.db
      .select()
      .from(content)
      .where(
        and(
          eq(content.workspaceId, ctx.workspace.id),
          sql`${content.status} in ('scheduled', 'published', 'publishing', 'approved')`,
          sql`${at} >= ${input.from.getTime()} and ${at} < ${input.to.getTime()}`,
        ),
      )
      .orderBy(at)
      .limit(500)
      .all();
  },
});
