import { createServer, type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startFakeBluesky, type FakeBluesky } from '../../fakes/bluesky.ts';
import { fakePlatformEnvironment } from '../../fakes/environment.ts';
import { startFakeFacebook, type FakeFacebook } from '../../fakes/facebook.ts';
import { startFakeX, type FakeX } from '../../fakes/x.ts';
import { createApp } from '../../src/app.ts';
import { connectSocialAccount } from '../../src/core/social-accounts/operations.ts';
import { drain } from '../../src/jobs/drain.ts';
import { publishingJob } from '../../src/jobs/publish-run.ts';
import { saveScreenshot, seriousAxeViolations } from '../helpers/browser.ts';
import { makeWorkspace, type TestWorkspace } from '../helpers/factories.ts';
import { call, checkedFetch, type TestServer } from '../helpers/http.ts';
import { makePerson } from '../helpers/people.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';
import { DESKTOP, NARROW, sidewaysOverflow, signIn, useDashboardBrowser } from './dashboard.ts';

/** The Facebook user of the fake who administers three Pages: connecting them goes through the picker. */
const AGENCY_ADMIN = '10200000000000002';

/** A loopback port nobody listens on now, so the service can be told its own address before it starts. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

/**
 * The accounts page in chromium, connecting through the fake platforms' real consent pages and back.
 * The service's PUBLIC_BASE_URL is its own loopback address here, so the OAuth callback the platform
 * redirects the browser to is this server (the shared testbed names port 3000, which a browser cannot
 * follow).
 */
