/**
 * Meta's usage headers. Every Graph answer may carry how much of the app's hourly allowance is used
 * (`X-App-Usage`, and `X-Page-Usage` for Page tokens: percentages of calls, CPU time and total time)
 * and of the Page's business use case (`X-Business-Use-Case-Usage`, keyed by the Page's id, with
 * `estimated_time_to_regain_access` in minutes once it is throttled). Past 100 % calls are refused, so
 * the publisher slows down before that: at 90 % it pauses before its next call.
 */
import { PlatformError, type LiveSession } from '../platform-client.ts';

/** From this usage on, the next call waits. */
export const SLOW_DOWN_AT_PERCENT = 90;
/** The pause at 90 % or more when Meta names no time to regain access. */
export const SLOW_DOWN_PAUSE_MS = 30_000;

export interface UsageReading {
  /** The highest percentage of the app's counters (`X-App-Usage`), when given. */
  app?: number;
  /** The highest percentage of the Page's counters (`X-Page-Usage`, `X-Business-Use-Case-Usage`), when given. */
  page?: number;
  /** `estimated_time_to_regain_access`, in minutes, when Meta gave one above zero. */
  regainMinutes?: number;
}

/** What the usage headers of one answer say; empty when it carried none that parse. */
export function readUsage(headers: Headers): UsageReading {
  const reading: UsageReading = {};
  const app = highest(parseJson(headers.get('x-app-usage')));
  if (app !== undefined) reading.app = app;
  const pageCounters: number[] = [];
  const pageUsage = highest(parseJson(headers.get('x-page-usage')));
  if (pageUsage !== undefined) pageCounters.push(pageUsage);
  const business = parseJson(headers.get('x-business-use-case-usage'));
  if (business && typeof business === 'object') {
    for (const entries of Object.values(business as Record<string, unknown>)) {
      if (!Array.isArray(entries)) continue;
      for (const entry of entries) {
        const value = highest(entry);
        if (value !== undefined) pageCounters.push(value);
        const regain = (entry as Record<string, unknown> | null)?.estimated_time_to_regain_access;
        if (typeof regain === 'number' && regain > 0)
          reading.regainMinutes = Math.max(reading.regainMinutes ?? 0, regain);
      }
    }
  }
  if (pageCounters.length) reading.page = Math.max(...pageCounters);
  return reading;
}

/** Whose calls a governor paces, for its messages: the platform's name and what it calls an account. */
export interface UsageOwner {
  /** `Facebook`, `Instagram`, `Threads`. */
  platform: string;
  /** What the per-account counters count: a Facebook `Page`, an Instagram or Threads `account`. */
  account: string;
}

/**
 * The pace of one publisher's calls, for the app and per Page (or account): an answer at 90 % or
 * more holds the next call back until Meta's estimate (or a fixed pause) has passed. Kept across
 * publishes, since the allowance is the app's and the Page's, not one post's. Shared by Meta's
 * platforms, so it names the one it paces.
 */
export class UsageGovernor {
  private readonly holds = new Map<string, { until: number; percent: number }>();

  constructor(
    private readonly now: () => Date,
    private readonly owner: UsageOwner,
  ) {}

  /** Notes an answer's usage, for the app and for `pageId`. */
  observe(headers: Headers, pageId: string): void {
    const reading = readUsage(headers);
    const now = this.now().getTime();
    const note = (key: string, percent: number | undefined, regainMinutes?: number) => {
      if (percent === undefined && regainMinutes === undefined) return;
      if ((percent ?? 0) < SLOW_DOWN_AT_PERCENT && regainMinutes === undefined) {
        this.holds.delete(key);
        return;
      }
      const pause = regainMinutes ? regainMinutes * 60_000 : SLOW_DOWN_PAUSE_MS;
      this.holds.set(key, { until: now + pause, percent: percent ?? 100 });
    };
    note('app', reading.app);
    note(`page:${pageId}`, reading.page, reading.regainMinutes);
  }

  /** Waits, through the session, until calls for the app and `pageId` may go again. */
  async pace(session: LiveSession, pageId: string): Promise<void> {
    const now = this.now().getTime();
    const held = ['app', `page:${pageId}`]
      .map((key) => this.holds.get(key))
      .filter((hold): hold is { until: number; percent: number } => hold !== undefined && hold.until > now);
    if (held.length === 0) return;
    const until = Math.max(...held.map((hold) => hold.until));
    const percent = Math.max(...held.map((hold) => hold.percent));
    try {
      await session.wait(until - now);
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      throw new PlatformError(
        'rate_limited',
        `${this.owner.platform} reports this app's or ${this.owner.account}'s API usage at ${percent} %, which comes down after ${new Date(until).toISOString()}, past the retry window; publish again later.`,
        { retryAt: new Date(until) },
      );
    }
    this.holds.delete('app');
    this.holds.delete(`page:${pageId}`);
  }
}

/** The highest of a usage object's percentages (`call_count`, `total_cputime`, `total_time`). */
function highest(record: unknown): number | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const values = ['call_count', 'total_cputime', 'total_time']
    .map((name) => (record as Record<string, unknown>)[name])
    .filter((value): value is number => typeof value === 'number' && Number.isFinite(value));
  return values.length ? Math.max(...values) : undefined;
}

function parseJson(value: string | null): unknown {
  if (!value) return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}
