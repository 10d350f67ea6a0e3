/**
 * What one platform is to the service, in one place: the registry (registry.ts) lists one entry per
 * platform, and everything that varies by platform (the stored platform ids, configuration, the
 * callback routes, the CLI, the OpenAPI enums, the rules a post is judged by) reads it from there, so
 * a new platform is its own folder plus one registry line.
 */
import type { z } from 'zod';
import type { Clock } from '../clock.ts';
import type { CredentialsProvider, LivePublisher, OAuthProvider } from './platform-client.ts';

/** How a platform counts the characters of a post's text (rules.ts). */
export type TextMeasureName = 'x-weighted' | 'code-points' | 'emoji-bytes' | 'graphemes';

export interface PlatformRules {
  /** Longest text accepted, measured with `textMeasure`; the text includes the hashtags as posted. */
  maxText: number;
  textMeasure: TextMeasureName;
  maxMedia: number;
  /** Whether the platform refuses a post without media, whatever its content type. */
  mediaRequired: boolean;
  /** Most hashtags the posted text may carry, inline ones included; null when the platform sets none. */
  maxHashtags: number | null;
  /** Most links the text may carry; absent when the platform sets no limit. */
  maxLinks?: number;
  /** Most UTF-8 bytes the text may take, on top of `maxText`; absent when the platform sets no such limit. */
  maxTextBytes?: number;
  /** True when the platform takes no video (images only); absent or false: video is accepted. */
  refusesVideo?: boolean;
}

/** What every platform's configuration block has: the host its API calls go to. */
export interface LivePlatformHosts {
  apiBaseUrl: string;
}

/** One platform's registered OAuth app and hosts, as configured; null credentials mean it cannot be connected live. */
export interface LivePlatformApp extends LivePlatformHosts {
  clientId: string | null;
  clientSecret: string | null;
  /** Where the user consents (and, for LinkedIn, where tokens are issued). */
  authBaseUrl: string;
  /** The variables that hold the credentials, named in `platform_not_configured`. */
  credentialVariables: readonly [string, string];
}

/** What every client is built with besides its own configuration. */
export interface ClientOptions {
  /** Deadline of each single request to the platform. */
  timeoutMs: number;
  clock: Clock;
}

/**
 * How an account of the platform is connected:
 * - `oauth`: through the platform's consent page, with the service's registered app (`Config` holds
 *   its client id and secret);
 * - `credentials`: the person gives an identifier and an app password once, which the service signs
 *   in with and forgets, keeping only the session (no app to register).
 */
export type ConnectKind<Config> =
  | {
      connect: 'oauth';
      oauth(config: Config & LivePlatformApp, options: ClientOptions): OAuthProvider;
    }
  | {
      connect: 'credentials';
      sessions(config: Config, options: ClientOptions): CredentialsProvider;
    };

/**
 * One platform. `Shape` is the zod shape of its environment variables (names, rules, defaults):
 * config.ts merges every entry's shape into the one schema it validates the environment with, and
 * hands each entry its parsed values to build its configuration block.
 */
export type PlatformEntry<Id extends string, Shape extends z.ZodRawShape, Config extends LivePlatformHosts> = {
  /** The id stored in the database and used in URLs; `twitter` is X's, kept from the first release. */
  id: Id;
  /** How messages and pages name the platform. */
  name: string;
  rules: PlatformRules;
  /**
   * How an account is named to a person (confirmation pages, messages). Absent: by its display name,
   * else its username; X writes its handles with `@`.
   */
  handle?(profile: { username: string; displayName?: string | null }): string;
  variables: Shape;
  readConfig(env: z.infer<z.ZodObject<Shape>>): Config;
  publisher(config: Config, options: ClientOptions): LivePublisher;
} & ConnectKind<Config>;

/** Any entry, for code that walks the registry. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyPlatformEntry = PlatformEntry<string, any, any>;

/** Declares an entry with its types inferred from the object itself. */
export const definePlatform = <Id extends string, Shape extends z.ZodRawShape, Config extends LivePlatformHosts>(
  entry: PlatformEntry<Id, Shape, Config>,
): PlatformEntry<Id, Shape, Config> => entry;

/** A base URL as configured, without the trailing slashes that would double the paths joined to it. */
export const withoutTrailingSlash = (url: string): string => url.replace(/\/+$/, '');
