import { consentFormFields } from './oauth-tokens.ts';

/**
 * The confirmation page an account connection ends on, as the browser that got it holds it: where its
 * form posts, its hidden fields, the accounts it offers as checkboxes, and the cookie the page set.
 */
export interface ConfirmationPage {
  action: string;
  fields: Record<string, string>;
  checkboxes: string[];
  cookie: string;
}

/** Reads a callback's answer as a confirmation page; throws (failing the test) when it is not one. */
export function confirmationPageOf(reply: { status: number; headers: Headers; body?: unknown }): ConfirmationPage {
  const page = String(reply.body);
  const action = /<form method="post" action="([^"]+)">/.exec(page)?.[1];
  const fields = consentFormFields(page);
  const checkboxes = [...page.matchAll(/<input type="checkbox" name="account" value="([^"]*)">/g)].map(
    ([, value]) => value!,
  );
  const cookie = reply.headers
    .getSetCookie()
    .map((header) => header.split(';')[0]!)
    .find((pair) => pair.startsWith('connect_confirmation='));
  if (reply.status !== 200 || !action || !cookie || !fields.state || !fields.confirmation) {
    throw new Error(`Not a confirmation page (${reply.status}): ${page.slice(0, 400)}`);
  }
  return { action, fields, checkboxes, cookie };
}

/**
 * The confirmation form posted back as a browser would: `decision` connect (the default) or cancel,
 * `accounts` ticked (a one-account page carries its account itself), with the page's cookie unless
 * `cookie` says otherwise (null: a browser without it).
 */
export function confirmationRequest(
  page: ConfirmationPage,
  options: {
    decision?: 'connect' | 'cancel';
    accounts?: string[];
    cookie?: string | null;
    fields?: Record<string, string>;
  } = {},
): [string, RequestInit] {
  const form = new URLSearchParams({ ...page.fields, ...options.fields, decision: options.decision ?? 'connect' });
  for (const account of options.accounts ?? []) form.append('account', account);
  const cookie = options.cookie === undefined ? page.cookie : options.cookie;
  return [
    page.action,
    {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie !== null && { cookie }) },
      body: form.toString(),
    },
  ];
}
