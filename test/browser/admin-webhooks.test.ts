import { Webhook } from 'standardwebhooks';
import type { Locator, Page } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { enqueueAllEvents } from '../../src/core/webhooks/delivery/enqueue.ts';
import { AUTO_DISABLE_FAILURES } from '../../src/core/webhooks/delivery/policy.ts';
import { drain } from '../../src/jobs/drain.ts';
import { webhookDeliveryJob } from '../../src/jobs/webhook-delivery.ts';
import { saveScreenshot, seriousAxeViolations } from '../helpers/browser.ts';
import { makeContent, makeWebhook, makeWorkspace } from '../helpers/factories.ts';
import { call, useRestTestbed } from '../helpers/http.ts';
import { makePerson } from '../helpers/people.ts';
import { startReceiver, type ReceivedRequest, type Receiver } from '../helpers/webhook-receiver.ts';
import { csrfOf, DESKTOP, NARROW, sidewaysOverflow, signIn, useDashboardBrowser } from './dashboard.ts';
import { sql } from 'drizzle-orm';

interface Envelope {
  type: string;
  data: Record<string, unknown>;
}

/**
 * The webhook pages in chromium (issue 29): create with the secret shown once, edit events, disable and
 * enable, rotate, send a test, the delivery log with its filter, Resend, and re-enabling an endpoint that
 * was stopped for failing; each form with JavaScript on and off. A receiver on loopback gets the
 * deliveries and `standardwebhooks` checks their signatures.
 */
