import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SIGN_IN_FREE_FAILURES } from '../../src/core/people/sign-in-limits.ts';
import { makeContent, makeWorkspace } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { makePerson } from '../helpers/people.ts';
import { csrfOf, signIn, useDashboardBrowser } from './dashboard.ts';

/** The dashboard's defences, driven from a real browser: CSRF, sign-in limits, sign-out, isolation. */
describe('dashboard security in a browser', { timeout: 120_000 }, () => {
  const bed = useRestTestbed();
  const browser = useDashboardBrowser();
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  });

  const restStatus = async (id: string) =>
    (await call(bed.server, 'GET', `/api/v1/content/${id}`, { headers: bed.ws.headers })).body.status;

  /** Another site (another loopback origin) whose page holds a form aimed at the dashboard. */
  async function hostileSite(action: string): Promise<string> {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><title>Win a prize</title><form method="post" action="${action}">` +
          '<input type="hidden" name="_csrf" value="guessed"><button>Claim the prize</button></form>',
      );
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://localhost:${(server.address() as AddressInfo).port}/`;
  }

  it('a POST without the CSRF token, with a foreign Origin, or from another site answers 403 and changes nothing', async () => {
    const item = await makeContent(bed.runtime, bed.ws.workspace, { status: 'pending_review', caption: 'Guarded' });
    const approver = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
    const { page } = await browser.open();
    await signIn(page, bed.server.url, approver);
    const approve = `${bed.server.url}/app/content/${item.id}/approve`;

    const withoutToken = await page.request.post(approve, {
      form: { back: '/app/inbox' },
      headers: { origin: bed.server.url },
      maxRedirects: 0,
    });
    expect(withoutToken.status()).toBe(403);
    const foreignOrigin = await page.request.post(approve, {
      form: { _csrf: await csrfOf(page) },
      headers: { origin: 'https://evil.example' },
      maxRedirects: 0,
    });
    expect(foreignOrigin.status()).toBe(403);

    await page.goto(await hostileSite(approve));
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.url() === approve),
      page.getByRole('button', { name: 'Claim the prize' }).click(),
    ]);
    expect(answer.status()).toBe(403);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('This form cannot be used');
    expect(await restStatus(item.id)).toBe('pending_review');
  });

  it('past the free failures a new browser answers 429, even with the right password', async () => {
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'viewer');
    const { page } = await browser.open();
    await page.goto(`${bed.server.url}/app/login`);
    const attempt = async (password: string) => {
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password').fill(password);
      const [answer] = await Promise.all([
        page.waitForResponse((response) => response.request().method() === 'POST'),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      await page.waitForLoadState();
      return answer.status();
    };
    for (let i = 1; i <= SIGN_IN_FREE_FAILURES; i++) {
      expect(await attempt(`wrong guess ${i}`), `attempt ${i}`).toBe(401);
      await expect(page.getByRole('alert').textContent()).resolves.toMatch(
        /^That email and password do not match an account\./,
      );
    }
    expect(await attempt(person.password)).toBe(429);
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/^Too many failed sign-ins/);
  });

  it('after signing out, replaying the old session cookie lands on sign-in', async () => {
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'editor');
    const { page, context } = await browser.open();
    await signIn(page, bed.server.url, person);
    const cookies = await context.cookies();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${bed.server.url}/app/login`);
    const replay = await browser.open();
    await replay.context.addCookies(cookies);
    await replay.page.goto(`${bed.server.url}/app/inbox`);
    expect(new URL(replay.page.url()).pathname).toBe('/app/login');
    await expect(replay.page.getByRole('button', { name: 'Sign in' }).isVisible()).resolves.toBe(true);
  });

  it("another workspace's item answers 404, on its page and to an approve", async () => {
    const admin = await makePerson(bed.runtime, bed.ws.workspace.id, 'admin');
    const other = await makeWorkspace(bed.runtime);
    const foreign = await makeContent(bed.runtime, other.workspace, { status: 'pending_review', caption: 'Not yours' });
    const { page } = await browser.open();
    await signIn(page, bed.server.url, admin);
    const response = await page.goto(`${bed.server.url}/app/content/${foreign.id}`);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Not found');
    await expect(page.getByText('Not yours').count()).resolves.toBe(0);
    const approve = await page.request.post(`${bed.server.url}/app/content/${foreign.id}/approve`, {
      form: { _csrf: await csrfOf(page) },
      headers: { origin: bed.server.url },
      maxRedirects: 0,
    });
    expect(approve.status()).toBe(404);
    const stillWaiting = await call(bed.server, 'GET', `/api/v1/content/${foreign.id}`, { headers: other.headers });
    expect(stillWaiting.body.status).toBe('pending_review');
  });
});
