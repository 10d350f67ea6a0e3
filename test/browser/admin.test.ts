import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCampaign, makeContent, makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { launchBrowser, loopbackContext, saveScreenshot, seriousAxeViolations } from '../helpers/browser.ts';
import { call, startTestServer, type TestServer } from '../helpers/http.ts';
import { makePerson } from '../helpers/people.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';

const PAGES = [
  ['/app', 'home'],
  ['/app/accounts', 'accounts'],
  ['/app/webhooks', 'webhooks'],
  ['/app/keys', 'keys'],
  ['/app/members', 'members'],
  ['/app/campaigns', 'campaigns'],
] as const;

/** The admin pages in chromium: axe, loopback only, a screenshot each, and the key flow with JavaScript on and off. */
describe('admin pages in a browser', () => {
  let browser: Browser;
  let runtime: TestRuntime;
  let server: TestServer;
  let ws: TestWorkspace;
  let admin: { email: string; password: string };

  beforeAll(async () => {
    runtime = testRuntime({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    server = await startTestServer(runtime);
    ws = makeWorkspace(runtime);
    admin = await makePerson(runtime, ws.workspace.id, 'admin');
    makeContent(runtime, ws.workspace, { status: 'pending_review' });
    makeCampaign(runtime, ws.workspace, { name: 'Spring' });
    await call(server, 'POST', '/api/v1/webhooks', {
      headers: ws.headers,
      body: { url: 'http://127.0.0.1:9/hook', events: ['content.created'] },
    });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const signedInPage = async (javaScriptEnabled: boolean, options: { bypassCSP?: boolean } = {}) => {
    const guarded = await loopbackContext(browser, { javaScriptEnabled, ...options });
    const page = await guarded.context.newPage();
    await page.goto(`${server.url}/app/login`);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill(admin.password);
    await Promise.all([
      page.waitForURL(/\/app\/inbox/, { waitUntil: 'domcontentloaded' }),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]).catch(async (error) => {
      throw new Error(`${(error as Error).message}\n${page.url()}\n${(await page.content()).slice(0, 1500)}`);
    });
    return { page, ...guarded };
  };

  it('each page has no serious axe findings, asks nothing off loopback, and is screenshot', async () => {
    // axe is injected as an inline script, which the pages' CSP rightly refuses.
    const { page, context, blockedRequests } = await signedInPage(true, { bypassCSP: true });
    for (const [path, name] of PAGES) {
      const response = await page.goto(`${server.url}${path}`);
      expect(response?.status(), path).toBe(200);
      expect(await seriousAxeViolations(page), path).toEqual([]);
      await saveScreenshot(page, `admin-${name}`);
    }
    expect(blockedRequests).toEqual([]);
    await context.close();
  }, 120_000);

  for (const javaScriptEnabled of [true, false]) {
    it(`creates a key shown once and revokes it after confirming (JavaScript ${javaScriptEnabled ? 'on' : 'off'})`, async () => {
      const { page, context, blockedRequests } = await signedInPage(javaScriptEnabled);
      await page.goto(`${server.url}/app/keys`);
      await page.getByLabel('Name', { exact: true }).fill(`Browser ${javaScriptEnabled}`);
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = await page.getByLabel('API key').inputValue();
      expect(key).toMatch(/^np_live_/);
      expect((await call(server, 'GET', '/api/v1/me', { headers: { authorization: `Bearer ${key}` } })).status).toBe(
        200,
      );
      await page.reload();
      expect(await page.content()).not.toContain(key);
      await page.getByRole('link', { name: `Revoke Browser ${javaScriptEnabled}` }).click();
      await page.getByRole('button', { name: 'Revoke' }).click();
      await page.waitForURL(/done=revoked/);
      expect((await call(server, 'GET', '/api/v1/me', { headers: { authorization: `Bearer ${key}` } })).status).toBe(
        401,
      );
      expect(blockedRequests).toEqual([]);
      await context.close();
    }, 120_000);
  }
});