describe('the accounts page in a browser', { timeout: 120_000 }, () => {
  const browser = useDashboardBrowser();
  let x: FakeX;
  let bluesky: FakeBluesky;
  let facebook: FakeFacebook;
  let runtime: TestRuntime | undefined;
  let server: TestServer;
  let ws: TestWorkspace;
  let admin: { email: string; password: string };

  beforeAll(async () => {
    // The fakes keep the service's time, so tokens expire when the service thinks they do.
    const now = () => (runtime ? runtime.clock.now().getTime() : Date.now());
    [x, bluesky, facebook] = await Promise.all([
      startFakeX({ now }),
      startFakeBluesky({ now }),
      startFakeFacebook({ now }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([x?.close(), bluesky?.close(), facebook?.close()]);
  });
  beforeEach(async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    runtime = await testRuntime({
      // The browser judges cookie expiry by its own clock: the service's starts at the same time.
      start: new Date().toISOString(),
      env: { ...fakePlatformEnvironment({ x, bluesky, facebook }), PUBLIC_BASE_URL: url },
    });
    const listening = createApp(runtime).listen(port, '127.0.0.1');
    await new Promise<void>((resolve) => listening.once('listening', () => resolve()));
    server = {
      url,
      request: (path, init) => checkedFetch(url + path, init),
      close: () =>
        new Promise<void>((resolve) => {
          listening.closeAllConnections();
          listening.close(() => resolve());
        }),
    };
    ws = await makeWorkspace(runtime);
    admin = await makePerson(runtime, ws.workspace.id, 'admin');
    x.script.loginAs(x.users[0]!.id);
    facebook.script.loginAs(facebook.users[0]!.id);
  });
  afterEach(async () => {
    await server.close();
  });

  const rest = (method: string, path: string, body?: unknown) =>
    call(server, method, path, { headers: ws.headers, ...(body !== undefined && { body }) });
  const restAccounts = async (): Promise<any[]> => (await rest('GET', '/api/v1/social-accounts')).body.data;
  const card = (page: Page, name: string) => page.getByRole('article', { name });
  const cardText = async (page: Page, name: string) => (await card(page, name).innerText()).replace(/\s+/g, ' ');
  /** As the page shows times: the workspace's zone (UTC here), British medium date and short time. */
  const shownTime = (iso: string) =>
    new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', dateStyle: 'medium', timeStyle: 'short' }).format(
      new Date(iso),
    );

  const signedIn = async (javaScriptEnabled = true, options: { bypassCSP?: boolean } = {}) => {
    const { page } = await browser.open({ javaScriptEnabled, ...options });
    await signIn(page, server.url, admin, '/app/accounts');
    return page;
  };

  /** Clicks "Connect X" (or "Reconnect"), goes through X's consent page, and waits to be back on the accounts page. */
  const throughXConsent = async (page: Page, button: string) => {
    const consentsBefore = x.log.calls('authorize').length;
    await page.getByRole('button', { name: button }).click();
    await page.waitForURL(`${server.url}/app/accounts?**`);
    // The browser itself went to the platform's consent page, which redirected it back.
    expect(
      x.log
        .calls('authorize')
        .slice(consentsBefore)
        .map((entry) => entry.status),
    ).toEqual([302]);
  };

  /** Publishes a text post to X now, through REST and the publishing run; answers the item afterwards. */
  const publishToX = async (caption: string) => {
    const created = await rest('POST', '/api/v1/content', {
      caption,
      content_type: 'text_only',
      target_platforms: ['twitter'],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const queued = await rest('POST', `/api/v1/content/${created.body.id}/publish`, {});
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    await drain(runtime!, publishingJob(runtime!));
    return (await rest('GET', `/api/v1/content/${created.body.id}`)).body;
  };

  for (const javaScriptEnabled of [true, false]) {
    const mode = `JavaScript ${javaScriptEnabled ? 'on' : 'off'}`;

    it(`"Connect X" goes through X's consent page and comes back to the account, Active (${mode})`, async () => {
      const page = await signedIn(javaScriptEnabled);
      const user = x.users[0]!;
      await throughXConsent(page, 'Connect X');
      await expect(page.getByRole('status').first().innerText()).resolves.toBe('Connected 1 account.');

      const [account] = await restAccounts();
      expect(account).toMatchObject({ platform: 'twitter', mode: 'live', status: 'active', username: user.username });
      // X's access token lives two hours from the moment of consent.
      expect(account.token_expires_at).toBe(new Date(runtime!.clock.now().getTime() + 7200_000).toISOString());
      const name = `X · @${user.username}`;
      const text = await cardText(page, name);
      expect(text).toContain('Active · Live');
      expect(text).toContain(`Token expires: ${shownTime(account.token_expires_at)}`);
      await expect(
        card(page, name)
          .getByRole('link', { name: `Profile of @${user.username} on X` })
          .getAttribute('href'),
      ).resolves.toBe(`https://x.com/${user.username}`);
    });

    it(`"Connect Bluesky" with an app password connects; a wrong one says so and stores nothing (${mode})`, async () => {
      const page = await signedIn(javaScriptEnabled);
      const account = bluesky.accounts[0]!;
      const form = page.getByRole('form', { name: 'Connect Bluesky' });
      await form.getByLabel('Handle or email').fill(account.handle);
      await form.getByLabel('App password').fill('wrong-pass-word-here');
      const [refusal] = await Promise.all([
        page.waitForResponse(`${server.url}/app/accounts/connect-credentials`),
        form.getByRole('button', { name: 'Connect Bluesky' }).click(),
      ]);
      expect(refusal.status()).toBe(422);
      await page.waitForLoadState();
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('That did not work');
      // Bluesky's own reason, relayed.
      await expect(page.locator('main').innerText()).resolves.toContain('Invalid identifier or password');
      expect(await page.content()).not.toContain('wrong-pass-word-here');
      expect(await restAccounts()).toEqual([]);

      await page.goto(`${server.url}/app/accounts`);
      await form.getByLabel('Handle or email').fill(account.email);
      await form.getByLabel('App password').fill(account.appPassword);
      await form.getByRole('button', { name: 'Connect Bluesky' }).click();
      await page.waitForURL(`${server.url}/app/accounts?**`);
      await expect(page.getByRole('status').first().innerText()).resolves.toBe('Connected 1 account.');
      expect(await cardText(page, `Bluesky · @${account.handle}`)).toContain('Active · Live');
      expect(await restAccounts()).toEqual([
        expect.objectContaining({ platform: 'bluesky', status: 'active', username: account.handle }),
      ]);
    });

    it(`an account revoked at X shows "Needs reconnect" after its next publish; "Reconnect" makes it Active again (${mode})`, async () => {
      const page = await signedIn(javaScriptEnabled);
      const user = x.users[0]!;
      await throughXConsent(page, 'Connect X');
      const [connected] = await restAccounts();

      // The person removes the app at X: the tokens the service holds now answer 401.
      x.script.revoke(user.id);
      const refused = await publishToX(`Refused after the revoke (${mode})`);
      expect(refused.status).toBe('approved');
      expect(refused.publish_results[0]).toMatchObject({ success: false, error: expect.stringMatching(/reconnect/i) });

      await page.goto(`${server.url}/app/accounts`);
      const name = `X · @${user.username}`;
      expect(await cardText(page, name)).toContain('Needs reconnect · Live');
      await throughXConsent(page, `Reconnect @${user.username} on X`);
      expect(await cardText(page, name)).toContain('Active · Live');
      await expect(page.getByRole('button', { name: `Reconnect @${user.username} on X` }).count()).resolves.toBe(0);
      // The same account came back, not a second one, and it publishes again.
      expect(await restAccounts()).toEqual([expect.objectContaining({ id: connected.id, status: 'active' })]);
      expect((await publishToX(`Published after reconnecting (${mode})`)).status).toBe('published');
    });

    it(`"Disconnect" asks first: Cancel leaves the account, confirming marks it Disconnected (${mode})`, async () => {
      const account = await connectSocialAccount(runtime!, {
        workspaceId: ws.workspace.id,
        platform: 'twitter',
        username: 'sandboxed',
      });
      const page = await signedIn(javaScriptEnabled);
      const name = 'X · @sandboxed';
      await page.getByRole('link', { name: 'Disconnect @sandboxed on X' }).click();
      await expect(page.getByText('Disconnect @sandboxed on X?').isVisible()).resolves.toBe(true);
      await page.getByRole('link', { name: 'Cancel' }).click();
      await page.waitForURL(`${server.url}/app/accounts`);
      expect(await cardText(page, name)).toContain('Active · Sandbox');
      expect((await restAccounts())[0]).toMatchObject({ id: account.id, status: 'active' });

      await page.getByRole('link', { name: 'Disconnect @sandboxed on X' }).click();
      await page.getByRole('button', { name: 'Disconnect' }).click();
      await page.waitForURL(`${server.url}/app/accounts?done=disconnected`);
      await expect(page.getByRole('status').first().innerText()).resolves.toBe('Account disconnected.');
      expect(await cardText(page, name)).toContain('Disconnected · Sandbox');
      await expect(page.getByRole('link', { name: 'Disconnect @sandboxed on X' }).count()).resolves.toBe(0);
      expect((await restAccounts())[0]).toMatchObject({ id: account.id, status: 'disconnected' });
    });
  }

  it('"Connect Facebook" with a login that manages several Pages asks which to connect, then shows them', async () => {
    facebook.script.loginAs(AGENCY_ADMIN);
    const page = await signedIn();
    await page.getByRole('button', { name: 'Connect Facebook' }).click();
    await page.getByRole('checkbox', { name: 'Agency One' }).check();
    await page.getByRole('checkbox', { name: 'Agency Three' }).check();
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await page.waitForURL(`${server.url}/app/accounts?**`);
    await expect(page.getByRole('status').first().innerText()).resolves.toBe('Connected 2 accounts.');
    const pages = (await restAccounts()).map((account) => account.username).sort();
    expect(pages).toEqual(['Agency One', 'Agency Three']);
    for (const pageName of pages) expect(await cardText(page, `Facebook · ${pageName}`)).toContain('Active · Live');
  });

  it('with a card in each status, the page names the variables of unconfigured platforms, passes axe and fits 360 px', async () => {
    const user = x.users[0]!;
    await connectSocialAccount(runtime!, { workspaceId: ws.workspace.id, platform: 'linkedin', username: 'gone' });
    const page = await signedIn(true, { bypassCSP: true });
    await throughXConsent(page, 'Connect X');
    x.script.revoke(user.id);
    await publishToX('Refused, for the screenshot');
    const shown = await page.goto(`${server.url}/app/accounts`);
    // The page's forms may lead to the configured platforms' consent pages, and to nowhere else.
    const formAction = (await shown!.headerValue('content-security-policy'))!
      .split(';')
      .find((directive) => directive.startsWith('form-action'));
    expect(formAction).toBe(`form-action 'self' ${new URL(x.url).origin} ${new URL(facebook.url).origin}`);
    await page.getByRole('link', { name: 'Disconnect gone on LinkedIn' }).click();
    await page.getByRole('button', { name: 'Disconnect' }).click();
    const account = bluesky.accounts[0]!;
    await page.getByLabel('Handle or email').fill(account.handle);
    await page.getByLabel('App password').fill(account.appPassword);
    await page.getByRole('button', { name: 'Connect Bluesky' }).click();
    await page.waitForURL(`${server.url}/app/accounts?**`);

    expect(await cardText(page, `X · @${user.username}`)).toContain('Needs reconnect');
    expect(await cardText(page, 'LinkedIn · gone')).toContain('Disconnected');
    expect(await cardText(page, `Bluesky · @${account.handle}`)).toContain('Active');
    // LinkedIn has no app configured here: the page says what the operator sets.
    await expect(page.getByRole('listitem').filter({ hasText: 'LinkedIn:' }).innerText()).resolves.toBe(
      'LinkedIn: not configured. The operator sets LINKEDIN_CLIENT_ID and LINKEDIN_CLIENT_SECRET, then restarts the service.',
    );
    // The two fields of the Bluesky form look alike (the handle's once lacked the text field's style).
    const form = page.getByRole('form', { name: 'Connect Bluesky' });
    const heights = await Promise.all(
      ['Handle or email', 'App password'].map(async (label) => (await form.getByLabel(label).boundingBox())!.height),
    );
    expect(heights[0]).toBe(heights[1]);
    const findings = [];
    for (const [viewport, width] of [
      [DESKTOP, 'desktop'],
      [NARROW, '360'],
    ] as const) {
      await page.setViewportSize(viewport);
      findings.push(...(await seriousAxeViolations(page)));
      await saveScreenshot(page, `admin-accounts-statuses-${width}`);
      expect(await sidewaysOverflow(page), `sideways scrolling at ${width}`).toBeLessThanOrEqual(0);
    }
    expect(findings).toEqual([]);
  });
});
