import { eq } from 'drizzle-orm';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { content, socialAccounts } from '../../db/schema/index.ts';
import { connectSocialAccount } from '../../src/core/social-accounts/operations.ts';
import { invitePerson } from '../../src/core/people/invitations.ts';
import { makeCampaign, makeContent, makeWebhook, makeWorkspace } from '../helpers/factories.ts';
import { saveScreenshot, seriousAxeViolations } from '../helpers/browser.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { makePerson } from '../helpers/people.ts';
import { recordPublishRun } from '../helpers/publish-history.ts';
import { DESKTOP, NARROW, signIn, sidewaysOverflow, useDashboardBrowser } from './dashboard.ts';
import { sql } from 'drizzle-orm';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const MODES = [true, false] as const;
const jsLabel = (javaScriptEnabled: boolean) => `JavaScript ${javaScriptEnabled ? 'on' : 'off'}`;

/**
 * Members, keys, home, campaigns and the admin-only pages in chromium, as people use them: every form
 * with JavaScript on and off, axe, a screenshot per page at desktop and phone widths, loopback only.
 */
describe('members, keys, home and campaigns in a browser', { timeout: 120_000 }, () => {
  const bed = useRestTestbed({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  const browser = useDashboardBrowser();

  const rest = async (method: string, path: string, body?: unknown) =>
    call(bed.server, method, path, { headers: bed.ws.headers, body });
  /** A person of `role` signed in on a fresh page, on `next`. */
  const signedIn = async (
    role: 'admin' | 'approver' | 'editor' | 'viewer',
    javaScriptEnabled = true,
    next = '/app',
    options: BrowserContextOptions = {},
  ) => {
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, role);
    const { page } = await browser.open({ javaScriptEnabled, ...options });
    await signIn(page, bed.server.url, person, next);
    return { page, person };
  };
  /** The items a content list (the inbox, /app/content) shows; their preview cards are articles too. */
  const listedItems = (page: Page) => page.locator('ol.items > li.item').count();
  const noticeOf = (page: Page) => page.locator('p.notice[role="status"]').textContent();
  const go = async (page: Page, path: string) => {
    const response = await page.goto(`${bed.server.url}${path}`);
    return response!.status();
  };
  /** The buttons and action links in the page's tables whose words wrap over more than one line ("Remov/e"). */
  const brokenActions = (page: Page): Promise<string[]> =>
    page.evaluate(`[...document.querySelectorAll('table.list button, table.list td.actions a')]
      .filter((control) => {
        const range = document.createRange();
        range.selectNodeContents(control);
        return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size > 1;
      })
      .map((control) => control.textContent)`);
  /** The number shown before a home count's label, from the link (or text) a person reads. */
  const countOn = async (page: Page, label: string) => {
    const text = await page.locator('ul.counts li', { hasText: label }).textContent();
    return Number(/(\d+)/.exec(text ?? '')?.[1]);
  };

  describe('members', () => {
    for (const javaScriptEnabled of MODES) {
      it(`"Invite" shows a link; the new person sets a password and signs in with the invited role (${jsLabel(javaScriptEnabled)})`, async () => {
        const { page } = await signedIn('admin', javaScriptEnabled, '/app/members', {
          permissions: ['clipboard-read', 'clipboard-write'],
        });
        const email = `new-viewer-${javaScriptEnabled}@example.com`;
        await page.getByLabel('Email', { exact: true }).fill(email);
        await page.getByLabel('Role', { exact: true }).selectOption('viewer');
        await page.getByRole('button', { name: 'Invite', exact: true }).click();
        await page.waitForURL(`${bed.server.url}/app/members`);
        await expect(noticeOf(page)).resolves.toBe(`Invited ${email}.`);
        const link = await page.getByRole('textbox', { name: 'Invite link' }).inputValue();
        expect(link).toMatch(/^http:\/\/.+\/app\/invite\?token=/);
        if (javaScriptEnabled) {
          // "Copy" puts the whole link on the clipboard; without JavaScript the field is there to copy by hand.
          await page.getByRole('button', { name: 'Copy' }).click();
          await page.getByRole('button', { name: 'Copied' }).waitFor();
          expect(await page.evaluate('navigator.clipboard.readText()')).toBe(link);
        }
        // The link is shown once: reloading the page does not show it again.
        await page.reload();
        await expect(page.getByRole('textbox', { name: 'Invite link' }).count()).resolves.toBe(0);
        expect(await page.content()).not.toContain(link);
        const invites = page.getByRole('table').nth(1);
        await expect(invites.getByRole('row', { name: new RegExp(email) }).textContent()).resolves.toContain('viewer');

        // The new person, in another browser, opens the link, chooses a password and is signed in.
        await makeContent(bed.runtime, bed.ws.workspace, { status: 'pending_review', caption: 'Waiting for review' });
        const newcomer = (await browser.open({ javaScriptEnabled })).page;
        await newcomer.goto(link.replace(/^https?:\/\/[^/]+/, bed.server.url));
        await newcomer.getByLabel('Password', { exact: true }).fill('a fresh long password');
        await newcomer.getByRole('button', { name: 'Accept the invitation' }).click();
        await newcomer.waitForURL(/\/app(\/|$|\?)/);
        await go(newcomer, '/app/inbox');
        await expect(newcomer.getByRole('article', { name: 'Waiting for review' }).count()).resolves.toBe(1);
        // A viewer: no action buttons, and the admin pages are closed.
        for (const name of ['Approve only', 'Approve and publish now', 'Reject', 'Approve selected', 'Reject selected'])
          await expect(newcomer.getByRole('button', { name, exact: true }).count(), name).resolves.toBe(0);
        expect(await go(newcomer, '/app/members')).toBe(403);

        // And the admin sees them as an active viewer, no longer pending.
        await page.reload();
        const row = page
          .getByRole('table')
          .first()
          .getByRole('row', { name: new RegExp(email) });
        await expect(row.textContent()).resolves.toContain('Active');
        await expect(page.getByLabel(`Role of ${email}`, { exact: true }).inputValue()).resolves.toBe('viewer');
        await expect(page.getByText('No invites are waiting.').count()).resolves.toBe(1);
      });

      it(`"Change role" and "Remove" after confirming (${jsLabel(javaScriptEnabled)})`, async () => {
        const editor = await makePerson(bed.runtime, bed.ws.workspace.id, 'editor');
        const { page } = await signedIn('admin', javaScriptEnabled, '/app/members');
        await page.getByLabel(`Role of ${editor.email}`, { exact: true }).selectOption('approver');
        await page.getByRole('button', { name: `Change role of ${editor.email}` }).click();
        await page.waitForURL(/done=role/);
        await expect(noticeOf(page)).resolves.toBe('Role changed.');
        await expect(page.getByLabel(`Role of ${editor.email}`, { exact: true }).inputValue()).resolves.toBe(
          'approver',
        );
        // The new role holds at once: they may approve now.
        const promoted = (await browser.open({ javaScriptEnabled })).page;
        await makeContent(bed.runtime, bed.ws.workspace, { status: 'pending_review', caption: 'Needs an approver' });
        await signIn(promoted, bed.server.url, editor);
        await expect(
          promoted
            .getByRole('article', { name: 'Needs an approver' })
            .getByRole('button', { name: 'Approve only', exact: true })
            .count(),
        ).resolves.toBe(1);

        await page.getByRole('link', { name: `Remove ${editor.email}` }).click();
        await expect(page.getByText(`Remove ${editor.email} (approver)`).count()).resolves.toBe(1);
        await page.getByRole('button', { name: 'Remove' }).click();
        await page.waitForURL(/done=removed/);
        await expect(noticeOf(page)).resolves.toBe('Removed from the workspace.');
        await expect(page.getByLabel(`Role of ${editor.email}`, { exact: true }).count()).resolves.toBe(0);
        // Removed means signed out of the workspace at once.
        await promoted.goto(`${bed.server.url}/app/inbox`);
        expect(promoted.url()).toContain('/app/login');
      });

      it(`pending invites are listed and "Withdraw" makes the link stop working (${jsLabel(javaScriptEnabled)})`, async () => {
        const { page } = await signedIn('admin', javaScriptEnabled, '/app/members');
        const email = `withdrawn-${javaScriptEnabled}@example.com`;
        await page.getByLabel('Email', { exact: true }).fill(email);
        await page.getByLabel('Role', { exact: true }).selectOption('editor');
        await page.getByRole('button', { name: 'Invite', exact: true }).click();
        const link = await page.getByRole('textbox', { name: 'Invite link' }).inputValue();
        const pending = page.getByRole('row', { name: new RegExp(`^${email.replace(/\./g, '\\.')} editor`) });
        await expect(pending.count()).resolves.toBe(1);
        await page.getByRole('button', { name: `Withdraw the invite of ${email}` }).click();
        await page.waitForURL(/done=withdrawn/);
        await expect(noticeOf(page)).resolves.toBe('Invite withdrawn: the link no longer works.');
        await expect(page.getByRole('button', { name: `Withdraw the invite of ${email}` }).count()).resolves.toBe(0);
        expect(await go(page, link.replace(/^https?:\/\/[^/]+/, ''))).toBe(404);
        await expect(page.getByRole('heading', { name: 'This link cannot be used' }).count()).resolves.toBe(1);
      });

      it(`the last admin can be neither demoted nor removed: a clear message, nothing changes (${jsLabel(javaScriptEnabled)})`, async () => {
        const { page, person } = await signedIn('admin', javaScriptEnabled, '/app/members');
        await page.getByLabel(`Role of ${person.email}`, { exact: true }).selectOption('editor');
        const demote = page.waitForResponse((r) => r.request().method() === 'POST');
        await page.getByRole('button', { name: `Change role of ${person.email}` }).click();
        expect((await demote).status()).toBe(409);
        await expect(page.locator('main').textContent()).resolves.toContain('last admin');

        await go(page, '/app/members');
        await expect(page.getByLabel(`Role of ${person.email}`, { exact: true }).inputValue()).resolves.toBe('admin');
        await page.getByRole('link', { name: `Remove ${person.email}` }).click();
        const remove = page.waitForResponse((r) => r.request().method() === 'POST');
        await page.getByRole('button', { name: 'Remove' }).click();
        expect((await remove).status()).toBe(409);
        await expect(page.locator('main').textContent()).resolves.toContain('last admin');
        // Still an admin, still signed in.
        expect(await go(page, '/app/members')).toBe(200);
        await expect(page.getByLabel(`Role of ${person.email}`, { exact: true }).inputValue()).resolves.toBe('admin');
      });
    }
  });

  it('keys: the list shows name, np_live_… with the last 4, created, last used and expiry; never a whole key', async () => {
    const { page } = await signedIn('admin', true, '/app/keys');
    await page.getByLabel('Name', { exact: true }).fill('Zapier');
    await page.getByLabel('Expires on (optional)').fill('2026-12-31');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByLabel('API key').inputValue();
    expect((await call(bed.server, 'GET', '/api/v1/me', { headers: { authorization: `Bearer ${key}` } })).status).toBe(
      200,
    );
    await go(page, '/app/keys');
    const html = await page.content();
    expect(html).not.toContain(key);
    expect(html).not.toContain(bed.ws.apiKey);
    const headers = await page.getByRole('columnheader').allTextContents();
    expect(headers.slice(0, 5)).toEqual(['Name', 'Key', 'Created', 'Last used', 'Expires']);
    const cells = await page
      .getByRole('row', { name: /Zapier/ })
      .getByRole('cell')
      .allTextContents();
    expect(cells[0]).toBe('Zapier');
    expect(cells[1]).toBe(`np_live_…${key.slice(-4)}`);
    expect(cells[2]).toMatch(/2026/);
    // Used once above, at the runtime's clock.
    expect(cells[3]).not.toBe('Never');
    expect(cells[3]).toMatch(/2026/);
    expect(cells[4]).toMatch(/2026/);
    expect(cells[4]).toMatch(/Dec|12/);
    // The workspace's own key, never used through REST here and without expiry.
    const own = await page
      .getByRole('row', { name: new RegExp(`…${bed.ws.apiKey.slice(-4)}`) })
      .getByRole('cell')
      .allTextContents();
    expect(own[4]).toBe('Never');
  });

  it('home: every count equals the REST list behind it and links to it; the next 5 scheduled; usage as GET /api/v1/me', async () => {
    const { workspace } = bed.ws;
    const now = bed.runtime.clock.now().getTime();
    for (let i = 0; i < 2; i++)
      await makeContent(bed.runtime, workspace, { status: 'pending_review', caption: `Pending ${i}` });
    for (const days of [0.5, 1, 2, 3, 4, 6, 9]) {
      await makeContent(bed.runtime, workspace, {
        caption: `In ${days} days`,
        status: 'scheduled',
        scheduled_for: new Date(now + days * DAY).toISOString(),
        target_platforms: ['twitter'],
      });
    }
    for (const hours of [2, 20, 30]) {
      await recordPublishRun(bed.runtime, workspace, {
        finishedAt: new Date(now - hours * HOUR),
        platforms: { twitter: 'rejected' },
      });
    }
    await recordPublishRun(bed.runtime, workspace, {
      finishedAt: new Date(now - HOUR),
      platforms: { twitter: 'published' },
    });
    const stale = await connectSocialAccount(bed.runtime, {
      workspaceId: workspace.id,
      platform: 'twitter',
      username: 'stale',
    });
    await bed.runtime.db
      .update(socialAccounts)
      .set({ mode: 'live', status: 'needs_reconnect' })
      .where(eq(socialAccounts.id, stale.id))
      .run();
    await connectSocialAccount(bed.runtime, { workspaceId: workspace.id, platform: 'linkedin', username: 'fine' });
    const hook = await makeWebhook(bed.runtime, workspace, { url: 'http://127.0.0.1:9/off' });
    await makeWebhook(bed.runtime, workspace, { url: 'http://127.0.0.1:9/on' });
    expect((await rest('PATCH', `/api/v1/webhooks/${hook.id}`, { is_enabled: false })).status).toBe(200);

    const { page } = await signedIn('admin', true, '/app');
    const weekAhead = new Date(now + 7 * DAY).toISOString();
    const lists = {
      'Awaiting approval': (await rest('GET', '/api/v1/content?status=pending_review&limit=100')).body.data,
      'Scheduled (next 7 days)': (
        await rest(
          'GET',
          `/api/v1/content?status=scheduled&scheduled_from=${new Date(now).toISOString()}&scheduled_to=${weekAhead}&limit=100`,
        )
      ).body.data,
      'Accounts to reconnect': (await rest('GET', '/api/v1/social-accounts')).body.data.filter(
        (a: { status: string }) => a.status === 'needs_reconnect',
      ),
      'Disabled webhooks': (await rest('GET', '/api/v1/webhooks')).body.data.filter(
        (w: { is_enabled: boolean }) => !w.is_enabled,
      ),
    };
    const failedLink = await page.getByRole('link', { name: /Failed \(last 24 hours\)/ }).getAttribute('href');
    const failedSince = new URL(failedLink!, bed.server.url).searchParams.get('failed_since')!;
    expect(new Date(failedSince).getTime()).toBe(now - DAY);
    const failed = (await rest('GET', `/api/v1/content?failed_since=${encodeURIComponent(failedSince)}&limit=100`)).body
      .data;
    expect(failed).toHaveLength(2);

    const expected = { ...lists, 'Failed (last 24 hours)': failed };
    for (const [label, list] of Object.entries(expected)) expect(await countOn(page, label), label).toBe(list.length);
    expect(Object.values(expected).map((list) => list.length)).toEqual([2, 6, 1, 1, 2]);

    // Each count's link lands on its list.
    const landings: Array<[string, RegExp, (p: Page) => Promise<number>]> = [
      ['Awaiting approval', /\/app\/inbox$/, listedItems],
      ['Scheduled (next 7 days)', /\/app\/content\?status=scheduled&scheduled_from=.+&scheduled_to=/, listedItems],
      ['Failed (last 24 hours)', /\/app\/content\?failed_since=/, listedItems],
      ['Accounts to reconnect', /\/app\/accounts$/, (p) => p.getByText('Needs reconnect', { exact: true }).count()],
    ];
    for (const [label, url, listed] of landings) {
      await go(page, '/app');
      await page.getByRole('link', { name: label }).click();
      await page.waitForURL(url);
      expect(await listed(page), label).toBe(expected[label as keyof typeof expected].length);
    }
    await go(page, '/app');
    await page.getByRole('link', { name: 'Failed (last 24 hours)' }).click();
    await expect(page.locator('#failed-since').textContent()).resolves.toMatch(/^Failed since /);
    for (const item of failed) await expect(page.locator(`#item-${item.id}`).count(), item.id).resolves.toBe(1);
    // A date-time the list cannot read is refused plainly, as on REST.
    expect(await go(page, '/app/content?failed_since=yesterday')).toBe(400);
    await expect(page.locator('main').textContent()).resolves.toContain('ISO 8601');
    await go(page, '/app');
    await page.getByRole('link', { name: 'Scheduled (next 7 days)' }).click();
    await expect(page.locator('#scheduled-window').textContent()).resolves.toMatch(/^Scheduled from .+ before /);
    for (const item of lists['Scheduled (next 7 days)'])
      await expect(page.locator(`#item-${item.id}`).count(), item.caption).resolves.toBe(1);
    await go(page, '/app');
    await page.getByRole('link', { name: 'Disabled webhooks' }).click();
    await page.waitForURL(/\/app\/webhooks$/);
    await expect(page.getByText('http://127.0.0.1:9/off').count()).resolves.toBeGreaterThan(0);

    // The next 5 scheduled posts, soonest first, as REST orders them by scheduled_for.
    await go(page, '/app');
    const next = await page
      .getByRole('heading', { name: 'Next scheduled posts' })
      .locator('xpath=following-sibling::ol[1]/li/a')
      .allTextContents();
    expect(next).toEqual(['In 0.5 days', 'In 1 days', 'In 2 days', 'In 3 days', 'In 4 days']);

    // Usage: the numbers of GET /api/v1/me.
    const me = (await rest('GET', '/api/v1/me')).body;
    const usage = async (what: string) =>
      page
        .getByRole('row', { name: new RegExp(`^${what}`) })
        .getByRole('cell')
        .allTextContents();
    expect(await usage('Posts published')).toEqual([
      'Posts published',
      String(me.usage.posts_published),
      String(me.features.posts_per_month),
    ]);
    expect(await usage('AI credits')).toEqual([
      'AI credits',
      String(me.usage.ai_credits_used),
      String(me.features.monthly_ai_credits),
    ]);
    const active = (await rest('GET', '/api/v1/social-accounts')).body.data.filter(
      (a: { status: string }) => a.status === 'active',
    ).length;
    expect(await usage('Active accounts')).toEqual([
      'Active accounts',
      String(active),
      String(me.features.platforms_limit),
    ]);
  });

  describe('campaigns', () => {
    for (const javaScriptEnabled of MODES) {
      it(`progress, status and drafts for everyone; "Launch" for approvers shows posts and credits first (${jsLabel(javaScriptEnabled)})`, async () => {
        const campaign = await makeCampaign(bed.runtime, bed.ws.workspace, { name: 'Spring' });
        const draft = await makeContent(bed.runtime, bed.ws.workspace, {
          status: 'pending_review',
          caption: 'A Spring draft',
        });
        // Generation files its drafts under the campaign; the API does not take campaign_id.
        await bed.runtime.db.update(content).set({ campaignId: campaign.id }).where(eq(content.id, draft.id)).run();
        await makeContent(bed.runtime, bed.ws.workspace, { status: 'pending_review', caption: 'Not of the campaign' });

        const editor = (await signedIn('editor', javaScriptEnabled, '/app/campaigns')).page;
        const row = editor.getByRole('row', { name: /Spring/ });
        await expect(row.getByRole('cell').nth(1).textContent()).resolves.toBe('Draft');
        await expect(row.getByRole('cell').nth(2).textContent()).resolves.toContain(`0 of ${campaign.total_posts}`);
        await expect(editor.getByRole('progressbar', { name: 'Generation of Spring' }).count()).resolves.toBe(1);
        await expect(editor.getByRole('link', { name: /Launch/ }).count()).resolves.toBe(0);
        await editor.getByRole('link', { name: 'Drafts of Spring in the inbox' }).click();
        await editor.waitForURL(/\/app\/inbox\?campaign=/);
        expect(await listedItems(editor)).toBe(1);
        await expect(editor.getByRole('article', { name: 'A Spring draft' }).count()).resolves.toBe(1);

        const { page } = await signedIn('approver', javaScriptEnabled, '/app/campaigns');
        await page.getByRole('link', { name: 'Launch Spring' }).click();
        await page.waitForURL(new RegExp(`/app/campaigns/${campaign.id}/launch$`));
        const me = (await rest('GET', '/api/v1/me')).body;
        const cells = async (what: string) =>
          page
            .getByRole('row', { name: new RegExp(`^${what}`) })
            .getByRole('cell')
            .allTextContents();
        expect(await cells('Posts')).toEqual([
          'Posts',
          String(campaign.total_posts),
          String(me.usage.posts_published),
          `${me.features.posts_per_month} a month`,
        ]);
        expect(await cells('AI credits')).toEqual([
          'AI credits',
          `${campaign.total_posts} (one per generated post)`,
          String(me.usage.ai_credits_used),
          `${me.features.monthly_ai_credits} a month`,
        ]);
        // Nothing launched by looking.
        expect((await rest('GET', `/api/v1/campaigns/${campaign.id}`)).body.status).toBe('draft');
        await page.getByRole('button', { name: 'Launch' }).click();
        await page.waitForURL(/done=launched/);
        await expect(noticeOf(page)).resolves.toBe('Campaign launched: its posts are being generated.');
        expect((await rest('GET', `/api/v1/campaigns/${campaign.id}`)).body.status).toBe('active');
        await expect(
          page
            .getByRole('row', { name: /Spring/ })
            .getByRole('cell')
            .nth(1)
            .textContent(),
        ).resolves.toBe('Active');
      });
    }

    it('pages through more campaigns than fit on one page', async () => {
      for (let i = 1; i <= 53; i++) await makeCampaign(bed.runtime, bed.ws.workspace, { name: `Campaign ${i}` });
      const { page } = await signedIn('viewer', false, '/app/campaigns');
      const names = async () =>
        (await page.getByRole('row').allTextContents()).slice(1).map((text) => /Campaign \d+/.exec(text)![0]);
      const first = await names();
      expect(first).toHaveLength(50);
      await expect(page.getByRole('link', { name: 'First page' }).count()).resolves.toBe(0);
      await page.getByRole('link', { name: 'Next page' }).click();
      await page.waitForURL(/cursor=/);
      const second = await names();
      expect(second).toHaveLength(3);
      expect(new Set([...first, ...second]).size).toBe(53);
      await expect(page.getByRole('link', { name: 'Next page' }).count()).resolves.toBe(0);
      await page.getByRole('link', { name: 'First page' }).click();
      await page.waitForURL(/\/app\/campaigns$/);
      expect(await names()).toEqual(first);
    });
  });

  it('every admin page answers 403 with a plain page to a viewer, an editor and an approver', async () => {
    const hook = await makeWebhook(bed.runtime, bed.ws.workspace, { url: 'http://127.0.0.1:9/hook' });
    const pages = ['/app/accounts', '/app/webhooks', `/app/webhooks/${hook.id}`, '/app/keys', '/app/members'];
    for (const role of ['viewer', 'editor', 'approver'] as const) {
      const { page } = await signedIn(role, false, '/app');
      for (const path of pages) {
        expect(await go(page, path), `${role} ${path}`).toBe(403);
        await expect(page.getByRole('heading', { level: 1 }).textContent(), path).resolves.toMatch(/are for admins$/);
        await expect(page.getByRole('link', { name: 'Back to the home page' }).count()).resolves.toBe(1);
        await expect(page.getByRole('button').filter({ hasNotText: 'Sign out' }).count(), path).resolves.toBe(0);
      }
    }
  });

  it('a person of two workspaces: chooser, header switcher and the Join page, by keyboard, axe-clean at 1280 and 360 px', async () => {
    const second = await makeWorkspace(bed.runtime, { name: 'Second workspace with a long name' });
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'editor', 'two.workspaces@example.com');
    const invitation = await invitePerson(bed.runtime, {
      workspaceId: second.workspace.id,
      email: person.email,
      role: 'viewer',
      invitedBy: null,
    });
    for (const [width, viewport] of [
      [1280, DESKTOP],
      [360, NARROW],
    ] as const) {
      const { page } = await browser.open({ bypassCSP: true, viewport });
      await signIn(page, bed.server.url, person);
      const check = async (name: string) => {
        expect(await seriousAxeViolations(page), `${name} at ${width}`).toEqual([]);
        expect(await sidewaysOverflow(page), `${name} at ${width}`).toBe(0);
        await saveScreenshot(page, `accounts-${name}-${width}`);
      };
      if (width === 1280) {
        // Signed in, the invitation is one button, reached and pressed from the keyboard.
        await go(page, invitation.path);
        await check('join');
        await page.getByRole('button', { name: `Join ${second.workspace.name}` }).focus();
        await page.keyboard.press('Enter');
        await page.waitForURL(`${bed.server.url}/app/inbox`);
      }
      await expect(page.locator('p.who').textContent()).resolves.toContain(`in ${second.workspace.name}`);
      // The header switches with the keyboard alone: the menu, then its button.
      await page.getByLabel('Workspace', { exact: true }).focus();
      await page.getByLabel('Workspace', { exact: true }).selectOption(bed.ws.workspace.id);
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      // The same page again (the inbox), now of the other workspace.
      await page.locator('p.who', { hasText: `in ${bed.ws.workspace.name}` }).waitFor();
      await check('header');
      // With no choice remembered, the next sign-in asks.
      await bed.runtime.db.run(sql`update users set last_workspace_id = null where id = ${person.userId}`);
      const asked = (await browser.open({ bypassCSP: true, viewport })).page;
      await asked.goto(`${bed.server.url}/app/login`);
      await asked.getByLabel('Email').fill(person.email);
      await asked.getByLabel('Password').fill(person.password);
      await asked.getByRole('button', { name: 'Sign in' }).click();
      await asked.waitForURL(/\/app\/workspaces/);
      const chooser = asked;
      expect(await seriousAxeViolations(chooser), `chooser at ${width}`).toEqual([]);
      expect(await sidewaysOverflow(chooser), `chooser at ${width}`).toBe(0);
      await saveScreenshot(chooser, `accounts-chooser-${width}`);
      await chooser.getByRole('button', { name: `Open ${second.workspace.name}` }).focus();
      await chooser.keyboard.press('Enter');
      await chooser.waitForURL(`${bed.server.url}/app/inbox`);
      await expect(chooser.locator('p.who').textContent()).resolves.toContain(`in ${second.workspace.name}`);
      // So the next round's sign-in lands in the second workspace, as chosen here.
    }
  });

  it('home, keys, members and campaigns: no serious axe findings and a screenshot, at 1280 and 360 px', async () => {
    await makeContent(bed.runtime, bed.ws.workspace, {
      status: 'scheduled',
      caption: 'Soon',
      scheduled_for: new Date(bed.runtime.clock.now().getTime() + DAY).toISOString(),
      target_platforms: ['twitter'],
    });
    await makeCampaign(bed.runtime, bed.ws.workspace, { name: 'Autumn launch with a rather long name' });
    const person = await makePerson(bed.runtime, bed.ws.workspace.id, 'admin');
    await makePerson(bed.runtime, bed.ws.workspace.id, 'editor', 'someone.with.a.long.address@example.com');
    for (const [width, viewport] of [
      [1280, DESKTOP],
      [360, NARROW],
    ] as const) {
      // axe is injected as an inline script, which the pages' CSP rightly refuses.
      const { page } = await browser.open({ bypassCSP: true, viewport });
      await signIn(page, bed.server.url, person, '/app/members');
      await page.getByLabel('Email', { exact: true }).fill(`shown-${width}@example.com`);
      await page.getByRole('button', { name: 'Invite', exact: true }).click();
      await page.waitForURL(`${bed.server.url}/app/members`);
      for (const [path, name] of [
        ['/app/members', 'members'],
        ['/app', 'home'],
        ['/app/keys', 'keys'],
        ['/app/campaigns', 'campaigns'],
      ] as const) {
        if (path !== '/app/members') expect(await go(page, path), path).toBe(200);
        expect(await seriousAxeViolations(page), `${path} at ${width}`).toEqual([]);
        expect(await sidewaysOverflow(page), `${path} at ${width}`).toBe(0);
        expect(await brokenActions(page), `${path} at ${width}`).toEqual([]);
        await saveScreenshot(page, `admin-people-${name}-${width}`);
      }
    }
  });
});
