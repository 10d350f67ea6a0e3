/**
 * Development mode: every platform's fake (platforms.ts) on loopback, so the connect-and-publish flow
 * can be tried without real credentials. `npm run dev:platforms` prints the environment to give the
 * service; Ctrl-C stops it. Each fake's port comes from FAKE_<KEY>_PORT (FAKE_X_PORT,
 * FAKE_LINKEDIN_PORT, …), 4101 and up by default.
 */
import { pathToFileURL } from 'node:url';
import { fakePlatformEnvironment } from './environment.ts';
import { FAKE_PLATFORMS, type FakeKey, type RunningFakesByKey } from './platforms.ts';

export interface DevPlatformsOptions {
  /** Each fake's port; 0 picks a free one. */
  ports?: Partial<Record<FakeKey, number>>;
  host?: string;
}

export type DevPlatforms = RunningFakesByKey & {
  /** The variables that point the service's connectors at the fakes. */
  environment: Record<string, string>;
  close(): Promise<void>;
};

type AnyFakePlatform = {
  key: FakeKey;
  defaultPort: number;
  startForDevelopment(options: { host: string; port: number }): Promise<{ url: string; close(): Promise<void> }>;
  describe(fake: unknown): string;
};

const fakePlatforms = (): AnyFakePlatform[] => Object.values(FAKE_PLATFORMS) as AnyFakePlatform[];

export async function startDevPlatforms(options: DevPlatformsOptions = {}): Promise<DevPlatforms> {
  const host = options.host ?? '127.0.0.1';
  const started: Array<[FakeKey, { url: string; close(): Promise<void> }]> = [];
  try {
    for (const fake of fakePlatforms()) {
      const port = options.ports?.[fake.key] ?? fake.defaultPort;
      started.push([fake.key, await fake.startForDevelopment({ host, port })]);
    }
  } catch (error) {
    await Promise.all(started.map(([, fake]) => fake.close()));
    throw error;
  }
  const fakes = Object.fromEntries(started) as RunningFakesByKey;
  return {
    ...fakes,
    environment: fakePlatformEnvironment(fakes),
    close: async () => {
      await Promise.all(started.map(([, fake]) => fake.close()));
    },
  };
}

/** `NAME=value` lines, ready for a shell `export` or an env file. */
export function formatEnvironment(environment: Record<string, string>): string {
  return Object.entries(environment)
    .map(([name, value]) => `${name}=${value}`)
    .join('\n');
}

function portFromEnv(name: string): number | undefined {
  const value = process.env[name];
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`${name} must be a port number`);
  return port;
}

async function main(): Promise<void> {
  const ports = Object.fromEntries(
    fakePlatforms().flatMap(({ key }) => {
      const value = portFromEnv(`FAKE_${key.toUpperCase()}_PORT`);
      return value === undefined ? [] : [[key, value]];
    }),
  );
  const platforms = await startDevPlatforms({ ports });
  for (const fake of fakePlatforms()) console.log(fake.describe(platforms[fake.key]));
  console.log('\nSet these for the service:\n');
  console.log(formatEnvironment(platforms.environment));
  console.log('\nCtrl-C stops them all.');
  const stop = () => {
    void platforms.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
