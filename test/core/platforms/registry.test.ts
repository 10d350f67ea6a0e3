import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevPlatforms, type DevPlatforms } from '../../../fakes/dev.ts';
import { FAKE_PLATFORMS } from '../../../fakes/platforms.ts';
import { loadConfig } from '../../../src/core/config.ts';
import type { AnyPlatformEntry } from '../../../src/core/platforms/platform-entry.ts';
import { OAUTH_PLATFORMS, PLATFORM_REGISTRY, PLATFORMS } from '../../../src/core/platforms/registry.ts';
import { PLATFORM_RULES } from '../../../src/core/platforms/rules.ts';

/** What a platform must come with, besides its folder: the bar for adding one. */
interface Surroundings {
  /** Platform ids that have a fake in fakes/platforms.ts. */
  fakes: readonly string[];
  /** The environment `npm run dev:platforms` prints. */
  devEnvironment: Record<string, string>;
  /** docs/configuration.md. */
  configurationDoc: string;
}

/** The cells of the docs' platforms table row for `id`, or undefined when there is none. */
function platformsTableRow(doc: string, id: string): string[] | undefined {
  return doc
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    )
    .find((cells) => cells[1] === `\`${id}\``);
}

/** Every way `entry` falls short of the bar; empty when it meets it. */
function problemsOf(entry: AnyPlatformEntry, around: Surroundings): string[] {
  const problems: string[] = [];
  const { rules } = entry;
  if (!rules || !(rules.maxText > 0) || !(rules.maxMedia >= 0) || !rules.textMeasure) problems.push('no rules');
  if (!around.fakes.includes(entry.id)) problems.push('no fake in fakes/platforms.ts');
  const variables = Object.keys(entry.variables);
  if (variables.length === 0) problems.push('no configuration variables');
  const documentedRows = around.configurationDoc.split('\n').filter((row) => row.startsWith('|'));
  for (const variable of variables) {
    if (!documentedRows.some((row) => row.includes(`\`${variable}\``))) {
      problems.push(`${variable} is not documented in docs/configuration.md`);
    }
  }
  // The fake must be one dev:platforms starts: its URLs (`_BASE_URL` hosts, or a `_SERVICE_URL`
  // server) are what the printed environment points at.
  const baseUrls = variables.filter((variable) => variable.endsWith('_URL'));
  if (baseUrls.length === 0 || !baseUrls.every((variable) => around.devEnvironment[variable]?.startsWith('http://'))) {
    problems.push('no dev:platforms entry pointing its base URLs at a fake');
  }
  const row = platformsTableRow(around.configurationDoc, entry.id);
  if (!row) problems.push('no row in the platforms table of docs/configuration.md');
  else {
    const [name, , connects, text, media, documentedVariables] = row;
    if (name !== entry.name) problems.push(`the docs row names it ${name}, the registry ${entry.name}`);
    if (connects !== { oauth: 'OAuth', credentials: 'Credentials' }[entry.connect as string]) {
      problems.push(`the docs row says it connects with ${connects}`);
    }
    if (text?.split(' ')[0]?.replaceAll(',', '') !== String(rules.maxText))
      problems.push(`the docs row's text is ${text}`);
    if (media !== String(rules.maxMedia)) problems.push(`the docs row's media is ${media}`);
    for (const variable of variables) {
      if (!documentedVariables?.includes(`\`${variable}\``)) problems.push(`the docs row does not name ${variable}`);
    }
  }
  return problems;
}

describe('the platform registry', () => {
  let dev: DevPlatforms;
  let around: Surroundings;
  beforeAll(async () => {
    const ports = Object.fromEntries(Object.values(FAKE_PLATFORMS).map((fake) => [fake.key, 0]));
    dev = await startDevPlatforms({ ports });
    around = {
      fakes: Object.keys(FAKE_PLATFORMS),
      devEnvironment: dev.environment,
      configurationDoc: readFileSync('docs/configuration.md', 'utf8'),
    };
  });
  afterAll(async () => {
    await dev.close();
  });

  it('lists each platform once, and the stored ids are its ids', () => {
    expect(new Set(PLATFORMS).size).toBe(PLATFORM_REGISTRY.length);
    expect(PLATFORMS).toEqual(PLATFORM_REGISTRY.map((entry) => entry.id));
    expect(Object.keys(PLATFORM_RULES)).toEqual(PLATFORMS);
  });

  it.each(PLATFORM_REGISTRY.map((entry) => [entry.id, entry] as const))(
    '%s has rules, documented variables, a fake in dev:platforms and a docs row',
    (_id, entry) => {
      expect(problemsOf(entry, around)).toEqual([]);
    },
  );

  it('every fake belongs to a platform of the registry', () => {
    expect(Object.keys(FAKE_PLATFORMS).sort()).toEqual([...PLATFORMS].sort());
  });

  it('the development environment configures every platform: an OAuth app for each OAuth one', () => {
    const config = loadConfig(dev.environment);
    for (const platform of PLATFORMS) expect(config.live[platform].apiBaseUrl).toMatch(/^http:\/\/127\.0\.0\.1:/);
    for (const platform of OAUTH_PLATFORMS) {
      const app = config.live[platform] as { clientId: string | null; credentialVariables: readonly string[] };
      expect(app.credentialVariables).toHaveLength(2);
      expect(app.clientId).not.toBeNull();
    }
  });

  it('names what an entry lacks: a platform without a fake, docs or a dev:platforms entry fails', () => {
    const x = PLATFORM_REGISTRY.find((entry) => entry.id === 'twitter')!;
    const newcomer: AnyPlatformEntry = {
      ...x,
      id: 'mastodon',
      name: 'Mastodon',
      variables: { MASTODON_API_BASE_URL: x.variables.X_API_BASE_URL },
    };
    expect(problemsOf(newcomer, around)).toEqual([
      'no fake in fakes/platforms.ts',
      'MASTODON_API_BASE_URL is not documented in docs/configuration.md',
      'no dev:platforms entry pointing its base URLs at a fake',
      'no row in the platforms table of docs/configuration.md',
    ]);
    // X itself, without its fake: the same check refuses it.
    expect(problemsOf(x, { ...around, fakes: around.fakes.filter((id) => id !== 'twitter') })).toEqual([
      'no fake in fakes/platforms.ts',
    ]);
    // So is Bluesky, the platform that connects with credentials.
    const bluesky = PLATFORM_REGISTRY.find((entry) => entry.id === 'bluesky')!;
    expect(problemsOf(bluesky, { ...around, fakes: around.fakes.filter((id) => id !== 'bluesky') })).toEqual([
      'no fake in fakes/platforms.ts',
    ]);
  });
});
