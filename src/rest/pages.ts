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

const SCOPE_WORDS: Record<string, string> = {
  read: 'Read your content, campaigns, accounts and analytics',
  write: 'Create, change and delete content, campaigns, the brand profile and media',
  publish: 'Publish content and launch campaigns',
};

/**
 * The OAuth consent page: who asks, where the answer goes, what it may do, and the API key field by
 * which the person proves the workspace is theirs. The request travels in hidden fields, with the
 * form token that binds them. Everything shown is escaped here.
 */
export function consentPage(page: {
  clientName: string;
  returnHost: string;
  scopes: string[];
  fields: Record<string, string>;
  error?: string;
}): string {
  const hidden = Object.entries(page.fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
  const scopes = page.scopes.map((scope) => `<li>${escapeHtml(SCOPE_WORDS[scope] ?? scope)}</li>`).join('\n');
  const error = page.error ? `<p role="alert"><strong>${escapeHtml(page.error)}</strong></p>\n` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Allow ${escapeHtml(page.clientName)}?</title></head>
<body><h1>Allow ${escapeHtml(page.clientName)} to use your workspace?</h1>
${error}<p>After you answer, you will return to <strong>${escapeHtml(page.returnHost)}</strong>.</p>
<p>It will be able to:</p>
<ul>
${scopes}
</ul>
<form method="post" action="/oauth/authorize">
${hidden}
<label>Your workspace's API key <input type="password" name="api_key" autocomplete="off"></label>
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form></body></html>`;
}
