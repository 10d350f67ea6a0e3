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

/**
 * The chooser shown when one login manages several accounts: a checkbox per account and the state in
 * a hidden field, posted back to `action`. Everything shown is escaped here.
 */
export function choicePage(page: {
  title: string;
  intro: string;
  action: string;
  state: string;
  choices: { id: string; name: string }[];
}): string {
  const boxes = page.choices
    .map(
      (choice) =>
        `<li><label><input type="checkbox" name="account" value="${escapeHtml(choice.id)}"> ${escapeHtml(choice.name)}</label></li>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title></head>
<body><h1>${escapeHtml(page.title)}</h1>
<p>${escapeHtml(page.intro)}</p>
<form method="post" action="${escapeHtml(page.action)}">
<input type="hidden" name="state" value="${escapeHtml(page.state)}">
<ul>
${boxes}
</ul>
<button type="submit">Connect</button>
</form></body></html>`;
}
