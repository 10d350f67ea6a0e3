import { describe, expect, it } from 'vitest';
import {
  addDays,
  addMonths,
  daysInMonth,
  monthGrid,
  weekdayNames,
  weekGrid,
  type DayCell,
  type Weekday,
} from '../../src/web/calendar-grid.ts';

const MONDAY = 1 as Weekday;
const SUNDAY = 0 as Weekday;
/** A grid as text: the day numbers, '.' for the places outside the month. */
const shape = (weeks: Array<Array<DayCell | null>>) =>
  weeks.map((week) => week.map((cell) => (cell ? String(cell.day) : '.')).join(' '));

describe('calendar month grid', () => {
  // 2026: June starts on a Monday, September Tuesday, April Wednesday, January Thursday, May Friday,
  // August Saturday, February Sunday.
  const starts: Array<[month: number, weekday: string, lead: number]> = [
    [6, 'Mon', 0],
    [9, 'Tue', 1],
    [4, 'Wed', 2],
    [1, 'Thu', 3],
    [5, 'Fri', 4],
    [8, 'Sat', 5],
    [2, 'Sun', 6],
  ];
  it.each(starts)('2026-%i starts on a %s: %i empty places before the 1st in weeks from Monday', (month, _, lead) => {
    const weeks = monthGrid({ year: 2026, month }, MONDAY);
    const cells = weeks.flat();
    expect(cells.slice(0, lead)).toEqual(Array(lead).fill(null));
    expect(cells[lead]).toEqual({ year: 2026, month, day: 1, key: `2026-${String(month).padStart(2, '0')}-01` });
    expect(weeks.every((week) => week.length === 7)).toBe(true);
    // Every day once, in order, and the last week ends the month.
    const days = cells.filter((c) => c !== null).map((c) => c.day);
    expect(days).toEqual(Array.from({ length: daysInMonth({ year: 2026, month }) }, (_, i) => i + 1));
    expect(weeks.at(-1)!.some((c) => c !== null)).toBe(true);
  });

  it('lays out a whole month, Monday first and Sunday first', () => {
    expect(shape(monthGrid({ year: 2026, month: 12 }, MONDAY))).toEqual([
      '. 1 2 3 4 5 6',
      '7 8 9 10 11 12 13',
      '14 15 16 17 18 19 20',
      '21 22 23 24 25 26 27',
      '28 29 30 31 . . .',
    ]);
    expect(shape(monthGrid({ year: 2026, month: 12 }, SUNDAY))).toEqual([
      '. . 1 2 3 4 5',
      '6 7 8 9 10 11 12',
      '13 14 15 16 17 18 19',
      '20 21 22 23 24 25 26',
      '27 28 29 30 31 . .',
    ]);
  });

  it('has as many weeks as the month needs: four, five or six', () => {
    // February 2027 starts on a Monday and has 28 days: exactly four weeks.
    expect(monthGrid({ year: 2027, month: 2 }, MONDAY)).toHaveLength(4);
    expect(monthGrid({ year: 2026, month: 12 }, MONDAY)).toHaveLength(5);
    // August 2026 starts on a Saturday and has 31 days: six weeks from Monday.
    expect(monthGrid({ year: 2026, month: 8 }, MONDAY)).toHaveLength(6);
  });

  it('counts 28, 29, 30 and 31 days, leap years included', () => {
    expect(daysInMonth({ year: 2026, month: 2 })).toBe(28);
    expect(daysInMonth({ year: 2028, month: 2 })).toBe(29);
    expect(daysInMonth({ year: 2000, month: 2 })).toBe(29);
    expect(daysInMonth({ year: 2100, month: 2 })).toBe(28);
    expect(daysInMonth({ year: 2026, month: 4 })).toBe(30);
    expect(daysInMonth({ year: 2026, month: 1 })).toBe(31);
    expect(daysInMonth({ year: 2026, month: 12 })).toBe(31);
    const leapFebruary = monthGrid({ year: 2028, month: 2 }, MONDAY).flat();
    expect(leapFebruary.filter((c) => c !== null).at(-1)!.key).toBe('2028-02-29');
  });

  it('keys days as YYYY-MM-DD, years under 100 too', () => {
    expect(monthGrid({ year: 2026, month: 3 }, MONDAY).flat()[6]!.key).toBe('2026-03-01');
    // Date.UTC reads the year 50 as 1950; the grid must not.
    expect(daysInMonth({ year: 52, month: 2 })).toBe(29);
    expect(
      monthGrid({ year: 50, month: 1 }, MONDAY)
        .flat()
        .find((c) => c !== null)!.key,
    ).toBe('0050-01-01');
  });

  it('steps months across the year: December to January and back', () => {
    expect(addMonths({ year: 2026, month: 12 }, 1)).toEqual({ year: 2027, month: 1 });
    expect(addMonths({ year: 2027, month: 1 }, -1)).toEqual({ year: 2026, month: 12 });
    expect(addMonths({ year: 2026, month: 5 }, 1)).toEqual({ year: 2026, month: 6 });
    expect(addMonths({ year: 2026, month: 5 }, -17)).toEqual({ year: 2024, month: 12 });
  });

  it('names the weekday columns from the first weekday', () => {
    expect(weekdayNames(MONDAY)).toEqual(['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']);
    expect(weekdayNames(SUNDAY)).toEqual(['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat']);
  });
});

describe('calendar week grid', () => {
  it('is the seven days of the week holding the day, from its first weekday', () => {
    const keys = (cells: DayCell[]) => cells.map((c) => c.key);
    // Thursday 17 December 2026.
    expect(keys(weekGrid({ year: 2026, month: 12, day: 17 }, MONDAY))).toEqual([
      '2026-12-14',
      '2026-12-15',
      '2026-12-16',
      '2026-12-17',
      '2026-12-18',
      '2026-12-19',
      '2026-12-20',
    ]);
    expect(keys(weekGrid({ year: 2026, month: 12, day: 17 }, SUNDAY))[0]).toBe('2026-12-13');
    // The first weekday itself starts its week; the day before it ends the previous one.
    expect(keys(weekGrid({ year: 2026, month: 12, day: 14 }, MONDAY))[0]).toBe('2026-12-14');
    expect(keys(weekGrid({ year: 2026, month: 12, day: 13 }, MONDAY))[0]).toBe('2026-12-07');
  });

  it('crosses a year’s end and a leap day', () => {
    expect(weekGrid({ year: 2026, month: 12, day: 31 }, MONDAY).map((c) => c.key)).toEqual([
      '2026-12-28',
      '2026-12-29',
      '2026-12-30',
      '2026-12-31',
      '2027-01-01',
      '2027-01-02',
      '2027-01-03',
    ]);
    expect(weekGrid({ year: 2028, month: 3, day: 1 }, MONDAY).map((c) => c.key)).toEqual([
      '2028-02-28',
      '2028-02-29',
      '2028-03-01',
      '2028-03-02',
      '2028-03-03',
      '2028-03-04',
      '2028-03-05',
    ]);
  });

  it('adds days across months and years', () => {
    expect(addDays({ year: 2026, month: 12, day: 31 }, 1)).toEqual({ year: 2027, month: 1, day: 1 });
    expect(addDays({ year: 2027, month: 1, day: 1 }, -1)).toEqual({ year: 2026, month: 12, day: 31 });
    expect(addDays({ year: 2028, month: 2, day: 28 }, 1)).toEqual({ year: 2028, month: 2, day: 29 });
    expect(addDays({ year: 2026, month: 2, day: 28 }, 7)).toEqual({ year: 2026, month: 3, day: 7 });
  });
});
