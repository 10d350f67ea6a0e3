/**
 * Development mode: both fake platforms on loopback, so the connect-and-publish flow can be tried
 * without real credentials. `npm run dev:platforms` prints the environment to give the service;
 * Ctrl-C stops it. Ports come from FAKE_X_PORT and FAKE_LINKEDIN_PORT (4101 and 4102 by default).
 */
import { pathToFileURL } from 'node:url';
import { fakePlatformEnvironment } from './environment.ts';
import { startFakeLinkedIn, type FakeLinkedIn } from './linkedin.ts';
import { startFakeX, type FakeX } from './x.ts';

export interface DevPlatformsOptions {
  xPort?: number;
  linkedinPort?: number;
  host?: string;
}

export interface DevPlatforms {
  x: FakeX;
  linkedin: FakeLinkedIn;
  /** The variables that point the service's connectors at the fakes. */
  environment: Record<string, string>;
  close(): Promise<void>;
}

/** Fixed credentials, so an environment file written once keeps working across restarts. */
const DEV_CREDENTIALS = {
  x: { clientId: 'dev-fake-x-client', clientSecret: 'dev-fake-x-secret' },
  linkedin: { clientId: 'devfakelinkedin', clientSecret: 'dev-fake-linkedin-secret' },
};

export async function startDevPlatforms(options: DevPlatformsOptions = {}): Promise<DevPlatforms> {
  const host = options.host ?? '127.0.0.1';
  // Processing runs on the wall clock here, as on the real platforms: a client must wait its turn.
  const x = await startFakeX({
    ...DEV_CREDENTIALS.x,
    host,
    port: options.xPort ?? 4101,
    mediaProcessing: { states: ['pending', 'in_progress', 'succeeded'], checkAfterSecs: 2, advance: 'clock' },
  });
  const linkedin = await startFakeLinkedIn({
    ...DEV_CREDENTIALS.linkedin,
    host,
    port: options.linkedinPort ?? 4102,
    videoProcessing: { advance: 'clock', steps: 5, outcome: 'AVAILABLE' },
  });
  return {
    x,
    linkedin,
    environment: fakePlatformEnvironment({ x, linkedin }),
    close: async () => {
      await Promise.all([x.close(), linkedin.close()]);
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
  const platforms = await startDevPlatforms({
    ...(portFromEnv('FAKE_X_PORT') !== undefined && { xPort: portFromEnv('FAKE_X_PORT')! }),
    ...(portFromEnv('FAKE_LINKEDIN_PORT') !== undefined && { linkedinPort: portFromEnv('FAKE_LINKEDIN_PORT')! }),
  });
  const { x, linkedin } = platforms;
  console.log(`Fake X on ${x.url} (logs in as @${x.users[0]!.username})`);
  console.log(`Fake LinkedIn on ${linkedin.url} (logs in as ${linkedin.members[0]!.name})`);
  console.log('\nSet these for the service:\n');
  console.log(formatEnvironment(platforms.environment));
  console.log('\nCtrl-C stops both.');
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
