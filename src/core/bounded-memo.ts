/**
 * A memo of values that are costly to work out and asked for again and again with few distinct keys
 * (a delivery worker posts to the same few URLs with the same few secrets thousands of times a
 * second; the dashboard measures the same pending captions for every reviewer and every reload). Emptied when it reaches `limit` keys, so keys that stop being asked for are not kept forever.
 */
export function boundedMemo<T>(limit: number): (key: string, compute: (key: string) => T) => T {
  const values = new Map<string, T>();
  return (key, compute) => {
    let value = values.get(key);
    if (value === undefined) {
      value = compute(key);
      if (values.size >= limit) values.clear();
      values.set(key, value);
    }
    return value;
  };
}
