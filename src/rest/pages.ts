/** The few HTML pages the service answers itself (the error reference, the OAuth callback's outcome). */

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
