import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { Browser } from '../helpers/form-browser.ts';
import { useRestTestbed, type RestTestbed } from '../helpers/http.ts';

/** A form POST to the dashboard as a browser sends it, with the page's cookies, token and Origin, raw. */
async function postRaw(
  bed: RestTestbed,
  browser: Browser,
  path: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
) {
  const res = await fetch(bed.server.url + path, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      origin: bed.server.url,
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    },
    body,
  });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/** The dashboard's own error page: its layout, the heading, no JSON envelope. */
function expectDashboardPage(reply: { type: string | null; text: string }, heading: string) {
  expect(reply.type).toMatch(/^text\/html/);
  expect(reply.text).toContain('<link rel="stylesheet" href="/app/assets/app.css">');
  expect(reply.text).toContain(heading);
  expect(reply.text).not.toContain('"error"');
}

describe('dashboard hardening', () => {
  const bed = useRestTestbed();

  it('forbids framing with frame-ancestors alone, without the contradicting X-Frame-Options', async () => {
    for (const path of ['/app/login', '/app/inbox', '/app/no-such-page']) {
      const res = await new Browser(bed).get(path);
      expect(res.headers.get('content-security-policy'), path).toMatch(/frame-ancestors 'none'/);
      expect(res.headers.get('x-frame-options'), path).toBeNull();
    }
  });

  it('answers a form body over the limit with the dashboard page and 413, not the JSON envelope', async () => {
    const browser = new Browser(bed);
    await browser.open('/app/login');
    const body = new URLSearchParams({ _csrf: browser.csrf, email: 'a@example.com', password: 'x'.repeat(70_000) });
    const reply = await postRaw(bed, browser, '/app/login', body.toString());
    expect(reply.status).toBe(413);
    expectDashboardPage(reply, 'That form could not be read');
    expect(reply.text).toContain('larger than the dashboard accepts');
  });

  it('answers a form in an unknown charset with the dashboard page and 415', async () => {
    const browser = new Browser(bed);
    await browser.open('/app/login');
    const body = new URLSearchParams({ _csrf: browser.csrf, email: 'a@example.com', password: 'secret' });
    const reply = await postRaw(bed, browser, '/app/login', body.toString(), {
      'content-type': 'application/x-www-form-urlencoded; charset=koi8-r',
    });
    expect(reply.status).toBe(415);
    expectDashboardPage(reply, 'That form could not be read');
  });

  it('answers an unknown Content-Encoding with 415, and bytes that are not what their encoding says with 400, both as pages', async () => {
    const browser = new Browser(bed);
    await browser.open('/app/login');
    const body = new URLSearchParams({ _csrf: browser.csrf, email: 'a@example.com', password: 'secret' }).toString();
    const unknown = await postRaw(bed, browser, '/app/login', body, { 'content-encoding': 'compress-9000' });
    expect(unknown.status).toBe(415);
    expectDashboardPage(unknown, 'That form could not be read');
    const garbled = await postRaw(bed, browser, '/app/login', gzipSync(body).subarray(0, 12), {
      'content-encoding': 'gzip',
    });
    expect(garbled.status).toBe(400);
    expectDashboardPage(garbled, 'That form could not be read');
  });
});
