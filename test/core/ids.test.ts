import { describe, expect, it } from 'vitest';
import { newId, prefixedId } from '../../src/core/ids.ts';

describe('ids', () => {
  it('are RFC 9562 version 7 UUIDs carrying the creation time, unique across many', () => {
    const before = Date.now();
    const ids = Array.from({ length: 5000 }, newId);
    const after = Date.now();
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const stamp = parseInt(ids[0].replace(/-/g, '').slice(0, 12), 16);
    expect(stamp).toBeGreaterThanOrEqual(before);
    expect(stamp).toBeLessThanOrEqual(after);
  });

  it('prefixed ids are the prefix and 24 base62 characters', () => {
    expect(prefixedId('evt')).toMatch(/^evt_[0-9A-Za-z]{24}$/);
    expect(new Set(Array.from({ length: 1000 }, () => prefixedId('whk'))).size).toBe(1000);
  });

  it('prefixed ids made later sort after earlier ones', async () => {
    const first = prefixedId('whd');
    await new Promise((resolve) => setTimeout(resolve, 2));
    const later = Array.from({ length: 100 }, () => prefixedId('whd'));
    for (const id of later) expect(id > first).toBe(true);
  });
});
