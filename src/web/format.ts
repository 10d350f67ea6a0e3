import { type ContentStatus, type ContentType } from '../../db/schema/index.ts';
import { boundedMemo } from '../core/bounded-memo.ts';
import { STATUS_WORDS } from '../core/content/words.ts';
import type { ContentRow } from '../core/content/serialize.ts';
import type { SignedIn } from '../core/people/sessions.ts';
import { foldIndex } from './preview/platform-preview.ts';

/** How the dashboard names each content type. */
export const CONTENT_TYPE_LABELS: Record<ContentType, string> = {
  text_only: 'Text only',
  single_image: 'Single image',
  slideshow: 'Slideshow',
  reel: 'Reel',
  talking_head: 'Talking head',
  video_hook: 'Video hook',
  video_hook_demo: 'Video hook with demo',
  carousel: 'Carousel',
};

/** How the dashboard names each content status: the words the MCP App views use too. */
export const STATUS_LABELS = STATUS_WORDS as Record<ContentStatus, string>;

/*
 * Building an Intl.DateTimeFormat takes about a fifth of a millisecond, and a list page formats a
 * hundred dates: one formatter per time zone is kept (workspaces use few zones).
 */
const dateTimeFormats = boundedMemo<Intl.DateTimeFormat>(100);
const dateTimeFormat = (timeZone: string) =>
  dateTimeFormats(
    timeZone,
    () => new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' }),
  );
const timeOfDayFormats = boundedMemo<Intl.DateTimeFormat>(100);
/** Hours and minutes (15:00) in a time zone. */
export const timeOfDayFormat = (timeZone: string) =>
  timeOfDayFormats(
    timeZone,
    () => new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }),
  );

/** Dates already written out: format costs a couple of microseconds, and a list shows the same instants on every reload. */
const formattedDates = boundedMemo<string>(10_000);

/** A date and time in the workspace's time zone (2 Dec 2026, 15:00), or null for none. */
export const fmt = (who: SignedIn, at: Date | null): string | null =>
  at
    ? formattedDates(`${who.workspace.timezone} ${at.getTime()}`, () =>
        dateTimeFormat(who.workspace.timezone).format(at),
      )
    : null;

/** A date-time a list was filtered by, as the page shows it: machine-readable and in the workspace's zone. */
export const moment = (who: SignedIn, iso: string) => ({ iso, when: fmt(who, new Date(iso)) });

/** The caption's first line, cut after 60 characters (code points, so no emoji is halved). */
export const titleOf = (row: ContentRow): string => {
  const lineEnd = row.caption.indexOf('\n');
  const line = lineEnd < 0 ? row.caption : row.caption.slice(0, lineEnd);
  const cut = foldIndex(line, 60);
  return cut === null ? line : `${line.slice(0, cut)}…`;
};

/** A query string of the non-empty text values of `q`. */
export const queryString = (q: Record<string, unknown>): string => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (typeof v === 'string' && v !== '') params.set(k, v);
  return params.toString();
};

const NOTICES: Record<string, string> = {
  approved: 'Approved, not scheduled.',
  scheduled: 'Scheduled.',
  queued: 'Queued: it goes out on the next publishing run.',
  rejected: 'Rejected.',
  rescheduled: 'Rescheduled.',
  saved: 'Settings saved.',
};

/** What a page says about the action that led to it (its `done` query parameter), if anything. */
export function noticeOf(done: unknown): string | undefined {
  if (typeof done !== 'string') return undefined;
  const bulk = /^(approved|rejected)-(\d{1,3})$/.exec(done);
  if (bulk) return `${bulk[1] === 'approved' ? 'Approved' : 'Rejected'} ${bulk[2]} item${bulk[2] === '1' ? '' : 's'}.`;
  return NOTICES[done];
}
