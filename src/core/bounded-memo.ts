/**
 * A map that holds at most `limit` keys: emptied when it reaches them, so keys that stop being asked
 * for are not kept forever. For values kept beside what they were made from (see boundedMemo).
 */
export function boundedMap<K, V>(limit: number): { get(key: K): V | undefined; set(key: K, value: V): void } {
  const values = new Map<K, V>();
  return {
    get: (key) => values.get(key),
    set(key, value) {
      if (values.size >= limit && !values.has(key)) values.clear();
      values.set(key, value);
    },
  };
}

/**
 * A memo of values that are costly to work out and asked for again and again with few distinct keys
 * (a delivery worker posts to the same few URLs with the same few secrets thousands of times a
 * second; the dashboard measures the same pending captions for every reviewer and every reload). Emptied when it reaches `limit` keys, so keys that stop being asked for are not kept forever.
 */
export function boundedMemo<T>(limit: number): (key: string, compute: (key: string) => T) => T {
  const values = boundedMap<string, T>(limit);
  return (key, compute) => {
    let value = values.get(key);
    if (value === undefined) {
      value = compute(key);
      values.set(key, value);
    }
    return value;
  };
}
