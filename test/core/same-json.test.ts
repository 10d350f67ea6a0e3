import { describe, expect, it } from 'vitest';
import { sameJson } from '../../src/core/same-json.ts';

describe('sameJson', () => {
  it('finds equal values equal, whatever their key order', () => {
    expect(sameJson('a', 'a')).toBe(true);
    expect(sameJson(null, null)).toBe(true);
    expect(sameJson([1, 'x', [true, null]], [1, 'x', [true, null]])).toBe(true);
    expect(sameJson({ a: 1, b: { c: ['d'] } }, { b: { c: ['d'] }, a: 1 })).toBe(true);
    expect(sameJson({}, {})).toBe(true);
  });

  it('tells apart any difference of value, length, key or kind', () => {
    expect(sameJson('a', 'b')).toBe(false);
    expect(sameJson(1, '1')).toBe(false);
    expect(sameJson(null, {})).toBe(false);
    expect(sameJson({}, null)).toBe(false);
    expect(sameJson([], {})).toBe(false);
    expect(sameJson({}, [])).toBe(false);
    expect(sameJson([1, 2], [1, 2, 3])).toBe(false);
    expect(sameJson([1, 2, 3], [1, 2])).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameJson({ a: 1, b: 2 }, { a: 1 })).toBe(false);
    expect(sameJson({ a: 1 }, { b: 1 })).toBe(false);
    expect(sameJson({ a: { b: [1] } }, { a: { b: [2] } })).toBe(false);
    expect(sameJson({ a: null }, {})).toBe(false);
  });
});
