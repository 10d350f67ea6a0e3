/**
 * Whether two JSON-shaped values (strings, numbers, booleans, null, arrays and plain objects) are
 * equal, key order aside. For values read from the database and compared on every request, where
 * node's isDeepStrictEqual (which also weighs prototypes, symbols and every other kind of object)
 * costs several times more.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  let keys = 0;
  for (const key in left) {
    if (!Object.hasOwn(right, key) || !sameJson(left[key], right[key])) return false;
    keys++;
  }
  return keys === Object.keys(right).length;
}
