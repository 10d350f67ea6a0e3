import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { invitePerson } from '../../src/core/people/invitations.ts';
import { issueSetupLink } from '../../src/core/people/users.ts';
import { drain } from '../../src/jobs/drain.ts';
import { publishingJob } from '../../src/jobs/publish-run.ts';
import { png } from '../fixtures/media/files.ts';
import { saveScreenshot, seriousAxeViolations } from '../helpers/browser.ts';
import { makeCampaign, makeContent } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { startMediaUrlServer, type MediaUrlServer } from '../helpers/media-url-server.ts';
import { makePerson } from '../helpers/people.ts';
import { connectAccounts, connectorsWith, publish } from '../helpers/publishing.ts';
import { DESKTOP, NARROW, sidewaysOverflow, signIn, useDashboardBrowser } from './dashboard.ts';

/**
 * Every page of the dashboard in a real browser: no serious or critical axe finding, nothing to
 * scroll sideways at 360 px, and a screenshot at desktop width and at 360 px for people to look at.
 */
describe('dashboard pages in a browser', { timeout: 120_000 }, () => {
  const bed = useRestTestbed();
  const browser = useDashboardBrowser();
  let media: MediaUrlServer;
  beforeEach(async () => {
    media = await startMediaUrlServer({
      '/one.png': { bytes: png(96, 96), contentType: 'image/png' },
      '/two.png': { bytes: png(64, 96), contentType: 'image/png' },
    });
  });
  afterEach(() => media.close());

  /** Checks the page as it is now at both widths; returns the axe findings of both. */
  async function inspect(page: Page, name: string) {
    const findings = [];
    await page.setViewportSize(DESKTOP);
    findings.push(...(await seriousAxeViolations(page)));
    await saveScreenshot(page, `${name}-desktop`);
    await page.setViewportSize(NARROW);
    findings.push(...(await seriousAxeViolations(page)));
    await saveScreenshot(page, `${name}-360`);
    expect(await sidewaysOverflow(page), `${name}: sideways scrolling at 360 px`).toBeLessThanOrEqual(0);
    await page.setViewportSize(DESKTOP);
    return findings;
  }

  /** A workspace with something on every page: items waiting, scheduled, published and rejected. */
  async function seed() {
    const { workspace } = bed.ws;
    await call(bed.server, 'PATCH', '/api/v1/me', { headers: bed.ws.headers, body: { timezone: 'America/New_York' } });
    await connectAccounts(bed.runtime, workspace, ['twitter', 'linkedin', 'instagram']);
    const campaign = await makeCampaign(bed.runtime, workspace, { name: 'Winter launch' });
    const waiting = await makeContent(bed.runtime, workspace, {
      status: 'pending_review',
      campaign_id: campaign.id,
      caption:
        'Our winter collection is here. Warm layers made from recycled wool, tested on three mountain ranges, ' +
        'and designed to last for years rather than a season. Visit the shop this week for early access and ' +
        'free repairs for life.',
      hashtags: ['winter', 'recycled'],
      content_type: 'carousel',
      media_urls: [media.at('/one.png'), media.at('/two.png')],
      target_platforms: ['twitter', 'linkedin', 'instagram'],
    });
    await makeContent(bed.runtime, workspace, {
      status: 'pending_review',
      caption: `${'a'.repeat(290)} 日本語`,
      content_type: 'text_only',
      target_platforms: ['twitter', 'linkedin'],
    });
    await makeContent(bed.runtime, workspace, {
      status: 'scheduled',
      scheduled_for: '2026-12-15T14:30:00Z',
      caption: 'Advent calendar, day 15',
      content_type: 'text_only',
      target_platforms: ['linkedin'],
    });
    const rejected = await makeContent(bed.runtime, workspace, { status: 'pending_review', caption: 'Too early' });
    await call(bed.server, 'PATCH', `/api/v1/content/${rejected.id}`, {
      headers: bed.ws.headers,
      body: { status: 'rejected', review_note: 'Wait for the press release' },
    });
    const live = await makeContent(bed.runtime, workspace, {
      caption: 'We are live',
      content_type: 'text_only',
      target_platforms: ['twitter', 'linkedin'],
    });
    await publish(bed.runtime, workspace, live.id, { scheduled_for: '2026-12-02T15:00:00Z' });
    bed.runtime.clock.set('2026-12-02T15:00:01Z');
    const connectors = connectorsWith(bed.runtime, {
      twitter: {
        publish: async () => ({ status: 'published', platformPostId: '1790', url: 'https://x.com/acme/status/1790' }),
      },
    });
    await drain(bed.runtime, publishingJob(bed.runtime, connectors));
    return { waiting, live };
  }

  it('every signed-in page passes axe, fits 360 px and is saved as a screenshot', async () => {
    const { waiting, live } = await seed();
    const admin = await makePerson(bed.runtime, bed.ws.workspace.id, 'admin');
    const { page } = await browser.open();
    await signIn(page, bed.server.url, admin);
    const pages: Array<[string, string, number, string]> = [
      ['inbox', '/app/inbox', 200, 'Approval inbox'],
      ['inbox-empty', '/app/inbox?platform=tiktok', 200, 'Approval inbox'],
      ['content', '/app/content', 200, 'Content'],
      ['content-published', '/app/content?status=published', 200, 'Content'],
      ['item-waiting', `/app/content/${waiting.id}`, 200, 'Our winter collection is here.'],
      ['item-published', `/app/content/${live.id}`, 200, 'We are live'],
      ['calendar', '/app/calendar?month=2026-12', 200, 'Calendar'],
      ['calendar-list', '/app/calendar?month=2026-12&view=list', 200, 'Calendar'],
      ['settings', '/app/settings', 200, 'Settings'],
      ['not-found', '/app/nothing-here', 404, 'Not found'],
    ];
    const findings: Record<string, unknown> = {};
    for (const [name, path, status, heading] of pages) {
      const response = await page.goto(bed.server.url + path);
      expect(response?.status(), path).toBe(status);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toContain(heading);
      const found = await inspect(page, name);
      if (found.length > 0) findings[name] = found;
    }
    expect(findings).toEqual({});
    // What the pages must show, found as a person finds it.
    await page.goto(`${bed.server.url}/app/content/${live.id}`);
    await expect(page.getByRole('link', { name: 'View on X' }).getAttribute('href')).resolves.toBe(
      'https://x.com/acme/status/1790',
    );
    const history = page.getByRole('region', { name: 'History' });
    await expect(history.textContent()).resolves.toMatch(
      /the publishing run started publishing[\s\S]*the publishing run published/,
    );
  });

  it('the sign-in, setup, invite and spent-link pages pass axe and fit 360 px', async () => {
    const { page } = await browser.open();
    const setup = await issueSetupLink(bed.runtime, bed.ws.workspace.id);
    const invite = await invitePerson(bed.runtime, {
      workspaceId: bed.ws.workspace.id,
      email: 'new@example.com',
      role: 'editor',
      invitedBy: null,
    });
    const pages: Array<[string, string, number]> = [
      ['login', '/app/login', 200],
      ['setup', setup, 200],
      ['invite', invite.path, 200],
      ['spent-link', '/app/setup?token=not-a-token', 404],
    ];
    const findings: Record<string, unknown> = {};
    for (const [name, path, status] of pages) {
      const response = await page.goto(bed.server.url + path);
      expect(response?.status(), path).toBe(status);
      const found = await inspect(page, name);
      if (found.length > 0) findings[name] = found;
    }
    expect(findings).toEqual({});
  });

  it('the setup link creates the admin once; /app then asks to sign in', async () => {
    const link = await issueSetupLink(bed.runtime, bed.ws.workspace.id);
    const { page } = await browser.open();
    await page.goto(bed.server.url + link);
    await page.getByLabel('Email').fill('founder@example.com');
    await page.getByLabel('New password (at least 10 characters)').fill('a founder password');
    await page.getByRole('button', { name: 'Create the admin account' }).click();
    await page.waitForURL(`${bed.server.url}/app/inbox`);
    await expect(page.getByText('founder@example.com · admin').isVisible()).resolves.toBe(true);

    const stranger = (await browser.open()).page;
    const again = await stranger.goto(bed.server.url + link);
    expect(again?.status()).toBe(404);
    await expect(stranger.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('This link cannot be used');
    await stranger.goto(`${bed.server.url}/app`);
    expect(new URL(stranger.url()).pathname).toBe('/app/login');
    await expect(stranger.getByRole('button', { name: 'Sign in' }).isVisible()).resolves.toBe(true);
    await signIn(stranger, bed.server.url, { email: 'founder@example.com', password: 'a founder password' });
  });
});
