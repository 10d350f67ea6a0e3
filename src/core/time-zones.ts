import { boundedMemo } from './bounded-memo.ts';

/**
 * Time zones for people's pages: a workspace shows its times in one IANA zone, while every instant is
 * stored and answered in UTC. Built on Intl alone, so it runs on the server and in a browser.
 */

/** Whether `name` is an IANA time zone this runtime knows (UTC included). */
export function isTimeZone(name: string): boolean {
  if (name.trim() === '' || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/**
 * Wall-clock readings already worked out: formatToParts costs about 6 µs, and a dashboard list reads
 * the same few hundred instants (each item's time, in three of its action forms) on every page.
 */
const readings = boundedMemo<Readonly<LocalParts & { second: number }>>(10_000);

/** The wall-clock date and time of `instant` in `timeZone`. */
export function localParts(instant: Date, timeZone: string): LocalParts & { second: number } {
  return { ...readings(`${timeZone} ${instant.getTime()}`, () => readLocalParts(instant, timeZone)) };
}

function readLocalParts(instant: Date, timeZone: string): LocalParts & { second: number } {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour! % 24,
    minute: parts.minute!,
    second: parts.second!,
  };
}

/** The zone's offset from UTC at `instant`, in milliseconds (New York in winter: -5 h). */
function offsetAt(instant: Date, timeZone: string): number {
  const p = localParts(instant, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - Math.floor(instant.getTime() / 1000) * 1000;
}

/**
 * The instant a wall-clock time in `timeZone` names. In the hour a spring change skips, the time
 * moves forward with the clock; in the hour an autumn change repeats, the earlier one is meant.
 */
export function fromLocal(local: LocalParts, timeZone: string): Date {
  const naive = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute);
  const first = naive - offsetAt(new Date(naive), timeZone);
  const second = naive - offsetAt(new Date(first), timeZone);
  return new Date(Math.min(first, second));
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `YYYY-MM-DDTHH:MM`, as an `<input type="datetime-local">` shows and sends it. */
export const toLocalInput = (instant: Date, timeZone: string): string => {
  const p = localParts(instant, timeZone);
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}`;
};

/** Reads `YYYY-MM-DDTHH:MM` (seconds allowed and ignored); null when it is not such a time. */
export function parseLocalInput(text: string): LocalParts | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?$/.exec(text.trim());
  if (!match) return null;
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [number, number, number, number, number];
  if (month < 1 || month > 12 || hour > 23 || minute > 59) return null;
  if (day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return null;
  return { year, month, day, hour, minute };
}

/** `YYYY-MM-DD` of a calendar day. */
export const dayKey = (p: { year: number; month: number; day: number }): string =>
  `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;

/**
 * The same wall-clock time on another day: what moving an item on the calendar means (the time of
 * day is kept, whatever the zone's offset on the new day).
 */
export function moveToDay(instant: Date, day: { year: number; month: number; day: number }, timeZone: string): Date {
  const p = localParts(instant, timeZone);
  return fromLocal({ year: day.year, month: day.month, day: day.day, hour: p.hour, minute: p.minute }, timeZone);
}
