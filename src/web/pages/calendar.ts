import { Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import { calendarContent } from '../../core/content/review.ts';
import type { ContentRow } from '../../core/content/serialize.ts';
import { dayKey, fromLocal, localParts } from '../../core/time-zones.ts';
import { fmt, noticeOf, STATUS_LABELS, timeOfDayFormat, titleOf } from '../format.ts';
import { canReview, type PageKit } from './kit.ts';

/** /app/calendar: a month of scheduled and published items in the workspace's time zone, or the same as a list. */
export function calendarPage(runtime: Runtime, kit: PageKit): Router {
  const router = Router();
  router.get('/calendar', async (req, res) => {
    const who = kit.signedIn(req, res);
    if (!who) return;
    const tz = who.workspace.timezone;
    const now = localParts(runtime.clock.now(), tz);
    const asked = /^(\d{4})-(\d{2})$/.exec(String(req.query.month ?? ''));
    const year = asked ? +asked[1]! : now.year;
    const month = asked && +asked[2]! >= 1 && +asked[2]! <= 12 ? +asked[2]! : now.month;
    const from = fromLocal({ year, month, day: 1, hour: 0, minute: 0 }, tz);
    const nextMonth = month === 12 ? { year: year + 1, month: 1 } : { year, month: month + 1 };
    const prevMonth = month === 1 ? { year: year - 1, month: 12 } : { year, month: month - 1 };
    const to = fromLocal({ ...nextMonth, day: 1, hour: 0, minute: 0 }, tz);
    const rows = await kit.run<ContentRow[]>(who, calendarContent, { from, to });
    const timeFmt = timeOfDayFormat(tz);
    const entries = rows.map((row) => {
      const at = row.publishedAt ?? row.scheduledFor!;
      const p = localParts(at, tz);
      return {
        id: row.id,
        title: titleOf(row),
        status: row.status,
        statusLabel: STATUS_LABELS[row.status],
        iso: at.toISOString(),
        when: fmt(who, at),
        time: timeFmt.format(at),
        key: dayKey(p),
        movable: row.status === 'scheduled' && canReview(who),
      };
    });
    const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
    const firstWeekday = (new Date(Date.UTC(year, month - 1, 1)).getUTCDay() + 6) % 7;
    const cells: Array<{ key: string; label: number; entries: typeof entries } | null> = Array.from(
      { length: firstWeekday },
      () => null,
    );
    for (let d = 1; d <= days; d++) {
      const key = dayKey({ year, month, day: d });
      cells.push({ key, label: d, entries: entries.filter((e) => e.key === key) });
    }
    while (cells.length % 7 !== 0) cells.push(null);
    const weeks = Array.from({ length: cells.length / 7 }, (_, i) => cells.slice(i * 7, i * 7 + 7));
    const ym = (m: { year: number; month: number }) => `${m.year}-${String(m.month).padStart(2, '0')}`;
    kit.page(
      res,
      'Calendar',
      'calendar',
      {
        timezone: tz,
        view: req.query.view === 'list' ? 'list' : 'month',
        month: ym({ year, month }),
        prev: ym(prevMonth),
        next: ym(nextMonth),
        monthLabel: new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', month: 'long', year: 'numeric' }).format(
          new Date(Date.UTC(year, month - 1, 15)),
        ),
        weeks,
        entries,
        notice: noticeOf(req.query.done),
      },
      'calendar',
    );
  });
  return router;
}
