import { beforeEach, describe, expect, it } from 'vitest';
import { saveScreenshot, seriousAxeViolations } from '../helpers/browser.ts';
import { makeCampaign, makeContent } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { makePerson } from '../helpers/people.ts';
import { signIn, useDashboardBrowser } from './dashboard.ts';

const PAGES = [
  ['/app', 'home'],
  ['/app/accounts', 'accounts'],
  ['/app/webhooks', 'webhooks'],
  ['/app/keys', 'keys'],
  ['/app/members', 'members'],
  ['/app/campaigns', 'campaigns'],
] as const;

/** The admin pages in chromium: axe, loopback only, a screenshot each, and the key flow with JavaScript on and off. */
describe('admin pages in a browser', { timeout: 120_000 }, () => {
  const bed = useRestTestbed({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  const browser = useDashboardBrowser();
  let admin: { email: string; password: string };

  beforeEach(async () => {
    admin = await makePerson(bed.runtime, bed.ws.workspace.id, 'admin');
    await makeContent(bed.runtime, bed.ws.workspace, { status: 'pending_review' });
    await makeCampaign(bed.runtime, bed.ws.workspace, { name: 'Spring' });
    await call(bed.server, 'POST', '/api/v1/webhooks', {
      headers: bed.ws.headers,
      body: { url: 'http://127.0.0.1:9/hook', events: ['content.created'] },
    });
  });

  it('each page has no serious axe findings, asks nothing off loopback, and is screenshot', async () => {
    // axe is injected as an inline script, which the pages' CSP rightly refuses.
    const { page } = await browser.open({ bypassCSP: true });
    await signIn(page, bed.server.url, admin);
    for (const [path, name] of PAGES) {
      const response = await page.goto(`${bed.server.url}${path}`);
      expect(response?.status(), path).toBe(200);
      expect(await seriousAxeViolations(page), path).toEqual([]);
      await saveScreenshot(page, `admin-${name}`);
    }
  });

  for (const javaScriptEnabled of [true, false]) {
    it(`creates a key shown once and revokes it after confirming (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async () => {
      const { page } = await browser.open({ javaScriptEnabled });
      await signIn(page, bed.server.url, admin, '/app/keys');
      await page.getByLabel('Name', { exact: true }).fill(`Browser ${javaScriptEnabled}`);
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = await page.getByLabel('API key').inputValue();
      expect(key).toMatch(/^np_live_/);
      const me = () => call(bed.server, 'GET', '/api/v1/me', { headers: { authorization: `Bearer ${key}` } });
      expect((await me()).status).toBe(200);
      await page.reload();
      expect(await page.content()).not.toContain(key);
      await page.getByRole('link', { name: `Revoke Browser ${javaScriptEnabled}` }).click();
      await page.getByRole('button', { name: 'Revoke' }).click();
      await page.waitForURL(/done=revoked/);
      expect((await me()).status).toBe(401);
    });
  }
});
