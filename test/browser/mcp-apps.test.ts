import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { build } from 'esbuild';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { call, useRestTestbed } from '../helpers/http.ts';
import { issueTestToken } from '../helpers/oauth-tokens.ts';
import { makePerson } from '../helpers/people.ts';
import { eq } from 'drizzle-orm';
import { content } from '../../db/schema/index.ts';
import {
  axeRuleViolations,
  launchBrowser,
  loopbackContext,
  saveScreenshot,
  seriousAxeViolations,
} from '../helpers/browser.ts';

/**
 * The MCP App views in headless chromium, inside a host page of the tests' own: the view sits in a
 * sandboxed iframe (scripts only, an opaque origin) under the CSP a host derives from the view's
 * `_meta.ui.csp`, and ext-apps' AppBridge speaks the host side. Every tools/call the view makes is
 * forwarded to the running server over real MCP HTTP.
 */

const SLOW = 60_000;

/** 297 weighted characters for X (plain Latin text weighs one each), one sentence over and over. */
const CAPTION_297 = 'Our spring range lands on Friday with new colours and a recycled fabric line. '
  .repeat(4)
  .slice(0, 297);

/** ext-apps' host side, bundled for the page. */
let bridgeBundle: string;
let browser: Browser;

beforeAll(async () => {
  const bundled = await build({
    stdin: {
      contents: "export { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';",
      resolveDir: process.cwd(),
    },
    bundle: true,
    format: 'iife',
    globalName: 'McpAppsHost',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  bridgeBundle = bundled.outputFiles[0]!.text.replace(/<\/script/gi, '<\\/script');
  browser = await launchBrowser();
}, SLOW);

afterAll(async () => {
  await browser?.close();
});

interface HostedView {
  page: Page;
  frame: Frame;
  blockedRequests: string[];
  /** Every URL the page or the view asked for. */
  requests: string[];
  /** What the view asked the host to open. */
  openedLinks: () => Promise<string[]>;
}

describe('MCP App views in a host page', () => {
  const bed = useRestTestbed({ env: { PUBLIC_BASE_URL: 'http://127.0.0.1:3000' } });
  let hostServer: Server;
  let hostUrl: string;
  let clients: Client[];

  beforeEach(async () => {
    clients = [];
    hostServer = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test host</title></head>' +
          `<body><main><h1>Conversation</h1></main><script>${bridgeBundle}</script></body></html>`,
      );
    });
    await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));
    hostUrl = `http://127.0.0.1:${(hostServer.address() as AddressInfo).port}/`;
  });

  afterEach(async () => {
    for (const client of clients) await client.close();
    await new Promise<void>((resolve) => hostServer.close(() => resolve()));
  });

  async function mcpClient(path = '/mcp', token = bed.ws.apiKey): Promise<Client> {
    // A host that shows views says so in its capabilities.
    const client = new Client(
      { name: 'test-host', version: '1.0.0' },
      {
        versionNegotiation: { mode: 'auto' },
        capabilities: { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } } as object,
      },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(bed.server.url + path), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  /**
   * Calls the tool as an assistant would, then opens its view in the host page with the tool's input
   * and result, the way a host renders a tool call.
   */
  async function hostView(
    tool: string,
    args: Record<string, unknown>,
    { path = '/mcp', width = 800, token }: { path?: string; width?: number; token?: string } = {},
  ): Promise<HostedView> {
    const client = await mcpClient(path, token);
    const { tools } = await client.listTools();
    const uri = (tools.find((candidate) => candidate.name === tool)!._meta as any).ui.resourceUri as string;
    const { contents } = await client.readResource({ uri });
    const view = contents[0] as { text: string; _meta: any };
    const result = await client.callTool({ name: tool, arguments: args });

    const { context, blockedRequests } = await loopbackContext(browser, { viewport: { width, height: 900 } });
    const requests: string[] = [];
    context.on('request', (request) => requests.push(request.url()));
    const page = await context.newPage();
    await page.exposeFunction('callServerTool', (params: { name: string; arguments?: Record<string, unknown> }) =>
      client.callTool(params),
    );
    await page.goto(hostUrl);
    // The CSP a host builds from the view's declaration: inline script and style, images from the
    // declared origins and data:, nothing to connect to, no frames.
    const images = ['data:', ...view._meta.ui.csp.resourceDomains].join(' ');
    const csp = `default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src ${images}; media-src ${images}; connect-src 'none'; frame-src 'none'; base-uri 'none'`;
    await page.evaluate(
      async ({ html, csp, args, result }) => {
        const g = globalThis as any;
        const { AppBridge, PostMessageTransport } = g.McpAppsHost;
        g.openedLinks = [];
        g.sizes = [];
        const iframe = g.document.createElement('iframe');
        iframe.setAttribute('sandbox', 'allow-scripts');
        iframe.title = 'Content view';
        iframe.style.cssText = 'width:100%;border:0;display:block';
        iframe.srcdoc = html.replace('<head>', `<head><meta http-equiv="Content-Security-Policy" content="${csp}">`);
        g.document.querySelector('main').append(iframe);
        const bridge = new AppBridge(
          null,
          { name: 'test-host', version: '1.0.0' },
          { openLinks: {}, serverTools: {} },
          { hostContext: { theme: 'light', platform: 'web', locale: 'en-GB' } },
        );
        bridge.oncalltool = (params: unknown) => g.callServerTool(params);
        bridge.onopenlink = async ({ url }: { url: string }) => {
          g.openedLinks.push(url);
          return {};
        };
        bridge.onsizechange = ({ height }: { height?: number }) => {
          g.sizes.push(height);
          if (height) iframe.style.height = `${height}px`;
        };
        const initialized = new Promise((resolve) => (bridge.oninitialized = resolve));
        await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
        await initialized;
        await bridge.sendToolInput({ arguments: args });
        await bridge.sendToolResult(result);
        g.bridge = bridge;
      },
      { html: view.text, csp, args, result },
    );
    const frame = page.frames().find((candidate) => candidate !== page.mainFrame())!;
    await frame.waitForSelector('main h1');
    return {
      page,
      frame,
      blockedRequests,
      requests,
      openedLinks: () => page.evaluate(() => (globalThis as any).openedLinks as string[]),
    };
  }

  const restItem = async (id: string) =>
    (await call(bed.server, 'GET', `/api/v1/content/${id}`, { headers: bed.ws.headers })).body;

  const createItem = async (body: Record<string, unknown>) => {
    const created = await call(bed.server, 'POST', '/api/v1/content', { headers: bed.ws.headers, body });
    expect(created.status).toBe(201);
    return created.body;
  };

  /** The view made no request of its own: the host page alone was loaded. */
  const expectOnlyHostRequests = (hosted: HostedView) => {
    expect(hosted.blockedRequests).toEqual([]);
    expect(hosted.requests).toEqual([hostUrl]);
  };

  it(
    "loads thumbnails from the service's own origin only, naming media kept elsewhere",
    async () => {
      const own = 'http://127.0.0.1:3000/media/spring.png';
      const elsewhere = 'https://cdn.example.com/spring-2.png';
      const item = await createItem({
        caption: 'Spring',
        target_platforms: ['linkedin'],
        media_urls: [own, elsewhere],
      });
      const hosted = await hostView('service_get_content', { id: item.id });
      const media = hosted.frame.getByRole('list', { name: 'Media, in order' });
      await expect.poll(() => media.locator('img').count()).toBe(1);
      expect(await media.locator('img').getAttribute('src')).toBe(own);
      expect(await media.locator('.external').textContent()).toBe('Media 2 of 2, no alt text');
      // The declared origin is asked for its thumbnail (nothing listens there in this test); nothing else is asked.
      await expect.poll(() => hosted.requests.includes(own)).toBe(true);
      expect(hosted.blockedRequests).toEqual([]);
      expect([...new Set(hosted.requests)]).toEqual([hostUrl, own]);
    },
    SLOW,
  );

  it(
    'previews an X and LinkedIn item as two cards, the X card naming the 280 limit, and approves it through the host',
    async () => {
      const item = await createItem({
        caption: CAPTION_297,
        target_platforms: ['twitter', 'linkedin'],
        status: 'pending_review',
      });
      const hosted = await hostView('service_get_content', { id: item.id });
      const { frame, page } = hosted;
      const cards = frame.locator('article.card');
      await expect.poll(() => cards.count()).toBe(2);
      const x = frame.getByRole('article', { name: 'X preview' });
      await expect.poll(() => x.textContent()).toContain('297 of 280 weighted characters');
      expect(await x.textContent()).toContain('X: 297 of 280 characters');
      expect(await frame.getByRole('article', { name: 'LinkedIn preview' }).textContent()).toContain(
        '297 of 3000 characters',
      );
      expect(await frame.locator('.status').first().textContent()).toBe('Waiting for review');
      expect(await frame.locator('.history').textContent()).toContain('Waiting for review');

      expect(await seriousAxeViolations(frame as unknown as Page)).toEqual([]);
      expect((await page.evaluate(() => (globalThis as any).sizes as number[])).length).toBeGreaterThan(0);
      await saveScreenshot(page, 'mcp-apps-preview-800');
      await page.setViewportSize({ width: 360, height: 900 });
      // Nothing overflows the narrow frame sideways.
      await expect
        .poll(() =>
          frame.evaluate(() => {
            const root = (globalThis as any).document.documentElement;
            return root.scrollWidth <= root.clientWidth && root.clientWidth < 360;
          }),
        )
        .toBe(true);
      await saveScreenshot(page, 'mcp-apps-preview-360');

      // The host's theme is followed when it changes.
      await page.evaluate(() => (globalThis as any).bridge.sendHostContextChange({ theme: 'dark' }));
      await expect
        .poll(() => frame.evaluate(() => (globalThis as any).document.documentElement.dataset.theme))
        .toBe('dark');
      expect(await seriousAxeViolations(frame as unknown as Page)).toEqual([]);
      await saveScreenshot(page, 'mcp-apps-preview-360-dark');

      // Without a time: "Approve and publish now" or "Approve only", as the policy offers them.
      expect(await frame.getByRole('button', { name: 'Approve and publish now' }).count()).toBe(1);
      await frame.getByRole('button', { name: 'Approve only' }).click();
      await expect.poll(() => frame.locator('.status').first().textContent()).toBe('Approved, not scheduled');
      expect(await restItem(item.id)).toMatchObject({ status: 'approved', publish_queued: false });
      expect(await frame.getByRole('button', { name: /^Approve/ }).count()).toBe(0);
      // What is left for an approved item that is not queued: schedule it, or publish it now.
      expect(await frame.getByRole('button', { name: 'Publish now' }).count()).toBe(1);
      expect(await frame.getByRole('button', { name: 'Schedule' }).count()).toBe(1);
      expectOnlyHostRequests(hosted);
    },
    SLOW,
  );

  it(
    'rejects with the reason given',
    async () => {
      const item = await createItem({ caption: 'Not yet', target_platforms: ['linkedin'], status: 'pending_review' });
      const hosted = await hostView('service_get_content', { id: item.id }, { width: 360 });
      const { frame } = hosted;
      await frame.getByText('Reject…').click();
      await frame.getByLabel('Reason for the author').fill('The launch date moved.');
      await frame.getByRole('button', { name: 'Reject', exact: true }).click();
      await expect.poll(() => frame.locator('.status').first().textContent()).toBe('Rejected');
      const stored = await restItem(item.id);
      expect(stored).toMatchObject({ status: 'rejected', review_note: 'The launch date moved.' });
      expectOnlyHostRequests(hosted);
    },
    SLOW,
  );

  it(
    "shows each platform's publishing result and opens the post through the host's ui/open-link",
    async () => {
      // What the publishing run leaves on an item that went out on X and was refused by LinkedIn.
      const url = 'https://x.com/brand/status/1866000000000000000';
      const { id: contentId } = await createItem({ caption: 'Out now', target_platforms: ['twitter', 'linkedin'] });
      const attemptedAt = '2026-03-10T09:00:00.000Z';
      await bed.runtime.db
        .update(content)
        .set({
          status: 'published',
          publishedAt: new Date(attemptedAt),
          publishResults: [
            {
              platform: 'twitter',
              success: true,
              platform_post_id: '1866000000000000000',
              url,
              notice: null,
              error: null,
              attempted_at: attemptedAt,
            },
            {
              platform: 'linkedin',
              success: false,
              platform_post_id: null,
              url: null,
              notice: null,
              error: 'linkedin rejected the post',
              attempted_at: attemptedAt,
            },
          ],
        })
        .where(eq(content.id, contentId))
        .run();
      const hosted = await hostView('service_get_content', { id: contentId });
      const { frame } = hosted;
      expect(await frame.locator('.results').textContent()).toContain('linkedin rejected the post');
      await frame.getByRole('button', { name: 'View on X' }).click();
      await expect.poll(() => hosted.openedLinks()).toEqual([url]);
      // Opened by the host, not by the view: no request left for the platform.
      expectOnlyHostRequests(hosted);
    },
    SLOW,
  );

  it(
    'offers no link for a post URL that is not http(s), such as one stored before URLs were checked',
    async () => {
      const { id: contentId } = await createItem({ caption: 'Out now', target_platforms: ['twitter', 'linkedin'] });
      const attemptedAt = '2026-03-10T09:00:00.000Z';
      const published = (platform: string, url: string) => ({
        platform,
        success: true,
        platform_post_id: `${platform}-1`,
        url,
        notice: null,
        error: null,
        attempted_at: attemptedAt,
      });
      await bed.runtime.db
        .update(content)
        .set({
          status: 'published',
          publishedAt: new Date(attemptedAt),
          publishResults: [
            published('twitter', 'javascript:alert(document.domain)'),
            published('linkedin', 'data:text/html,<script>alert(1)</script>'),
          ],
        })
        .where(eq(content.id, contentId))
        .run();
      const hosted = await hostView('service_get_content', { id: contentId });
      const { frame } = hosted;
      await expect.poll(() => frame.locator('.results li').count()).toBe(2);
      expect(await frame.locator('.results').textContent()).toContain('published');
      expect(await frame.locator('.results button').count()).toBe(0);
      expect(await hosted.openedLinks()).toEqual([]);
      expectOnlyHostRequests(hosted);
    },
    SLOW,
  );

  it(
    'shows the API message of a failing call and changes nothing',
    async () => {
      const item = await createItem({ caption: 'Gone soon', target_platforms: ['linkedin'], status: 'pending_review' });
      const hosted = await hostView('service_get_content', { id: item.id });
      const { frame } = hosted;
      // Someone archives it meanwhile: approving it is refused.
      expect((await call(bed.server, 'DELETE', `/api/v1/content/${item.id}`, { headers: bed.ws.headers })).status).toBe(
        200,
      );
      await frame.getByRole('button', { name: 'Approve only' }).click();
      await expect.poll(() => frame.locator('.alert').count()).toBe(1);
      // The policy's own reason, as the server answered it.
      expect(await frame.locator('.alert').textContent()).toBe(
        'The item is archived; it cannot be changed. Archiving is final.',
      );
      expect((await restItem(item.id)).status).toBe('archived');
      expect(await frame.locator('.status').first().textContent()).toBe('Waiting for review');
      expect(await frame.getByRole('button', { name: 'Approve only' }).isEnabled()).toBe(true);
      expectOnlyHostRequests(hosted);
    },
    SLOW,
  );

  it(
    'shows the pending_review list as a queue where "Approve selected" approves exactly the two picked',
    async () => {
      const items = [];
      for (const caption of ['First in line', 'Second in line', 'Third in line']) {
        items.push(await createItem({ caption, target_platforms: ['linkedin'], status: 'pending_review' }));
      }
      const hosted = await hostView('service_list_content', { status: 'pending_review' });
      const { frame, page } = hosted;
      await expect.poll(() => frame.locator('h1').textContent()).toBe('Approval queue');
      await expect.poll(() => frame.locator('article.card').count()).toBe(3);
      expect(await seriousAxeViolations(frame as unknown as Page)).toEqual([]);
      await saveScreenshot(page, 'mcp-apps-queue-800');
      await page.setViewportSize({ width: 360, height: 900 });
      await saveScreenshot(page, 'mcp-apps-queue-360');

      const [first, second, third] = items;
      await frame.getByRole('article', { name: 'First in line' }).getByLabel('Select').check();
      await frame.getByRole('article', { name: 'Third in line' }).getByLabel('Select').check();
      await frame.getByRole('button', { name: 'Approve selected' }).click();
      await expect.poll(() => frame.locator('.notice').textContent()).toBe('Approved 2 items.');
      expect((await restItem(first.id)).status).toBe('approved');
      expect((await restItem(second.id)).status).toBe('pending_review');
      expect((await restItem(third.id)).status).toBe('approved');
      expectOnlyHostRequests(hosted);
    },
    SLOW,
  );

  it(
    "shows a scheduled range as a month in the workspace's zone, and reschedules keeping the time of day",
    async () => {
      const zone = await call(bed.server, 'PATCH', '/api/v1/me', {
        headers: bed.ws.headers,
        body: { timezone: 'America/New_York' },
      });
      expect(zone.status).toBe(200);
      const item = await createItem({
        caption: 'Winter sale opens',
        target_platforms: ['linkedin'],
        status: 'approved',
        scheduled_for: '2026-12-15T14:30:00Z',
      });
      const scheduled = await call(bed.server, 'PATCH', `/api/v1/content/${item.id}`, {
        headers: bed.ws.headers,
        body: { status: 'scheduled' },
      });
      expect(scheduled.body.status).toBe('scheduled');
      await createItem({
        caption: 'Approved, never queued',
        target_platforms: ['linkedin'],
        status: 'approved',
        scheduled_for: '2026-12-16T14:30:00Z',
      });
      // The browser's own zone is another one: the view must not use it.
      const hosted = await hostView('service_list_content', {
        scheduled_from: '2026-12-01T05:00:00Z',
        scheduled_to: '2027-01-01T05:00:00Z',
      });
      const { frame, page } = hosted;
      await expect.poll(() => frame.locator('h1').textContent()).toBe('Calendar: December 2026');
      // Each day is named by what it shows (axe label-content-name-mismatch), and an item that will not
      // go out is counted apart and marked in words.
      expect(await axeRuleViolations(frame as unknown as Page, ['label-content-name-mismatch'])).toEqual([]);
      await frame.getByRole('button', { name: '16 December 1 not scheduled' }).click();
      const waiting = frame.getByRole('region', { name: '16 December' });
      await expect.poll(() => waiting.textContent()).toContain('Not scheduled');
      expect(await waiting.textContent()).toContain('Approved, not scheduled');
      expect(await waiting.getByRole('button', { name: 'Move' }).count()).toBe(0);
      await frame.getByRole('button', { name: '15 December 1 post' }).click();
      const day = frame.getByRole('region', { name: '15 December' });
      await expect.poll(() => day.textContent()).toContain('09:30');
      expect(await day.textContent()).toContain('Winter sale opens');
      expect(await day.textContent()).toContain('Queued');
      expect(await seriousAxeViolations(frame as unknown as Page)).toEqual([]);
      expect(await axeRuleViolations(frame as unknown as Page, ['label-content-name-mismatch'])).toEqual([]);
      await saveScreenshot(page, 'mcp-apps-calendar-800');
      await page.setViewportSize({ width: 360, height: 900 });
      await saveScreenshot(page, 'mcp-apps-calendar-360');

      await day.getByLabel('New day').fill('2026-12-17');
      await day.getByRole('button', { name: 'Move' }).click();
      await expect.poll(async () => (await restItem(item.id)).scheduled_for).toBe('2026-12-17T14:30:00.000Z');
      await expect.poll(() => frame.getByRole('region', { name: '17 December' }).textContent()).toContain('09:30');
      expectOnlyHostRequests(hosted);
    },
    SLOW,
  );

  it(
    'steps through the months of a range that spans several',
    async () => {
      await call(bed.server, 'PATCH', '/api/v1/me', {
        headers: bed.ws.headers,
        body: { timezone: 'America/New_York' },
      });
      // 03:30 UTC on 1 January is still 31 December in New York.
      for (const [caption, at] of [
        ['Last of the year', '2027-01-01T03:30:00Z'],
        ['First of the year', '2027-01-04T15:00:00Z'],
      ]) {
        await createItem({ caption, target_platforms: ['linkedin'], status: 'scheduled', scheduled_for: at });
      }
      const { frame } = await hostView('service_list_content', {
        scheduled_from: '2026-12-01T05:00:00Z',
        scheduled_to: '2027-02-01T05:00:00Z',
      });
      await expect.poll(() => frame.locator('h1').textContent()).toBe('Calendar: December 2026');
      expect(await frame.getByRole('button', { name: 'Previous month' }).isDisabled()).toBe(true);
      await frame.getByRole('button', { name: '31 December 1 post' }).click();
      await expect.poll(() => frame.getByRole('region', { name: '31 December' }).textContent()).toContain('22:30');
      await frame.getByRole('button', { name: 'Next month' }).click();
      await expect.poll(() => frame.locator('h1').textContent()).toBe('Calendar: January 2027');
      expect(await frame.getByRole('button', { name: 'Next month' }).isDisabled()).toBe(true);
      await frame.getByRole('button', { name: '4 January 1 post' }).click();
      await expect.poll(() => frame.getByRole('region', { name: '4 January' }).textContent()).toContain('10:00');
    },
    SLOW,
  );

  it(
    'shows no action buttons under /mcp/readonly, in the preview and in the queue',
    async () => {
      const item = await createItem({ caption: 'Look only', target_platforms: ['linkedin'], status: 'pending_review' });
      const preview = await hostView('service_get_content', { id: item.id }, { path: '/mcp/readonly' });
      await expect.poll(() => preview.frame.locator('article.card').count()).toBe(1);
      expect(await preview.frame.getByRole('button').count()).toBe(0);
      const queue = await hostView('service_list_content', { status: 'pending_review' }, { path: '/mcp/readonly' });
      await expect.poll(() => queue.frame.locator('article.card').count()).toBe(1);
      expect(await queue.frame.getByRole('button').count()).toBe(0);
      expect(await queue.frame.getByRole('checkbox').count()).toBe(0);
    },
    SLOW,
  );

  it(
    "shows no action buttons to a viewer's grant, even one holding the write scope",
    async () => {
      const item = await createItem({
        caption: 'Viewers look',
        target_platforms: ['linkedin'],
        status: 'pending_review',
      });
      const viewer = await makePerson(bed.runtime, bed.ws.workspace.id, 'viewer');
      const { accessToken } = await issueTestToken(
        bed.runtime,
        bed.ws.workspace.id,
        ['read', 'write'],
        'Viewer',
        viewer.userId,
      );
      const preview = await hostView('service_get_content', { id: item.id }, { token: accessToken });
      await expect.poll(() => preview.frame.locator('article.card').count()).toBe(1);
      expect(await preview.frame.getByRole('button').count()).toBe(0);
    },
    SLOW,
  );
});
