/**
 * Development mode: the five fake platforms on loopback, so the connect-and-publish flow can be tried
 * without real credentials. `npm run dev:platforms` prints the environment to give the service;
 * Ctrl-C stops it. Ports come from FAKE_X_PORT, FAKE_LINKEDIN_PORT, FAKE_FACEBOOK_PORT,
 * FAKE_INSTAGRAM_PORT and FAKE_TIKTOK_PORT (4101 to 4105 by default).
 */
import { pathToFileURL } from 'node:url';
import { fakePlatformEnvironment } from './environment.ts';
import { startFakeFacebook, type FakeFacebook } from './facebook.ts';
import { startFakeInstagram, type FakeInstagram } from './instagram.ts';
import { startFakeLinkedIn, type FakeLinkedIn } from './linkedin.ts';
import { startFakeTikTok, type FakeTikTok } from './tiktok.ts';
import { startFakeX, type FakeX } from './x.ts';

export interface DevPlatformsOptions {
  /** Each fake's port; 0 picks a free one. */
  ports?: Partial<Record<'x' | 'linkedin' | 'facebook' | 'instagram' | 'tiktok', number>>;
  host?: string;
}

export interface DevPlatforms {
  x: FakeX;
  linkedin: FakeLinkedIn;
  facebook: FakeFacebook;
  instagram: FakeInstagram;
  tiktok: FakeTikTok;
  /** The variables that point the service's connectors at the fakes. */
  environment: Record<string, string>;
  close(): Promise<void>;
}

/** Fixed credentials, so an environment file written once keeps working across restarts. */
const DEV_CREDENTIALS = {
  x: { clientId: 'dev-fake-x-client', clientSecret: 'dev-fake-x-secret' },
  linkedin: { clientId: 'devfakelinkedin', clientSecret: 'dev-fake-linkedin-secret' },
  facebook: { appId: '4104104104104104', appSecret: 'dev-fake-facebook-secret' },
  instagram: { clientId: '4105105105105105', clientSecret: 'dev-fake-instagram-secret' },
  tiktok: { clientKey: 'devfaketiktokkey', clientSecret: 'dev-fake-tiktok-secret' },
};

const DEFAULT_PORTS = { x: 4101, linkedin: 4102, facebook: 4103, instagram: 4104, tiktok: 4105 };

export async function startDevPlatforms(options: DevPlatformsOptions = {}): Promise<DevPlatforms> {
  const host = options.host ?? '127.0.0.1';
  const port = (name: keyof typeof DEFAULT_PORTS) => options.ports?.[name] ?? DEFAULT_PORTS[name];
  // Processing runs on the wall clock here, as on the real platforms: a client must wait its turn.
  const x = await startFakeX({
    ...DEV_CREDENTIALS.x,
    host,
    port: port('x'),
    mediaProcessing: { states: ['pending', 'in_progress', 'succeeded'], checkAfterSecs: 2, advance: 'clock' },
  });
  const linkedin = await startFakeLinkedIn({
    ...DEV_CREDENTIALS.linkedin,
    host,
    port: port('linkedin'),
    videoProcessing: { advance: 'clock', steps: 5, outcome: 'AVAILABLE' },
  });
  const facebook = await startFakeFacebook({ ...DEV_CREDENTIALS.facebook, host, port: port('facebook') });
  const instagram = await startFakeInstagram({ ...DEV_CREDENTIALS.instagram, host, port: port('instagram') });
  const tiktok = await startFakeTikTok({ ...DEV_CREDENTIALS.tiktok, host, port: port('tiktok') });
  const fakes = { x, linkedin, facebook, instagram, tiktok };
  return {
    ...fakes,
    environment: fakePlatformEnvironment(fakes),
    close: async () => {
      await Promise.all(Object.values(fakes).map((fake) => fake.close()));
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
    (['x', 'linkedin', 'facebook', 'instagram', 'tiktok'] as const).flatMap((name) => {
      const value = portFromEnv(`FAKE_${name.toUpperCase()}_PORT`);
      return value === undefined ? [] : [[name, value]];
    }),
  );
  const platforms = await startDevPlatforms({ ports });
  const { x, linkedin, facebook, instagram, tiktok } = platforms;
  console.log(`Fake X on ${x.url} (logs in as @${x.users[0]!.username})`);
  console.log(`Fake LinkedIn on ${linkedin.url} (logs in as ${linkedin.members[0]!.name})`);
  console.log(`Fake Facebook on ${facebook.url}`);
  console.log(`Fake Instagram on ${instagram.url}`);
  console.log(`Fake TikTok on ${tiktok.url}`);
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
