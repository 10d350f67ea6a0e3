/**
 * A post's public URL as a platform answered it. It is shown as a link (the dashboard, the MCP view
 * opens it through the host, receivers of webhooks and API callers follow it), so only an absolute
 * http or https URL is kept: a `javascript:` or `data:` answer, or anything that does not parse, is
 * stored as no URL at all. No Node import: the MCP view bundles it too.
 */
export function isWebUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** The URL when it is one to link to (see isWebUrl), else null. */
export const webUrlOrNull = (value: string | null | undefined): string | null =>
  typeof value === 'string' && isWebUrl(value) ? value : null;
