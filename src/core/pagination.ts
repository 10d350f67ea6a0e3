import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { z } from 'zod';

/** The list envelope: newest first, `next_cursor` null whenever `has_more` is false. */
export interface ListEnvelope<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

/** `limit`: default 25, clamped to 100; non-numeric, zero or negative falls back to 25 (no error). */
export function parseLimit(raw: unknown): number {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!Number.isFinite(n) || n < 1) return DEFAULT_LIMIT;
  return Math.min(Math.floor(n), MAX_LIMIT);
}

export interface CursorPosition {
  createdAt: Date;
  id: string;
}

/**
 * The cursor is opaque to clients; it carries the last record's (created_at, id) pair as a JSON
 * array in base64url. Cutting any character off loses the closing bracket, so a truncated cursor
 * never parses into a different position.
 */
export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt.getTime(), position.id]), 'utf8').toString('base64url');
}

/** A malformed, truncated or non-date cursor is dropped (first page), never an error. */
export function decodeCursor(raw: unknown): CursorPosition | null {
  if (typeof raw !== 'string' || raw === '' || raw.length > 200 || !/^[A-Za-z0-9_-]+$/.test(raw)) return null;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(decoded) || decoded.length !== 2) return null;
  const [ms, id] = decoded as unknown[];
  if (!Number.isSafeInteger(ms) || typeof id !== 'string' || id === '' || id.length > 64) return null;
  const createdAt = new Date(ms as number);
  return Number.isNaN(createdAt.getTime()) ? null : { createdAt, id };
}

/**
 * The rows after `cursor` in newest-first order of (`time`, `id`), or none when there is no cursor.
 * A row-value comparison, so rows sharing a timestamp on a page boundary are never skipped.
 */
export function afterCursor(cursor: CursorPosition | null, time: SQLWrapper, id: SQLWrapper): SQL[] {
  return cursor ? [sql`(${time}, ${id}) < (${cursor.createdAt.getTime()}, ${cursor.id})`] : [];
}

/** Input fields shared by every paginated list, in the form both REST queries and tool arguments take. */
export const paginationInput = {
  limit: z
    .unknown()
    .optional()
    .transform(parseLimit)
    .meta({ type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: 'Page size; default 25.' }),
  cursor: z
    .unknown()
    .optional()
    .transform(decodeCursor)
    .meta({ type: 'string', description: 'The next_cursor of the previous page; omit for the first page.' }),
};

/** The longest envelope without its items: has_more true and a cursor as long as decodeCursor takes. */
const ENVELOPE_CHARS = JSON.stringify({
  object: 'list',
  data: [],
  has_more: true,
  next_cursor: 'x'.repeat(200),
}).length;

/**
 * Builds the envelope from `limit + 1` rows fetched newest first: the extra row only tells
 * whether another page exists. With a `budget` (characters of the envelope's JSON), the page ends
 * before the first item that would pass it, and then has_more is true and next_cursor points after
 * the last item kept, so following it continues exactly there. One item is always kept, so paging
 * always moves on; the input limits keep any one item far below a budget.
 */
export function toPage<Row, Out>(
  rows: Row[],
  limit: number,
  position: (row: Row) => CursorPosition,
  serialize: (row: Row) => Out,
  budget = Infinity,
): ListEnvelope<Out> {
  const data: Out[] = [];
  let chars = ENVELOPE_CHARS;
  for (const row of rows.slice(0, limit)) {
    const item = serialize(row);
    if (budget !== Infinity) {
      // The item and the comma before it.
      chars += JSON.stringify(item).length + 1;
      if (chars > budget && data.length > 0) break;
    }
    data.push(item);
  }
  const hasMore = rows.length > data.length;
  const last = rows[data.length - 1];
  return {
    object: 'list',
    data,
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor(position(last)) : null,
  };
}

/** The list envelope as a schema, for the documents that describe a list of `item`. */
export const listEnvelope = <Item extends z.ZodType>(item: Item) =>
  z.object({
    object: z.literal('list'),
    data: z.array(item).describe('Newest first.'),
    has_more: z.boolean().describe('True when more records exist.'),
    next_cursor: z.string().nullable().describe('Pass as cursor for the next page; null whenever has_more is false.'),
  });

/** What DELETE answers: the id, the resource's object name and `deleted: true`. */
export const deletedResource = <Name extends string>(object: Name) =>
  z.object({ id: z.string(), object: z.literal(object), deleted: z.literal(true) });
