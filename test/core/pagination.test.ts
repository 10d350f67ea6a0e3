import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, parseLimit, toPage } from '../../src/core/pagination.ts';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const position = { createdAt: new Date('2026-03-10T12:00:30.123Z'), id: '5f2c0d7e-9a4b-4c1d-8e2f-0123456789ab' };

/** Limit parsing, the opaque (created_at, id) cursor and the dropping of bad cursors, at the unit level. */
describe('core pagination', () => {
  describe('parseLimit', () => {
    it.each<[unknown, number]>([
      [undefined, 25],
      ['', 25],
      ['  ', 25],
      ['abc', 25],
      ['12abc', 25],
      ['0', 25],
      [0, 25],
      ['-5', 25],
      [-5, 25],
      ['NaN', 25],
      ['Infinity', 25],
      [['5', '6'], 25],
      [null, 25],
      ['1', 1],
      ['25', 25],
      ['99', 99],
      ['100', 100],
      ['101', 100],
      ['500', 100],
      [500, 100],
      ['7.9', 7],
      [' 8 ', 8],
    ])('%j gives %i', (raw, expected) => {
      expect(parseLimit(raw)).toBe(expected);
    });
  });

  describe('cursor', () => {
    it('round-trips the (created_at, id) pair', () => {
      expect(decodeCursor(encodeCursor(position))).toEqual(position);
    });

    it('is opaque: no readable timestamp or id in it', () => {
      const cursor = encodeCursor(position);
      expect(cursor).not.toContain(position.id);
      expect(cursor).not.toContain(String(position.createdAt.getTime()));
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    });

    it.each<[string, unknown]>([
      ['undefined', undefined],
      ['empty', ''],
      ['a number', 42],
      ['an array', ['a']],
      ['not base64', '!!!***'],
      ['random text', 'hello-world'],
      ['a non-date timestamp', Buffer.from(`yesterday:${position.id}`).toString('base64url')],
      ['no id', Buffer.from('1773144030123:').toString('base64url')],
      ['no timestamp', Buffer.from(`:${position.id}`).toString('base64url')],
      ['an ISO date', '2026-03-10T12:00:30Z'],
      ['a JSON pair with a non-date time', b64(['yesterday', position.id])],
      ['a JSON pair with a time out of range', b64([1e20, position.id])],
      ['a JSON pair with a fractional time', b64([1773144030123.5, position.id])],
      ['a JSON pair with an empty id', b64([1773144030123, ''])],
      ['a JSON pair with a numeric id', b64([1773144030123, 5])],
      ['a JSON array of one', b64([1773144030123])],
      ['a JSON object', b64({ created_at: 1773144030123, id: position.id })],
      ['overlong', 'A'.repeat(5000)],
    ])('%s decodes to null', (_label, raw) => {
      expect(decodeCursor(raw)).toBeNull();
    });

    it('every truncation of a real cursor decodes to null (the first page)', () => {
      const cursor = encodeCursor(position);
      const accepted = [];
      for (let length = 0; length < cursor.length; length += 1) {
        const decoded = decodeCursor(cursor.slice(0, length));
        if (decoded !== null) accepted.push({ length, decoded });
      }
      expect(accepted, `truncations of a ${cursor.length}-character cursor that were used as positions`).toEqual([]);
    });
  });

  describe('toPage', () => {
    const rows = Array.from({ length: 4 }, (_, i) => ({ createdAt: new Date(1000 - i), id: `id${i}` }));
    const at = (r: { createdAt: Date; id: string }) => r;
    const out = (r: { id: string }) => r.id;

    it('with limit + 1 rows: has_more and a cursor at the last row of the page', () => {
      const page = toPage(rows, 3, at, out);
      expect(page).toMatchObject({ object: 'list', data: ['id0', 'id1', 'id2'], has_more: true });
      expect(decodeCursor(page.next_cursor)).toEqual({ createdAt: rows[2].createdAt, id: 'id2' });
    });

    it('with limit rows or fewer: no more, and next_cursor null', () => {
      expect(toPage(rows, 4, at, out)).toEqual({
        object: 'list',
        data: ['id0', 'id1', 'id2', 'id3'],
        has_more: false,
        next_cursor: null,
      });
      expect(toPage([], 4, at, out)).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
    });

    describe('with a character budget', () => {
      // Items of 1,000 characters of JSON each (a 998-character string and its quotes).
      const big = (r: { id: string }) => r.id.padEnd(998, '.');

      it('ends the page before the first item past the budget, with a cursor after the last item kept', () => {
        const page = toPage(rows, 3, at, big, 2_500);
        expect(page.data.map((item) => item.slice(0, 3))).toEqual(['id0', 'id1']);
        expect(page.has_more).toBe(true);
        expect(decodeCursor(page.next_cursor)).toEqual({ createdAt: rows[1].createdAt, id: 'id1' });
        expect(JSON.stringify(page).length).toBeLessThanOrEqual(2_500);
      });

      it('changes nothing when the page fits, and always keeps one item so paging moves on', () => {
        expect(toPage(rows, 4, at, big, 10_000)).toEqual(toPage(rows, 4, at, big));
        const single = toPage(rows, 4, at, big, 10);
        expect(single.data).toHaveLength(1);
        expect(decodeCursor(single.next_cursor)).toEqual({ createdAt: rows[0].createdAt, id: 'id0' });
      });

      it('cut on the last row of the set: has_more stays true until that row is listed', () => {
        const page = toPage(rows.slice(0, 2), 4, at, big, 1_500);
        expect(page.data).toHaveLength(1);
        expect(page.has_more).toBe(true);
      });
    });
  });
});
