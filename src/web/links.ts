/**
 * Where a form or a sign-in leads next: always a dashboard path, judged as the browser will resolve
 * it, so no `next` or `back` field can lead off the dashboard.
 */

/**
 * A dashboard path to go to next, or the inbox. Judged as the browser will resolve it, so dot
 * segments, backslashes or encoded dots ("/app/..//elsewhere") cannot lead off the dashboard.
 */
export const safeNext = (next: unknown): string => {
  if (typeof next !== 'string' || !next.startsWith('/')) return '/app/inbox';
  const base = 'http://dashboard.invalid';
  let resolved: URL;
  try {
    resolved = new URL(next, base);
  } catch {
    return '/app/inbox';
  }
  const path = `${resolved.pathname}${resolved.search}`;
  return resolved.origin === base && /^\/app(\/|$|\?)/.test(path) && !path.startsWith('//') ? path : '/app/inbox';
};

/** The form's `back` field as a safe dashboard path, or `fallback` when it has none. */
export const backOf = (body: Record<string, unknown>, fallback: string): string =>
  typeof body.back === 'string' ? safeNext(body.back) : fallback;

/** The page to return to, saying what was done; it replaces the notice of an earlier action, never adds a second. */
export const withDone = (url: string, done: string): string => {
  const target = new URL(url, 'http://dashboard.invalid');
  target.searchParams.set('done', done);
  return `${target.pathname}${target.search}`;
};

/** A page's path and query without the notice of the action that led to it. */
export const withoutNotice = (url: URL): string => {
  url.searchParams.delete('done');
  return `${url.pathname}${url.search}`;
};

/** The origin of an absolute URL, or undefined when it is none. */
export function safeOrigin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
