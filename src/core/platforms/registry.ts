/**
 * The platforms, each listed once. Everything that varies by platform derives from this list: the
 * platform ids the database accepts (db/schema `Platform`), configuration (config.ts), the callback
 * routes, the CLI, the OpenAPI enums, the tool descriptions and the rules posts are judged by. A new
 * platform is its folder plus one line here (and its fake, tests and docs row: test/core/platforms/
 * registry.test.ts checks them).
 */
import type { z } from 'zod';
import type { Platform } from '../../../db/schema/index.ts';
import type { Clock } from '../clock.ts';
import { blueskyPlatform } from './bluesky/platform.ts';
import { facebookPlatform } from './facebook/platform.ts';
import { instagramPlatform } from './instagram/platform.ts';
import { linkedInPlatform } from './linkedin/platform.ts';
import type { AnyPlatformEntry, LivePlatformApp, PlatformEntry } from './platform-entry.ts';
import type { CredentialsProvider, LivePlatformClient, OAuthApp, OAuthProvider } from './platform-client.ts';
import { threadsPlatform } from './threads/platform.ts';
import { tiktokPlatform } from './tiktok/platform.ts';
import { xPlatform } from './x/platform.ts';

/** In the order lists name them (messages, the docs, the OpenAPI enums). */
const ENTRIES = [
  xPlatform,
  linkedInPlatform,
  instagramPlatform,
  facebookPlatform,
  tiktokPlatform,
  threadsPlatform,
  blueskyPlatform,
] as const;

type Entries = (typeof ENTRIES)[number];

declare module '../../../db/schema/publishing.ts' {
  // The database's platform ids are the registry's (see PlatformIds there); merging is the point.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface PlatformIds extends Record<Entries['id'], true> {}
}

/** Every platform id, registry order. */
export const PLATFORMS = ENTRIES.map((entry) => entry.id) as unknown as readonly [Platform, ...Platform[]];

export const PLATFORM_REGISTRY: readonly AnyPlatformEntry[] = ENTRIES;

const BY_ID = new Map<string, AnyPlatformEntry>(ENTRIES.map((entry) => [entry.id, entry]));

export const isPlatform = (id: string): id is Platform => BY_ID.has(id);

/** The entry of a known platform. */
export const platformEntry = (platform: Platform): AnyPlatformEntry => BY_ID.get(platform)!;

/** How messages name each platform. */
export const PLATFORM_NAMES = Object.fromEntries(ENTRIES.map((entry) => [entry.id, entry.name])) as Readonly<
  Record<Platform, string>
>;

/** The platforms whose accounts connect through the platform's OAuth consent page. */
export const OAUTH_PLATFORMS = PLATFORMS.filter((platform) => platformEntry(platform).connect === 'oauth') as [
  Platform,
  ...Platform[],
];

/** The platforms whose accounts connect with an identifier and an app password (no consent page). */
export const CREDENTIALS_PLATFORMS = PLATFORMS.filter(
  (platform) => platformEntry(platform).connect === 'credentials',
) as readonly Platform[];

/** Platform ids for a sentence: `twitter, linkedin, … or tiktok` (with `and` where all are meant). */
export const platformIdList = (ids: readonly string[] = PLATFORMS, last: 'or' | 'and' = 'or'): string =>
  ids.length < 2 ? ids.join('') : `${ids.slice(0, -1).join(', ')} ${last} ${ids.at(-1)}`;

/** Whether `id` is a platform whose accounts connect over OAuth (its callback routes exist). */
export const isOAuthPlatform = (id: string): id is Platform => (OAUTH_PLATFORMS as readonly string[]).includes(id);

/** Whether `id` is a platform whose accounts connect with credentials. */
export const isCredentialsPlatform = (id: string): id is Platform =>
  (CREDENTIALS_PLATFORMS as readonly string[]).includes(id);

/** How an account is named to a person: as its platform's entry says, else by display name, else username. */
export const accountHandle = (platform: Platform, profile: { username: string; displayName?: string | null }): string =>
  platformEntry(platform).handle?.(profile) ?? profile.displayName ?? profile.username;

/** Each platform's configuration block, as its entry reads it from the environment. */
export type PlatformConfigs = {
  [E in Entries as E['id']]: E extends PlatformEntry<string, z.ZodRawShape, infer C> ? C : never;
};

/** What building a platform's client reads from the service's configuration (a `Config` has it). */
export interface PlatformsConfig {
  publicBaseUrl: string;
  publishing: { platformTimeoutSeconds: number };
  live: PlatformConfigs;
}

const optionsOf = (config: PlatformsConfig, clock: Clock) => ({
  timeoutMs: config.publishing.platformTimeoutSeconds * 1000,
  clock,
});

/** The platform's OAuth steps, against its configured hosts; null for an id that connects otherwise or is unknown. */
export function oauthProvider(config: PlatformsConfig, clock: Clock, platform: Platform): OAuthProvider | null;
export function oauthProvider(config: PlatformsConfig, clock: Clock, platform: string): OAuthProvider | null;
export function oauthProvider(config: PlatformsConfig, clock: Clock, platform: string): OAuthProvider | null {
  if (!isPlatform(platform)) return null;
  const entry = platformEntry(platform);
  return entry.connect === 'oauth' ? entry.oauth(config.live[platform], optionsOf(config, clock)) : null;
}

/** The sessions of a platform that connects with credentials; null for any other id. */
export function sessionsProvider(config: PlatformsConfig, clock: Clock, platform: string): CredentialsProvider | null {
  if (!isPlatform(platform)) return null;
  const entry = platformEntry(platform);
  return entry.connect === 'credentials' ? entry.sessions(config.live[platform], optionsOf(config, clock)) : null;
}

/** An OAuth platform's configured app (credentials, variables); null for a platform that connects otherwise. */
export function oauthAppConfig(config: PlatformsConfig, platform: string): LivePlatformApp | null {
  if (!isOAuthPlatform(platform)) return null;
  return config.live[platform] as LivePlatformApp;
}

/**
 * The registered app of a platform, with the callback URL the service serves; null when its client
 * id or secret is unset.
 */
export function oauthApp(config: PlatformsConfig, platform: string): OAuthApp | null {
  const app = oauthAppConfig(config, platform);
  if (!app?.clientId || !app.clientSecret) return null;
  return {
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    redirectUri: `${config.publicBaseUrl}/callbacks/${platform}/oauth`,
  };
}

/** The platform's client (its connect steps and publisher) against its configured hosts. */
export function liveClient(config: PlatformsConfig, clock: Clock, platform: Platform): LivePlatformClient {
  const entry = platformEntry(platform);
  const platformConfig = config.live[platform];
  const options = optionsOf(config, clock);
  const publisher = entry.publisher(platformConfig, options);
  return entry.connect === 'oauth'
    ? { oauth: entry.oauth(platformConfig, options), publisher }
    : { sessions: entry.sessions(platformConfig, options), publisher };
}
