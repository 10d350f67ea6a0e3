/**
 * The fake of every platform in the registry (src/core/platforms/registry.ts), keyed by platform id:
 * how development mode starts it, which variables point the service at it, and the line that
 * introduces it. The type requires one per platform, and test/core/platforms/registry.test.ts checks
 * it again at run time, so a platform cannot be added without its fake.
 */
import type { Platform } from '../db/schema/index.ts';
import { startFakeBluesky, type FakeBluesky } from './bluesky.ts';
import { startFakeFacebook, type FakeFacebook } from './facebook.ts';
import { startFakeInstagram, type FakeInstagram } from './instagram.ts';
import { startFakeLinkedIn, type FakeLinkedIn } from './linkedin.ts';
import { startFakeThreads, type FakeThreads } from './threads.ts';
import { startFakeTikTok, type FakeTikTok } from './tiktok.ts';
import { startFakeX, type FakeX } from './x.ts';

export interface FakePlatform<Key extends string, Fake extends { url: string; close(): Promise<void> }> {
  /** The fake's short name: its file, its `FAKE_<KEY>_PORT` and its field in RunningFakes. */
  key: Key;
  defaultPort: number;
  /** Starts it for development mode, with fixed credentials so an environment file keeps working across restarts. */
  startForDevelopment(options: { host: string; port: number }): Promise<Fake>;
  /** The service's variables that point its connector at this fake. */
  environment(fake: Fake): Record<string, string>;
  /** One line for the development-mode banner. */
  describe(fake: Fake): string;
}

const definedFake = <Key extends string, Fake extends { url: string; close(): Promise<void> }>(
  fake: FakePlatform<Key, Fake>,
) => fake;

/** In the order development mode prints them. */
export const FAKE_PLATFORMS = {
  twitter: definedFake({
    key: 'x',
    defaultPort: 4101,
    // Processing runs on the wall clock here, as on the real platforms: a client must wait its turn.
    startForDevelopment: (options) =>
      startFakeX({
        clientId: 'dev-fake-x-client',
        clientSecret: 'dev-fake-x-secret',
        ...options,
        mediaProcessing: { states: ['pending', 'in_progress', 'succeeded'], checkAfterSecs: 2, advance: 'clock' },
      }),
    environment: (fake: FakeX) => ({
      X_CLIENT_ID: fake.clientId,
      X_CLIENT_SECRET: fake.clientSecret,
      X_AUTH_BASE_URL: fake.url,
      X_API_BASE_URL: fake.url,
    }),
    describe: (fake) => `Fake X on ${fake.url} (logs in as @${fake.users[0]!.username})`,
  }),
  linkedin: definedFake({
    key: 'linkedin',
    defaultPort: 4102,
    startForDevelopment: (options) =>
      startFakeLinkedIn({
        clientId: 'devfakelinkedin',
        clientSecret: 'dev-fake-linkedin-secret',
        ...options,
        videoProcessing: { advance: 'clock', steps: 5, outcome: 'AVAILABLE' },
      }),
    environment: (fake: FakeLinkedIn) => ({
      LINKEDIN_CLIENT_ID: fake.clientId,
      LINKEDIN_CLIENT_SECRET: fake.clientSecret,
      LINKEDIN_AUTH_BASE_URL: fake.url,
      LINKEDIN_API_BASE_URL: fake.url,
      LINKEDIN_VERSION: fake.activeVersions()[0]!,
    }),
    describe: (fake) => `Fake LinkedIn on ${fake.url} (logs in as ${fake.members[0]!.name})`,
  }),
  facebook: definedFake({
    key: 'facebook',
    defaultPort: 4103,
    startForDevelopment: (options) =>
      startFakeFacebook({ appId: '4104104104104104', appSecret: 'dev-fake-facebook-secret', ...options }),
    environment: (fake: FakeFacebook) => ({
      FACEBOOK_APP_ID: fake.appId,
      FACEBOOK_APP_SECRET: fake.appSecret,
      FACEBOOK_AUTH_BASE_URL: fake.url,
      FACEBOOK_GRAPH_BASE_URL: fake.url,
      FACEBOOK_GRAPH_VIDEO_BASE_URL: fake.videoUrl,
    }),
    describe: (fake) => `Fake Facebook on ${fake.url}`,
  }),
  instagram: definedFake({
    key: 'instagram',
    defaultPort: 4104,
    startForDevelopment: (options) =>
      startFakeInstagram({ clientId: '4105105105105105', clientSecret: 'dev-fake-instagram-secret', ...options }),
    environment: (fake: FakeInstagram) => ({
      INSTAGRAM_APP_ID: fake.clientId,
      INSTAGRAM_APP_SECRET: fake.clientSecret,
      INSTAGRAM_AUTH_BASE_URL: fake.url,
      INSTAGRAM_TOKEN_BASE_URL: fake.url,
      INSTAGRAM_GRAPH_BASE_URL: fake.url,
    }),
    describe: (fake) => `Fake Instagram on ${fake.url}`,
  }),
  tiktok: definedFake({
    key: 'tiktok',
    defaultPort: 4105,
    startForDevelopment: (options) =>
      startFakeTikTok({ clientKey: 'devfaketiktokkey', clientSecret: 'dev-fake-tiktok-secret', ...options }),
    environment: (fake: FakeTikTok) => ({
      TIKTOK_CLIENT_KEY: fake.clientKey,
      TIKTOK_CLIENT_SECRET: fake.clientSecret,
      TIKTOK_AUTH_BASE_URL: fake.url,
      TIKTOK_API_BASE_URL: fake.url,
    }),
    describe: (fake) => `Fake TikTok on ${fake.url}`,
  }),
  threads: definedFake({
    key: 'threads',
    defaultPort: 4106,
    // Containers stay IN_PROGRESS for a poll, as Threads' do for a moment.
    startForDevelopment: (options) =>
      startFakeThreads({
        appId: '4106106106106106',
        appSecret: 'dev-fake-threads-secret',
        inProgressPolls: 1,
        ...options,
      }),
    environment: (fake: FakeThreads) => ({
      THREADS_APP_ID: fake.appId,
      THREADS_APP_SECRET: fake.appSecret,
      THREADS_AUTH_BASE_URL: fake.url,
      THREADS_GRAPH_BASE_URL: fake.url,
    }),
    describe: (fake) => `Fake Threads on ${fake.url} (logs in as @${fake.users[0]!.username})`,
  }),
  bluesky: definedFake({
    key: 'bluesky',
    defaultPort: 4107,
    startForDevelopment: (options) => startFakeBluesky(options),
    environment: (fake: FakeBluesky) => ({ BLUESKY_SERVICE_URL: fake.url }),
    describe: (fake) => {
      const [account] = fake.accounts;
      return `Fake Bluesky on ${fake.url} (connect ${account!.handle} with app password ${account!.appPassword})`;
    },
  }),
} satisfies Record<Platform, unknown>;

type Fakes = typeof FAKE_PLATFORMS;
type FakeOf<P extends keyof Fakes> = Awaited<ReturnType<Fakes[P]['startForDevelopment']>>;

/** The running fakes by short name (`x`, `linkedin`, …), as tests and development mode hold them. */
export type RunningFakesByKey = { [P in keyof Fakes as Fakes[P]['key']]: FakeOf<P> };

/** Every fake's short name. */
export type FakeKey = Fakes[keyof Fakes]['key'];
