import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { makeContent } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { makePerson } from '../helpers/people.ts';
import { csrfOf, signIn, useDashboardBrowser } from './dashboard.ts';
import { sql } from 'drizzle-orm';

/** Rescheduling in the workspace's time zone, from the item page's field and by dragging on the calendar. */
describe('calendar and rescheduling in a browser', { timeout: 120_000 }, () => {
  const bed = useRestTestbed();
  const browser = useDashboardBrowser();

  const scheduledFor = async (id: string) =>
    (await call(bed.server, 'GET', `/api/v1/content/${id}`, { headers: bed.ws.headers })).body.scheduled_for;
  /** The calendar cell holding a link, found as a person reads the grid. */
  const cellWith = (page: Page, link: string) =>
    page.getByRole('cell').filter({ has: page.getByRole('link', { name: link }) });

  async function newYorkApprover() {
    await call(bed.server, 'PATCH', '/api/v1/me', { headers: bed.ws.headers, body: { timezone: 'America/New_York' } });
    const approver = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
    const opened = await browser.open();
    await signIn(opened.page, bed.server.url, approver);
    return opened.page;
  }
  const scheduled = async (caption: string) =>
    makeContent(bed.runtime, bed.ws.workspace, {
      status: 'scheduled',
      scheduled_for: '2026-12-15T14:30:00Z',
      caption,
      // A new time queues it again, which needs a target platform, as publishing does.
      target_platforms: ['linkedin'],
    });

  it('in America/New_York, 2026-12-15T14:30:00Z is on 15 December at 09:30; the field moves it to 2026-12-17T14:30:00Z', async () => {
    const item = await scheduled('Winter post');
    const page = await newYorkApprover();
    await page.goto(`${bed.server.url}/app/calendar?month=2026-12`);
    await expect(page.getByText('Times are shown in America/New_York.').isVisible()).resolves.toBe(true);
    await expect(cellWith(page, '09:30 Winter post').textContent()).resolves.toMatch(/^15\s/);

    await page.getByRole('link', { name: '09:30 Winter post' }).click();
    const field = page.getByLabel('Time to publish (America/New_York)');
    await expect(field.inputValue()).resolves.toBe('2026-12-15T09:30');
    await field.fill('2026-12-17T09:30');
    await page.getByRole('button', { name: 'Schedule', exact: true }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Scheduled.');
    expect(await scheduledFor(item.id)).toBe('2026-12-17T14:30:00.000Z');
    await page.goto(`${bed.server.url}/app/calendar?month=2026-12`);
    await expect(cellWith(page, '09:30 Winter post').textContent()).resolves.toMatch(/^17\s/);
  });

  it('dragging an item to the 17th keeps its time of day: 2026-12-17T14:30:00Z', async () => {
    const item = await scheduled('Dragged post');
    const page = await newYorkApprover();
    await page.goto(`${bed.server.url}/app/calendar?month=2026-12`);
    await page
      .getByRole('link', { name: '09:30 Dragged post' })
      .dragTo(page.getByRole('cell', { name: '17', exact: true }));
    await expect(page.getByRole('status').textContent()).resolves.toBe('Rescheduled.');
    expect(await scheduledFor(item.id)).toBe('2026-12-17T14:30:00.000Z');
    await expect(cellWith(page, '09:30 Dragged post').textContent()).resolves.toMatch(/^17\s/);
  });

  it('a published item cannot be moved: not draggable, no Schedule or Move, and a move POST is refused', async () => {
    const item = await scheduled('Already out');
    await bed.runtime.db.run(
      sql`update content set status = 'published', published_at = scheduled_for where id = ${item.id}`,
    );
    const page = await newYorkApprover();
    await page.goto(`${bed.server.url}/app/calendar?month=2026-12`);
    const entry = page.getByRole('listitem').filter({ has: page.getByRole('link', { name: '09:30 Already out' }) });
    await expect(entry.getAttribute('draggable')).resolves.toBeNull();
    const refused = await page.request.post(`${bed.server.url}/app/content/${item.id}/move`, {
      form: { _csrf: await csrfOf(page), day: '2026-12-17' },
      headers: { origin: bed.server.url },
      maxRedirects: 0,
    });
    expect(refused.status()).toBe(409);
    await page.getByRole('link', { name: '09:30 Already out' }).click();
    await expect(page.getByRole('button', { name: 'Schedule', exact: true }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Move', exact: true }).count()).resolves.toBe(0);
    expect(await scheduledFor(item.id)).toBe('2026-12-15T14:30:00.000Z');
  });
});
