import { Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import { calendarContent } from '../../core/content/review.ts';
import { SCHEDULE_RANGE } from '../../core/dates.ts';
import type { ContentRow } from '../../core/content/serialize.ts';
import { dayKey, fromLocal, localParts, parseLocalInput } from '../../core/time-zones.ts';
import {
  addDays,
  addMonths,
  monthGrid,
  weekdayNames,
  weekGrid,
  type CalendarDay,
  type CalendarMonth,
  type DayCell,
  type Weekday,
} from '../calendar-grid.ts';
import { isQueued, statusWord } from '../../core/content/words.ts';
import { fmt, noticeOf, timeOfDayFormat, titleOf } from '../format.ts';
import { itemActionsOf } from '../item-actions.ts';
import type { PageKit } from './kit.ts';

/** Weeks start on Monday, as the calendar always has. */
const FIRST_WEEKDAY: Weekday = 1;
/**
 * The years the calendar shows: those an item can be scheduled in. A month or week asked outside
 * them shows today's, as one the calendar lacks does (and no year 50 is read as 1950).
 */
const onCalendar = (year: number) =>
  year >= SCHEDULE_RANGE.from.getUTCFullYear() && year <= SCHEDULE_RANGE.to.getUTCFullYear();
const VIEWS = ['month', 'week', 'list'] as const;
type View = (typeof VIEWS)[number];

const ym = (m: CalendarMonth) => `${m.year}-${String(m.month).padStart(2, '0')}`;
const midnight = (d: CalendarDay, tz: string) => fromLocal({ ...d, hour: 0, minute: 0 }, tz);
const utcLabel = (d: CalendarDay, options: Intl.DateTimeFormatOptions) =>
  new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', ...options }).format(
    new Date(Date.UTC(d.year, d.month - 1, d.day, 12)),
  );

/**
 * /app/calendar: the scheduled and published items of a month (a grid, or a list) or of a week, in
 * the workspace's time zone. The grids are calendar-grid.ts; this page fills them.
 */
export function calendarPage(runtime: Runtime, kit: PageKit): Router {
  const router = Router();
  router.get('/calendar', async (req, res) => {
    const who = kit.signedIn(req, res);
    if (!who) return;
    const tz = who.workspace.timezone;
    const now = localParts(runtime.clock.now(), tz);
    const view: View = VIEWS.find((v) => v === req.query.view) ?? 'month';

    // The days shown: a month, or the week of the day asked (today when none or no day of the calendar).
    let month: CalendarMonth;
    let first: CalendarDay;
    let afterLast: CalendarDay;
    let weeks: Array<Array<DayCell | null>>;
    if (view === 'week') {
      const text = String(req.query.week ?? '');
      const parsed = /^\d{4}-\d{2}-\d{2}$/.test(text) ? parseLocalInput(`${text}T00:00`) : null;
      const asked = parsed && onCalendar(parsed.year) ? parsed : null;
      const week = weekGrid(asked ?? now, FIRST_WEEKDAY);
      weeks = [week];
      first = week[0]!;
      afterLast = addDays(first, 7);
      month = { year: first.year, month: first.month };
    } else {
      const matched = /^(\d{4})-(\d{2})$/.exec(String(req.query.month ?? ''));
      const asked = matched && onCalendar(+matched[1]!) ? matched : null;
      month = {
        year: asked ? +asked[1]! : now.year,
        month: asked && +asked[2]! >= 1 && +asked[2]! <= 12 ? +asked[2]! : now.month,
      };
      weeks = monthGrid(month, FIRST_WEEKDAY);
      first = { ...month, day: 1 };
      afterLast = { ...addMonths(month, 1), day: 1 };
    }

    const rows = await kit.run<ContentRow[]>(who, calendarContent, {
      from: midnight(first, tz),
      to: midnight(afterLast, tz),
    });
    const timeFmt = timeOfDayFormat(tz);
    const entries = rows.map((row) => {
      const at = row.publishedAt ?? row.scheduledFor!;
      return {
        id: row.id,
        title: titleOf(row),
        status: row.status,
        statusLabel: statusWord(row.status, row.publishQueued),
        // Marked in words, not by colour alone: an item the publishing run will not take.
        waiting: !isQueued(row.status, row.publishQueued) && row.status !== 'published' && row.status !== 'publishing',
        iso: at.toISOString(),
        when: fmt(who, at),
        time: timeFmt.format(at),
        key: dayKey(localParts(at, tz)),
        movable: itemActionsOf(runtime, who, row).movable,
      };
    });
    const filled = weeks.map((week) =>
      week.map(
        (cell) =>
          cell && {
            key: cell.key,
            label: view === 'week' ? utcLabel(cell, { day: 'numeric', month: 'short' }) : cell.day,
            entries: entries.filter((e) => e.key === cell.key),
          },
      ),
    );

    // Where the links lead: the neighbouring months or weeks, and the other views of the same days.
    const monthHref = (m: CalendarMonth, v: View) => `?month=${ym(m)}&view=${v}`;
    const weekHref = (d: CalendarDay) => `?week=${dayKey(d)}&view=week`;
    const isThisMonth = month.year === now.year && month.month === now.month;
    const weekOfMonth = weekHref(isThisMonth ? now : { ...month, day: 1 });
    const monthLabel = utcLabel({ ...month, day: 15 }, { month: 'long', year: 'numeric' });
    const nav =
      view === 'week'
        ? {
            label: `Week of ${utcLabel(first, { day: 'numeric', month: 'long', year: 'numeric' })}`,
            prev: { href: weekHref(addDays(first, -7)), text: 'Previous week' },
            next: { href: weekHref(afterLast), text: 'Next week' },
            switches: [
              { href: monthHref(month, 'month'), text: 'Month grid' },
              { href: monthHref(month, 'list'), text: 'List view' },
            ],
            back: `/app/calendar${weekHref(first)}`,
          }
        : {
            label: monthLabel,
            prev: { href: monthHref(addMonths(month, -1), view), text: 'Previous month' },
            next: { href: monthHref(addMonths(month, 1), view), text: 'Next month' },
            switches: [
              view === 'list'
                ? { href: monthHref(month, 'month'), text: 'Month grid' }
                : { href: monthHref(month, 'list'), text: 'List view' },
              { href: weekOfMonth, text: 'Week view' },
            ],
            back: `/app/calendar?month=${ym(month)}`,
          };
    await kit.page(
      res,
      'Calendar',
      'calendar',
      {
        timezone: tz,
        view,
        nav,
        weekdays: weekdayNames(FIRST_WEEKDAY),
        weeks: filled,
        entries,
        empty:
          view === 'week' ? 'Nothing scheduled or published this week.' : 'Nothing scheduled or published this month.',
        notice: noticeOf(req.query.done),
      },
      'calendar',
    );
  });
  return router;
}