describe('webhooks and their delivery log in a browser', { timeout: 120_000 }, () => {
  const bed = useRestTestbed({
    env: {
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_MS: '2000',
      // One retry a second after the first attempt: two failures and a delivery has failed for good.
      WEBHOOK_RETRY_DELAYS: '1',
    },
  });
  const browser = useDashboardBrowser();
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(() => receiver.close());

  const hookUrl = () => `${receiver.url}/hook`;
  const rest = (method: string, path: string, body?: unknown) =>
    call(bed.server, method, path, { headers: bed.ws.headers, body });
  /** A webhook made through REST, with its signing secret. */
  const restWebhook = async (events: string[] = []) => {
    const made = await rest('POST', '/api/v1/webhooks', { url: hookUrl(), events });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return made.body as { id: string; signing_secret: string };
  };
  /** What the delivery scheduler does on its ticks: queue the new events, then send everything due now. */
  const deliverAll = async () => {
    await enqueueAllEvents(bed.runtime);
    await drain(bed.runtime, webhookDeliveryJob(bed.runtime));
  };
  /** standardwebhooks checks the timestamp against the wall clock: verify at the runtime's time. */
  const verify = (secret: string, request: ReceivedRequest): Envelope => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(bed.runtime.clock.now());
    try {
      return new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Envelope;
    } finally {
      vi.useRealTimers();
    }
  };
  const signedInAdmin = async (javaScriptEnabled: boolean, next = '/app/webhooks') => {
    const admin = await makePerson(bed.runtime, bed.ws.workspace.id, 'admin');
    const opened = await browser.open({
      javaScriptEnabled,
      // The Copy button writes to the clipboard; the test reads it back.
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    await signIn(opened.page, bed.server.url, admin, next);
    return opened.page;
  };
  /**
   * Each page at 1280 and 360 px, as a fresh admin reaches it (a path, or the steps that lead there):
   * no serious axe findings, no sideways scrolling, and a screenshot. axe is evaluated through the
   * driver, which the pages' CSP would refuse as an inline script: hence a context that bypasses it.
   */
  const checkLooks = async (pages: Array<[name: string, reach: string | ((page: Page) => Promise<void>)]>) => {
    const admin = await makePerson(bed.runtime, bed.ws.workspace.id, 'admin');
    for (const [width, viewport] of [
      ['1280', DESKTOP],
      ['360', NARROW],
    ] as const) {
      const { page } = await browser.open({ bypassCSP: true, viewport });
      await signIn(page, bed.server.url, admin, '/app/webhooks');
      for (const [name, reach] of pages) {
        if (typeof reach === 'string') await page.goto(`${bed.server.url}${reach}`);
        else await reach(page);
        expect(await seriousAxeViolations(page), `${name} at ${width}`).toEqual([]);
        expect(await sidewaysOverflow(page), `${name} at ${width}`).toBe(0);
        await saveScreenshot(page, `${name}-${width}`);
      }
    }
  };
  const card = (page: Page) => page.getByRole('article', { name: hookUrl() });
  const notice = (page: Page) => page.getByRole('status').textContent();
  /** The delivery log's rows, each as its cells' text. */
  const logRows = async (page: Page) => {
    const rows = page.getByRole('table').getByRole('row');
    const count = await rows.count();
    const texts: string[][] = [];
    // The first row holds the column headers.
    for (let i = 1; i < count; i += 1) texts.push(await rows.nth(i).getByRole('cell').allTextContents());
    return texts;
  };
  const tick = (locator: Locator, name: string) => locator.getByRole('checkbox', { name, exact: true });

  for (const javaScriptEnabled of [true, false]) {
    const mode = `JavaScript ${javaScriptEnabled ? 'on' : 'off'}`;

    it(`create shows the signing secret once, with a warning and (with JavaScript) a Copy button, and it signs deliveries (${mode})`, async () => {
      const page = await signedInAdmin(javaScriptEnabled);
      await page.getByLabel('Endpoint URL').fill(hookUrl());
      const newHook = page.locator('form', { has: page.getByRole('button', { name: 'Create webhook' }) });
      await tick(newHook, 'content.created').check();
      await page.getByRole('button', { name: 'Create webhook' }).click();
      await page.waitForURL(`${bed.server.url}/app/webhooks`);

      await expect(notice(page)).resolves.toBe('Webhook ready. Copy its signing secret now.');
      const secret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
      expect(secret).toMatch(/^whsec_/);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('Copy it now: it is shown this once.');
      // Copying needs JavaScript: without it the field is there to select by hand, and no button that
      // would do nothing.
      const copy = page.getByRole('button', { name: 'Copy' });
      await expect(copy.isVisible()).resolves.toBe(javaScriptEnabled);
      if (javaScriptEnabled) {
        await copy.click();
        await page.getByRole('button', { name: 'Copied' }).waitFor();
        const pasted = page.evaluate(() =>
          (
            globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
          ).navigator.clipboard.readText(),
        );
        await expect(pasted).resolves.toBe(secret);
      }
      const hooks = (await rest('GET', '/api/v1/webhooks')).body.data as Array<{ url: string; events: string[] }>;
      expect(hooks).toMatchObject([{ url: hookUrl(), events: ['content.created'] }]);
      await expect(card(page).count()).resolves.toBe(1);

      await page.reload();
      expect(await page.content()).not.toContain(secret);
      await expect(page.getByRole('textbox', { name: 'Signing secret' }).count()).resolves.toBe(0);
      await expect(card(page).count()).resolves.toBe(1);

      const item = await makeContent(bed.runtime, bed.ws.workspace, { caption: 'Signed hello' });
      await deliverAll();
      expect(receiver.requests).toHaveLength(1);
      expect(verify(secret, receiver.requests[0]!)).toMatchObject({
        type: 'content.created',
        data: { content: { id: item.id } },
      });
    });

    it(`edit events, Disable and Enable, Rotate secret and Send test (${mode})`, async () => {
      const hook = await restWebhook(['content.approved']);
      const page = await signedInAdmin(javaScriptEnabled);

      // Edit events: content.created instead of content.approved.
      await card(page).getByText(`Edit events of ${hookUrl()}`).click();
      const events = card(page).getByRole('group', { name: `Events of ${hookUrl()} (none ticked: every event)` });
      await tick(events, 'content.approved').uncheck();
      await tick(events, 'content.created').check();
      await card(page).getByRole('button', { name: 'Save events' }).click();
      await page.waitForURL(/done=events$/);
      await expect(notice(page)).resolves.toBe('Events saved.');
      expect((await rest('GET', `/api/v1/webhooks/${hook.id}`)).body.events).toEqual(['content.created']);
      await expect(card(page).getByText('Edit events').textContent()).resolves.toContain('(content.created)');

      // Disable, then Enable.
      await card(page).getByRole('button', { name: 'Disable' }).click();
      await page.waitForURL(/done=disabled$/);
      await expect(notice(page)).resolves.toMatch(/^Webhook disabled/);
      await expect(
        card(page)
          .getByText(/^Disabled · created/)
          .count(),
      ).resolves.toBe(1);
      expect((await rest('GET', `/api/v1/webhooks/${hook.id}`)).body.is_enabled).toBe(false);
      await card(page).getByRole('button', { name: 'Enable' }).click();
      await page.waitForURL(/done=enabled$/);
      await expect(notice(page)).resolves.toMatch(/^Webhook enabled/);
      await expect(
        card(page)
          .getByText(/^Enabled · created/)
          .count(),
      ).resolves.toBe(1);
      expect((await rest('GET', `/api/v1/webhooks/${hook.id}`)).body.is_enabled).toBe(true);

      // Rotate secret: the new one is shown once and signs what follows (a content.created, subscribed
      // by the edit above); the old one no longer verifies.
      await card(page).getByRole('button', { name: 'Rotate secret' }).click();
      await page.waitForURL(`${bed.server.url}/app/webhooks`);
      const rotated = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(hook.signing_secret);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('it is shown this once');
      await page.reload();
      expect(await page.content()).not.toContain(rotated);
      const item = await makeContent(bed.runtime, bed.ws.workspace, { caption: 'After rotation' });
      await deliverAll();
      expect(receiver.requests).toHaveLength(1);
      const [afterRotation] = receiver.requests;
      expect(verify(rotated, afterRotation!)).toMatchObject({
        type: 'content.created',
        data: { content: { id: item.id } },
      });
      expect(() => verify(hook.signing_secret, afterRotation!)).toThrow();

      // Send test: the receiver gets a signed webhook.test, and the page says what it answered.
      receiver.respondWith({ status: 202 });
      await card(page).getByRole('button', { name: 'Send test' }).click();
      await page.waitForURL(/test=202$/);
      await expect(notice(page)).resolves.toBe('Test sent: the endpoint answered 202.');
      expect(receiver.requests).toHaveLength(2);
      expect(verify(rotated, receiver.requests[1]!)).toMatchObject({
        type: 'webhook.test',
        data: { webhook_id: hook.id },
      });
    });

    it(`the delivery log shows failed attempts with code 500, filters by outcome, and Resend delivers the same event with a 200 (${mode})`, async () => {
      const hook = await restWebhook(['content.created']);
      const longBody = `receiver down ${'x'.repeat(3000)}`;
      receiver.respondWith({ status: 500, body: longBody });
      await makeContent(bed.runtime, bed.ws.workspace, { caption: 'Into the void' });
      await deliverAll();
      bed.runtime.clock.advance(1000);
      await deliverAll();
      expect(receiver.requests).toHaveLength(2);
      const eventId = receiver.requests[0]!.headers['webhook-id'] as string;

      const page = await signedInAdmin(javaScriptEnabled);
      await page.getByRole('link', { name: `Delivery log of ${hookUrl()}` }).click();
      await page.waitForURL(`${bed.server.url}/app/webhooks/${hook.id}`);
      const failed = await logRows(page);
      expect(failed).toHaveLength(2);
      for (const [time, event, outcome, code, duration, body] of failed) {
        expect(time).not.toBe('');
        expect(event).toContain('content.created');
        expect(event).toContain(eventId);
        expect(outcome).toMatch(/^Failed/);
        expect(code).toBe('500');
        expect(duration).toMatch(/^\d+ ms$/);
        // The first kilobyte of what the receiver answered, and a mark that there was more.
        expect(body).toBe(`${longBody.slice(0, 1024)}…`);
      }
      const times = await page
        .locator('tbody time')
        .evaluateAll((nodes) => nodes.map((node) => (node as unknown as { dateTime: string }).dateTime));
      expect(times.every((iso) => !Number.isNaN(Date.parse(iso)))).toBe(true);

      // Filter by outcome: the retry that is still due, then the one given up.
      await page.getByLabel('Outcome').selectOption({ label: 'Failed (will retry)' });
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/status=pending_retry/);
      expect((await logRows(page)).map((row) => row[2])).toEqual(['Failed (will retry)']);
      await page.getByLabel('Outcome').selectOption({ label: 'Failed (gave up)' });
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/status=failed/);
      expect((await logRows(page)).map((row) => row[2])).toEqual(['Failed (gave up)']);
      await page.getByLabel('Outcome').selectOption({ label: 'Delivered' });
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/status=delivered/);
      await expect(page.getByText('No delivery attempts with this outcome yet.').count()).resolves.toBe(1);

      // The receiver is fixed: Resend the given-up delivery.
      receiver.respondWith({ status: 200, body: 'thanks' });
      await page.getByLabel('Outcome').selectOption({ label: 'Failed (gave up)' });
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/status=failed/);
      await page.getByRole('button', { name: `Resend content.created ${eventId}` }).click();
      await page.waitForURL(/done=resent$/);
      await expect(notice(page)).resolves.toBe('Queued again: it will be delivered in a moment.');
      await deliverAll();
      expect(receiver.requests).toHaveLength(3);
      expect(receiver.requests[2]!.headers['webhook-id']).toBe(eventId);

      await page.getByLabel('Outcome').selectOption({ label: 'Delivered' });
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/status=delivered/);
      const delivered = await logRows(page);
      expect(delivered).toHaveLength(1);
      const [, event, outcome, code, , body] = delivered[0]!;
      expect(event).toContain(eventId);
      expect(outcome).toBe('Delivered');
      expect(code).toBe('200');
      // The log keeps response bodies of failed attempts only.
      expect(body).toBe('');
    });

    it(`an auto-disabled endpoint shows the banner with its reason; Re-enable and Resend failed since… deliver the failed events (${mode})`, async () => {
      const hook = await restWebhook();
      receiver.respondWith({ status: 503 });
      const page = await signedInAdmin(javaScriptEnabled);
      const since = bed.runtime.clock.now();
      // Three events, two attempts each: the fifth failure within the hour stops the endpoint.
      for (const caption of ['one', 'two', 'three']) {
        await makeContent(bed.runtime, bed.ws.workspace, { caption });
        await deliverAll();
        bed.runtime.clock.advance(1000);
        await deliverAll();
      }
      expect((await rest('GET', `/api/v1/webhooks/${hook.id}`)).body.is_enabled).toBe(false);
      const failedEvents = new Set(receiver.requests.map((request) => request.headers['webhook-id'] as string));
      expect(failedEvents.size).toBe(3);

      await page.reload();
      const banner = card(page).getByRole('alert');
      await expect(banner.textContent()).resolves.toContain(
        `${AUTO_DISABLE_FAILURES} deliveries failed within an hour; the last time it answered 503.`,
      );
      await expect(banner.textContent()).resolves.toContain(`Deliveries to ${hookUrl()} were stopped`);
      // The delivery log shows the same banner; re-enable from there.
      await card(page)
        .getByRole('link', { name: `Delivery log of ${hookUrl()}` })
        .click();
      await page.waitForURL(`${bed.server.url}/app/webhooks/${hook.id}`);
      await expect(page.getByRole('alert').textContent()).resolves.toContain('the last time it answered 503');
      // Nothing can be resent to a disabled endpoint, so the page offers no button that could only fail.
      await expect(page.getByRole('button', { name: /^Resend/ }).count()).resolves.toBe(0);
      await expect(
        page.getByText('Failed deliveries can be resent once this webhook is enabled again.').count(),
      ).resolves.toBe(1);
      if (javaScriptEnabled)
        await checkLooks([
          ['admin-webhooks-auto-disabled', '/app/webhooks'],
          ['admin-webhook-deliveries-auto-disabled', `/app/webhooks/${hook.id}`],
        ]);

      receiver.respondWith({ status: 200 });
      receiver.requests.length = 0;
      await page.getByRole('button', { name: 'Re-enable' }).click();
      await page.waitForURL(`${bed.server.url}/app/webhooks/${hook.id}?done=enabled`);
      await expect(page.getByRole('alert').count()).resolves.toBe(0);
      expect((await rest('GET', `/api/v1/webhooks/${hook.id}`)).body.is_enabled).toBe(true);

      const resendFailed = page.getByRole('group', { name: 'Resend failed since…' });
      // The workspace's timezone is UTC, so the local time is the ISO time without its zone.
      await resendFailed.getByLabel(/^Since/).fill(since.toISOString().slice(0, 16));
      await resendFailed.getByRole('button', { name: 'Resend failed' }).click();
      await page.waitForURL(/queued=\d+$/);
      const queued = Number(new URL(page.url()).searchParams.get('queued'));
      expect(queued).toBeGreaterThan(0);
      await expect(notice(page)).resolves.toMatch(/^Queued \d+ failed events? again\.$/);
      await deliverAll();
      const given = (
        await bed.runtime.db.all(sql`select distinct event_id from webhook_deliveries where status = 'failed'`)
      ).map((row) => (row as { event_id: string }).event_id);
      expect(given.length).toBe(queued);
      // The given-up deliveries come again with their event ids; the one still due a retry when the
      // endpoint stopped is sent as well, now that it is enabled.
      const received = new Set(receiver.requests.map((request) => request.headers['webhook-id'] as string));
      for (const id of given) expect(received).toContain(id);
      expect(received).toEqual(failedEvents);
      await page.getByLabel('Outcome').selectOption({ label: 'Delivered' });
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/status=delivered/);
      expect((await logRows(page)).map((row) => row[3])).toEqual(Array(failedEvents.size).fill('200'));
    });
  }

  it("another workspace's webhook is not found: its log answers 404 and its actions are refused", async () => {
    const other = await makeWorkspace(bed.runtime);
    const theirs = await makeWebhook(bed.runtime, other.workspace, { url: `${receiver.url}/theirs` });
    const page = await signedInAdmin(false);
    await expect(page.getByRole('article', { name: `${receiver.url}/theirs` }).count()).resolves.toBe(0);
    const log = await page.goto(`${bed.server.url}/app/webhooks/${theirs.id}`);
    expect(log?.status()).toBe(404);
    await expect(page.getByRole('main').textContent()).resolves.toContain(
      'There is no such webhook in this workspace.',
    );
    await page.goto(`${bed.server.url}/app/webhooks`);
    for (const action of ['rotate', 'test', 'disable', 'events']) {
      const answer = await page.request.post(`${bed.server.url}/app/webhooks/${theirs.id}/${action}`, {
        form: { _csrf: await csrfOf(page) },
        headers: { origin: bed.server.url },
        maxRedirects: 0,
      });
      expect(answer.status(), action).toBe(404);
    }
    expect(receiver.requests).toHaveLength(0);
    const still = await call(bed.server, 'GET', `/api/v1/webhooks/${theirs.id}`, { headers: other.headers });
    expect(still.body).toMatchObject({ is_enabled: true, events: [] });
  });

  it('Resend failed with a range that ends before it starts answers 400 with what to fix', async () => {
    const hook = await restWebhook();
    const page = await signedInAdmin(false, `/app/webhooks/${hook.id}`);
    const resendFailed = page.getByRole('group', { name: 'Resend failed since…' });
    await resendFailed.getByLabel(/^Since/).fill('2026-03-10T12:00');
    await resendFailed.getByLabel(/^Until/).fill('2026-03-09T12:00');
    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.request().method() === 'POST'),
      resendFailed.getByRole('button', { name: 'Resend failed' }).click(),
    ]);
    expect(answer.status()).toBe(400);
    await page.waitForURL(/\/resend-failed$/);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('That did not work');
    const said = (await page.getByRole('main').textContent()) ?? '';
    expect(said.split('until must be later than since').length - 1, said).toBe(1);
    // The way back is the page the form was on, not the inbox.
    await page.getByRole('link', { name: 'Back to the page you were on' }).click();
    await page.waitForURL(`${bed.server.url}/app/webhooks/${hook.id}`);
  });

  it('the webhooks list, a new secret and a delivery log with rows have no serious axe findings at 1280 and 360 px, and are screenshot', async () => {
    const hook = await restWebhook(['content.created', 'content.approved']);
    receiver.respondWith({ status: 500, body: 'Internal Server Error: the receiver is down for maintenance.' });
    for (const caption of ['one', 'two']) await makeContent(bed.runtime, bed.ws.workspace, { caption });
    await deliverAll();
    receiver.respondWith({ status: 200, body: '{"ok":true}' });
    bed.runtime.clock.advance(1000);
    await deliverAll();
    await checkLooks([
      [
        'admin-webhooks-secret',
        async (page) => {
          await page.goto(`${bed.server.url}/app/webhooks`);
          await page.getByLabel('Endpoint URL').fill(`${receiver.url}/second`);
          await page.getByRole('button', { name: 'Create webhook' }).click();
          await page.waitForURL(`${bed.server.url}/app/webhooks`);
          await expect(page.getByRole('textbox', { name: 'Signing secret' }).count()).resolves.toBe(1);
        },
      ],
      ['admin-webhooks', '/app/webhooks'],
      [
        'admin-webhook-deliveries',
        async (page) => {
          await page.goto(`${bed.server.url}/app/webhooks/${hook.id}`);
          expect(await logRows(page)).toHaveLength(4);
        },
      ],
    ]);
  });
});
