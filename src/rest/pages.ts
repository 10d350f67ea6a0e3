import { escapeHtml } from '../http/message-page.ts';

/** The few HTML pages the REST door answers itself (the OAuth callback's confirmation, the consent page). */

/**
 * The question a connection ends on: "Connect @name to workspace W?", with one account, or a checkbox
 * per account when one login manages several. The state and the browser's confirmation token travel
 * in hidden fields, posted back to `action` with the person's decision. Everything shown is escaped here.
 */
export function confirmationPage(page: {
  platformName: string;
  workspaceName: string;
  action: string;
  fields: { state: string; confirmation: string };
  choices: { id: string; name: string }[];
}): string {
  const workspace = `<strong>${escapeHtml(page.workspaceName)}</strong>`;
  const single = page.choices.length === 1 ? page.choices[0]! : null;
  const title = single
    ? `Connect ${single.name} to workspace ${page.workspaceName}?`
    : `Choose the ${page.platformName} accounts to connect to workspace ${page.workspaceName}`;
  const question = single
    ? `<h1>Connect ${escapeHtml(single.name)} to workspace ${workspace}?</h1>
<p>You signed in to ${escapeHtml(page.platformName)} as ${escapeHtml(single.name)}. Connecting lets the workspace publish as this account. If you did not start this connection, choose Cancel.</p>
<input type="hidden" name="account" value="${escapeHtml(single.id)}">`
    : `<h1>Choose the ${escapeHtml(page.platformName)} accounts to connect to workspace ${workspace}</h1>
<p>Your ${escapeHtml(page.platformName)} login manages several accounts. Connecting lets the workspace publish as each one you choose. If you did not start this connection, choose Cancel.</p>
<fieldset><legend>Accounts</legend><ul>
${page.choices
  .map(
    (choice) =>
      `<li><label><input type="checkbox" name="account" value="${escapeHtml(choice.id)}"> ${escapeHtml(choice.name)}</label></li>`,
  )
  .join('\n')}
</ul></fieldset>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title></head>
<body><form method="post" action="${escapeHtml(page.action)}">
${question}
<input type="hidden" name="state" value="${escapeHtml(page.fields.state)}">
<input type="hidden" name="confirmation" value="${escapeHtml(page.fields.confirmation)}">
<button type="submit" name="decision" value="connect">Connect</button>
<button type="submit" name="decision" value="cancel">Cancel</button>
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
<fieldset><legend>Sign in with your dashboard account</legend>
<p><label>Email <input type="email" name="email" autocomplete="username"></label></p>
<p><label>Password <input type="password" name="password" autocomplete="current-password"></label></p>
</fieldset>
<fieldset><legend>Or paste an API key</legend>
<label>Your workspace's API key <input type="password" name="api_key" autocomplete="off"></label>
</fieldset>
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form></body></html>`;
}
