import { dayKey } from '../core/time-zones.ts';

/**
 * The calendar's grids, pure: days of the civil calendar in, weeks of day cells out. No time zone
 * and no clock: the page decides which month or day it is in the workspace's zone, and the grid only
 * counts days (the proleptic Gregorian calendar).
 */

/** A weekday as Date.getUTCDay numbers it: 0 is Sunday, 1 Monday, 6 Saturday. */
export type Weekday = 0 | 1 | 2 | 3 | 4 | 5 | 6;

/** A day of the calendar. */
export interface CalendarDay {
  year: number;
  /** 1 to 12. */
  month: number;
  /** 1 to 31. */
  day: number;
}

/** A day's cell: the day and its key (YYYY-MM-DD, as dayKey gives it for an instant). */
export interface DayCell extends CalendarDay {
  key: string;
}

/** A month of the calendar. */
export interface CalendarMonth {
  year: number;
  month: number;
}

const WEEKDAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

/** Midnight UTC of a day; setUTCFullYear, since Date.UTC reads the years 0 to 99 as 1900 to 1999. */
const utcDay = (year: number, monthIndex: number, day: number): Date => {
  const at = new Date(0);
  at.setUTCFullYear(year, monthIndex, day);
  return at;
};

const cellOf = (d: CalendarDay): DayCell => ({ year: d.year, month: d.month, day: d.day, key: dayKey(d) });

/** The number of days of a month: 28 to 31. */
export const daysInMonth = ({ year, month }: CalendarMonth): number => utcDay(year, month, 0).getUTCDate();

/** The weekday of a day. */
export const weekdayOf = ({ year, month, day }: CalendarDay): Weekday =>
  utcDay(year, month - 1, day).getUTCDay() as Weekday;

/** The day `n` days after `from` (before it when `n` is negative). */
export function addDays(from: CalendarDay, n: number): CalendarDay {
  const at = utcDay(from.year, from.month - 1, from.day + n);
  return { year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate() };
}

/** The month `n` months after `from` (before it when `n` is negative). */
export function addMonths(from: CalendarMonth, n: number): CalendarMonth {
  const index = from.year * 12 + (from.month - 1) + n;
  return { year: Math.floor(index / 12), month: (((index % 12) + 12) % 12) + 1 };
}

/** The column headings of a week that starts on `firstWeekday`: ['Mon', 'Tue', …]. */
export const weekdayNames = (firstWeekday: Weekday): string[] =>
  Array.from({ length: 7 }, (_, i) => WEEKDAY_NAMES[(firstWeekday + i) % 7]!);

/** The first day of the week that holds `day`, weeks starting on `firstWeekday`. */
export const weekStart = (day: CalendarDay, firstWeekday: Weekday): CalendarDay =>
  addDays(day, -((weekdayOf(day) - firstWeekday + 7) % 7));

/** The seven days of the week that holds `day`, across a month's or a year's end when it falls there. */
export const weekGrid = (day: CalendarDay, firstWeekday: Weekday): DayCell[] => {
  const start = weekStart(day, firstWeekday);
  return Array.from({ length: 7 }, (_, i) => cellOf(addDays(start, i)));
};

/**
 * The weeks of a month, each seven cells, weeks starting on `firstWeekday`: the month's days in
 * order, and null for the places of the days before its first and after its last.
 */
export function monthGrid(month: CalendarMonth, firstWeekday: Weekday): Array<Array<DayCell | null>> {
  const lead = (weekdayOf({ ...month, day: 1 }) - firstWeekday + 7) % 7;
  const cells: Array<DayCell | null> = Array.from({ length: lead }, () => null);
  for (let day = 1; day <= daysInMonth(month); day++) cells.push(cellOf({ ...month, day }));
  while (cells.length % 7 !== 0) cells.push(null);
  return Array.from({ length: cells.length / 7 }, (_, i) => cells.slice(i * 7, i * 7 + 7));
}
