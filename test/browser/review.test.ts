import { afterEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startWebhookDelivery } from '../../src/jobs/webhook-delivery.ts';
import type { Worker } from '../../src/jobs/leased-worker.ts';
import { inOrder, makeContent, makeWebhook } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { makePerson } from '../helpers/people.ts';
import { connectAccounts } from '../helpers/publishing.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { csrfOf, signIn, useDashboardBrowser } from './dashboard.ts';

/** Reviewing in a real browser: roles, approve, reject with a reason, bulk, previews; with and without JavaScript. */
describe('reviewing in a browser', { timeout: 120_000 }, () => {
  const bed = useRestTestbed({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  const browser = useDashboardBrowser();
  const stops: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  const restItem = async (id: string) =>
    (await call(bed.server, 'GET', `/api/v1/content/${id}`, { headers: bed.ws.headers })).body;
  const pending = async (caption: string) =>
    makeContent(bed.runtime, bed.ws.workspace, { status: 'pending_review', caption });
  const article = (page: Page, title: string) => page.getByRole('article', { name: title });
  /** A POST as a hand-made request would send it: the person's cookies, the page's CSRF token, this origin. */
  const directPost = async (page: Page, path: string) =>
    page.request.post(bed.server.url + path, {
      form: { _csrf: await csrfOf(page) },
      headers: { origin: bed.server.url },
      maxRedirects: 0,
    });

  it('a viewer sees no action buttons and a direct approve POST answers 403; an editor cannot approve', async () => {
    const item = await pending('Please approve me');
    for (const role of ['viewer', 'editor'] as const) {
      const person = await makePerson(bed.runtime, bed.ws.workspace.id, role);
      const { page } = await browser.open();
      await signIn(page, bed.server.url, person);
      await expect(article(page, 'Please approve me').isVisible()).resolves.toBe(true);
      for (const name of ['Approve only', 'Approve and publish now', 'Reject', 'Approve selected', 'Reject selected'])
        await expect(page.getByRole('button', { name, exact: true }).count(), `${role}: ${name}`).resolves.toBe(0);
      await page.getByRole('link', { name: 'Please approve me' }).click();
      await expect(page.getByRole('button', { name: /^Approve/ }).count()).resolves.toBe(0);
      expect((await directPost(page, `/app/content/${item.id}/approve`)).status(), role).toBe(403);
      expect((await restItem(item.id)).status).toBe('pending_review');
    }
  });

  it('an approver approves: REST shows approved and exactly one content.approved webhook arrives', async () => {
    const receiver: Receiver = await startReceiver();
    stops.push(() => receiver.close());
    await makeWebhook(bed.runtime, bed.ws.workspace, { url: `${receiver.url}/hook`, events: ['content.approved'] });
    const worker: Worker = startWebhookDelivery(bed.runtime);
    stops.push(() => worker.stop());
    const item = await pending('Launch post');
    const approver = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
    const { page } = await browser.open();
    await signIn(page, bed.server.url, approver);
    await article(page, 'Launch post').getByRole('button', { name: 'Approve only', exact: true }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Approved, not scheduled.');
    await expect(article(page, 'Launch post').count()).resolves.toBe(0);
    expect((await restItem(item.id)).status).toBe('approved');
    await receiver.waitForRequests(1, 10_000);
    await worker.stop();
    const approvals = receiver.requests
      .map((request) => JSON.parse(request.body) as { type: string; data: { content: { id: string } } })
      .filter((event) => event.type === 'content.approved' && event.data.content.id === item.id);
    expect(approvals).toHaveLength(1);
  });

  it('rejecting with a reason: REST shows rejected and the review_note; the item page shows the reason', async () => {
    const item = await pending('Off-brand post');
    const approver = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
    const { page } = await browser.open();
    await signIn(page, bed.server.url, approver);
    const card = article(page, 'Off-brand post');
    await card.getByLabel('Reason').fill('Wrong tone for the brand');
    await card.getByRole('button', { name: 'Reject', exact: true }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Rejected.');
    expect(await restItem(item.id)).toMatchObject({ status: 'rejected', review_note: 'Wrong tone for the brand' });
    await page.goto(`${bed.server.url}/app/content/${item.id}`);
    await expect(page.getByText('Reason for rejecting: Wrong tone for the brand').isVisible()).resolves.toBe(true);
  });

  it('"Approve selected" on two items approves both, and leaves the third waiting', async () => {
    const [first, second, third] = await inOrder(['First', 'Second', 'Third'], async (caption) =>
      pending(`${caption} in the batch`),
    );
    const approver = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
    const { page } = await browser.open();
    await signIn(page, bed.server.url, approver);
    await page.getByRole('checkbox', { name: 'Select “First in the batch”' }).check();
    await page.getByRole('checkbox', { name: 'Select “Second in the batch”' }).check();
    await page.getByRole('button', { name: 'Approve selected' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Approved 2 items.');
    expect((await restItem(first!.id)).status).toBe('approved');
    expect((await restItem(second!.id)).status).toBe('approved');
    expect((await restItem(third!.id)).status).toBe('pending_review');
  });

  it('"Select all on this page" selects every item for a bulk reject', async () => {
    const items = await inOrder(['One', 'Two'], async (caption) => pending(`${caption} to reject`));
    const approver = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
    const { page } = await browser.open();
    await signIn(page, bed.server.url, approver);
    await page.getByRole('checkbox', { name: 'Select all on this page' }).check();
    await page.getByLabel('Reason for rejecting the selected items').fill('Duplicates');
    await page.getByRole('button', { name: 'Reject selected' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Rejected 2 items.');
    for (const item of items)
      expect(await restItem(item.id)).toMatchObject({ status: 'rejected', review_note: 'Duplicates' });
  });

  it('a caption of 297 weighted characters shows the problem on its X card and none on its LinkedIn card', async () => {
    await connectAccounts(bed.runtime, bed.ws.workspace, ['twitter', 'linkedin']);
    const item = await makeContent(bed.runtime, bed.ws.workspace, {
      status: 'pending_review',
      caption: `${'a'.repeat(290)} 日本語`, // 291 + 3 × 2 = 297 weighted
      content_type: 'text_only',
      target_platforms: ['twitter', 'linkedin'],
    });
    const viewer = await makePerson(bed.runtime, bed.ws.workspace.id, 'viewer');
    const { page } = await browser.open();
    await signIn(page, bed.server.url, viewer);
    await page.goto(`${bed.server.url}/app/content/${item.id}`);
    const x = page.getByRole('article', { name: 'X preview' });
    const linkedIn = page.getByRole('article', { name: 'LinkedIn preview' });
    await expect(x.getByRole('list', { name: 'X problems' }).textContent()).resolves.toContain(
      'X: 297 of 280 characters',
    );
    await expect(linkedIn.getByRole('list', { name: 'LinkedIn problems' }).count()).resolves.toBe(0);
    await expect(linkedIn.getByText('Ready for LinkedIn').isVisible()).resolves.toBe(true);
  });

  it('filtering by platform swaps the list in place (htmx) and keeps the filter in the address', async () => {
    const forLinkedIn = { status: 'pending_review', content_type: 'text_only', target_platforms: ['linkedin'] };
    await makeContent(bed.runtime, bed.ws.workspace, { ...forLinkedIn, caption: 'For LinkedIn only' });
    await makeContent(bed.runtime, bed.ws.workspace, {
      ...forLinkedIn,
      caption: 'For X too',
      target_platforms: ['twitter'],
    });
    const viewer = await makePerson(bed.runtime, bed.ws.workspace.id, 'viewer');
    const { page } = await browser.open();
    await signIn(page, bed.server.url, viewer);
    let fullLoads = 0;
    page.on('load', () => (fullLoads += 1));
    await page.getByLabel('Platform').selectOption({ label: 'X' });
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/platform=twitter/);
    await expect(article(page, 'For X too').isVisible()).resolves.toBe(true);
    await expect(article(page, 'For LinkedIn only').count()).resolves.toBe(0);
    expect(fullLoads).toBe(0);
  });

  describe('without JavaScript', () => {
    it('approve and reject work as plain forms', async () => {
      const [approveMe, rejectMe] = [await pending('Approve without scripts'), await pending('Reject without scripts')];
      const approver = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
      const { page } = await browser.open({ javaScriptEnabled: false });
      await signIn(page, bed.server.url, approver);
      await article(page, 'Approve without scripts').getByRole('button', { name: 'Approve only', exact: true }).click();
      await expect(page.getByRole('status').textContent()).resolves.toBe('Approved, not scheduled.');
      expect((await restItem(approveMe.id)).status).toBe('approved');
      const card = article(page, 'Reject without scripts');
      await card.getByLabel('Reason').fill('Needs a picture');
      await card.getByRole('button', { name: 'Reject', exact: true }).click();
      await expect(page.getByRole('status').textContent()).resolves.toBe('Rejected.');
      expect(await restItem(rejectMe.id)).toMatchObject({ status: 'rejected', review_note: 'Needs a picture' });
    });

    it('approve and reject on the item page', async () => {
      const [approveMe, rejectMe] = [await pending('Item page approve'), await pending('Item page reject')];
      const approver = await makePerson(bed.runtime, bed.ws.workspace.id, 'approver');
      const { page } = await browser.open({ javaScriptEnabled: false });
      await signIn(page, bed.server.url, approver);
      await page.getByRole('link', { name: 'Item page approve' }).click();
      await page.getByRole('button', { name: 'Approve only', exact: true }).click();
      await expect(page.getByRole('status').textContent()).resolves.toBe('Approved, not scheduled.');
      expect((await restItem(approveMe.id)).status).toBe('approved');
      await page.goto(`${bed.server.url}/app/content/${rejectMe.id}`);
      await page.getByLabel('Reason').fill('Not this week');
      await page.getByRole('button', { name: 'Reject', exact: true }).click();
      await expect(page.getByRole('status').textContent()).resolves.toBe('Rejected.');
      expect(await restItem(rejectMe.id)).toMatchObject({ status: 'rejected', review_note: 'Not this week' });
    });
  });
});
