/**
 * A real browser for the page and view tests: Debian's chromium driven by playwright-core. Nothing is
 * downloaded (.ci/run installs chromium with apt-get), and any request that leaves loopback fails the
 * test: `blockedRequests` lists them, and `expectOnlyLoopback` asserts it is empty.
 */
import { createRequire } from 'node:module';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Without the background-networking flags chromium keeps trying to reach outside hosts. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

export const launchBrowser = (): Promise<Browser> => {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(`chromium is not installed at ${CHROMIUM_PATH} (apt-get install -y chromium; .ci/run does it)`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
};

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

const isLoopbackOrLocal = (url: string): boolean => {
  if (url.startsWith('data:') || url.startsWith('blob:') || url === 'about:blank' || url.startsWith('about:srcdoc'))
    return true;
  try {
    return LOOPBACK_HOSTS.has(new URL(url).hostname);
  } catch {
    return false;
  }
};

export interface GuardedContext {
  context: BrowserContext;
  /** Every request that did not go to loopback; each was aborted. */
  blockedRequests: string[];
}

/** A browser context that aborts, and records, every request not to loopback. */
export const loopbackContext = async (
  browser: Browser,
  options: BrowserContextOptions = {},
): Promise<GuardedContext> => {
  const context = await browser.newContext(options);
  const blockedRequests: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (isLoopbackOrLocal(url)) return route.continue();
    blockedRequests.push(url);
    return route.abort('blockedbyclient');
  });
  return { context, blockedRequests };
};

const axeSource = (): string => {
  const require = createRequire(import.meta.url);
  return (require('axe-core') as { source: string }).source;
};

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; html: string }[];
}

/**
 * axe-core's WCAG 2 A and AA rules on the page as it is; returns the serious and critical findings.
 * The source is evaluated through the driver rather than added as a <script>: the pages' CSP
 * (script-src 'self') rightly blocks an inline script.
 */
export const seriousAxeViolations = async (page: Page): Promise<AxeViolation[]> => {
  await page.evaluate(axeSource());
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (...args: unknown[]) => Promise<{ violations: unknown[] }> } })
      .axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] },
    });
    return result.violations as AxeViolation[];
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({ ...violation, nodes: violation.nodes.map(({ target, html }) => ({ target, html })) }));
};

/**
 * The violations of the named axe rules alone, whatever their tags: for rules the wcag2 run above
 * leaves out, such as label-content-name-mismatch (WCAG 2.1, marked experimental by axe).
 */
export const axeRuleViolations = async (page: Page, rules: readonly string[]): Promise<AxeViolation[]> => {
  await page.evaluate(axeSource());
  const violations = await page.evaluate(async (values) => {
    const axe = (globalThis as unknown as { axe: { run: (...args: unknown[]) => Promise<{ violations: unknown[] }> } })
      .axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, {
      runOnly: { type: 'rule', values },
    });
    return result.violations as AxeViolation[];
  }, rules);
  return violations.map((violation) => ({
    ...violation,
    nodes: violation.nodes.map(({ target, html }) => ({ target, html })),
  }));
};

/** Screenshots go to test-results/screenshots (ignored by git), for people to look at. */
export const SCREENSHOT_DIR = join(process.cwd(), 'test-results', 'screenshots');

export const saveScreenshot = async (page: Page, name: string): Promise<string> => {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name.replace(/[^a-z0-9-]+/gi, '-')}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
};
