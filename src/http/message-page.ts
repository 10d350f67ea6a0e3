/** The one standalone HTML page every door may answer with (a wrong Host, an OAuth outcome), and its policy. */

/**
 * The Content-Security-Policy of these pages: they load nothing (no script, style, image or frame),
 * so nothing is allowed, and no page may frame them (a framed consent or confirmation could be
 * clicked through). `form-action` is left out on purpose: a browser holds a form's whole redirect
 * chain to it, and these forms end at the client's redirect URI or the connection's return URL.
 */
export const PAGE_SECURITY_POLICY =
  "default-src 'none'; script-src 'none'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/** Text for HTML content and quoted attributes; names and messages from platforms and users pass here. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A small standalone page: a heading and one paragraph, both escaped here. */
export function messagePage(title: string, message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title></head>
<body><h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p></body></html>`;
}
