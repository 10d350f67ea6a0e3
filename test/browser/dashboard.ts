/**
 * What the dashboard's browser tests share: one chromium per file, a fresh loopback-only context per
 * use, and after every test the check that no request left loopback (then the contexts close).
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { launchBrowser, loopbackContext, type GuardedContext } from '../helpers/browser.ts';

export interface OpenedPage extends GuardedContext {
  page: Page;
}

export const DESKTOP = { width: 1280, height: 800 };
export const NARROW = { width: 360, height: 740 };

export function useDashboardBrowser(): { open(options?: BrowserContextOptions): Promise<OpenedPage> } {
  let browser: Browser | undefined;
  const opened: GuardedContext[] = [];
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    const blocked = opened.flatMap((guard) => guard.blockedRequests);
    for (const guard of opened.splice(0)) await guard.context.close();
    expect(blocked, 'requests that left loopback').toEqual([]);
  });
  return {
    async open(options = {}) {
      const guard = await loopbackContext(browser!, { viewport: DESKTOP, ...options });
      opened.push(guard);
      return { ...guard, page: await guard.context.newPage() };
    },
  };
}

/** Signs in through the sign-in page, as a person does, and lands on `next` (the inbox by default). */
export async function signIn(
  page: Page,
  baseUrl: string,
  person: { email: string; password: string },
  next = '/app/inbox',
) {
  await page.goto(`${baseUrl}${next}`);
  await page.getByLabel('Email').fill(person.email);
  await page.getByLabel('Password').fill(person.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${baseUrl}${next}`);
}

/** The page's CSRF token, as its forms carry it. */
export const csrfOf = (page: Page): Promise<string> => page.locator('input[name="_csrf"]').first().inputValue();

/** How far the page is wider than the window: 0 when nothing makes a person scroll sideways. */
export const sidewaysOverflow = (page: Page): Promise<number> =>
  page.evaluate(() => {
    const root = (
      globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
    ).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
