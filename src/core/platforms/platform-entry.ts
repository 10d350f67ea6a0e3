/**
 * What one platform is to the service, in one place: the registry (registry.ts) lists one entry per
 * platform, and everything that varies by platform (the stored platform ids, configuration, the
 * callback routes, the CLI, the OpenAPI enums, the rules a post is judged by) reads it from there, so
 * a new platform is its own folder plus one registry line.
 */
import type { z } from 'zod';
import type { Clock } from '../clock.ts';
import type { LivePublisher, OAuthProvider } from './platform-client.ts';

/** How a platform counts the characters of a post's text (text-measures.ts). */
export type TextMeasureName = 'x-weighted' | 'code-points' | 'emoji-bytes';

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
}

/** One platform's registered OAuth app and hosts, as configured; null credentials mean it cannot be connected live. */
export interface LivePlatformApp {
  clientId: string | null;
  clientSecret: string | null;
  /** Where the user consents (and, for LinkedIn, where tokens are issued). */
  authBaseUrl: string;
  apiBaseUrl: string;
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
 * One platform. `Shape` is the zod shape of its environment variables (names, rules, defaults):
 * config.ts merges every entry's shape into the one schema it validates the environment with, and
 * hands each entry its parsed values to build its configuration block.
 */
export interface PlatformEntry<Id extends string, Shape extends z.ZodRawShape, Config extends LivePlatformApp> {
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
  /** How an account is connected: the platform's OAuth consent page (the only kind so far). */
  connect: 'oauth';
  oauth(config: Config, options: ClientOptions): OAuthProvider;
  publisher(config: Config, options: ClientOptions): LivePublisher;
}

/** Any entry, for code that walks the registry. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyPlatformEntry = PlatformEntry<string, any, any>;

/** Declares an entry with its types inferred from the object itself. */
export const definePlatform = <Id extends string, Shape extends z.ZodRawShape, Config extends LivePlatformApp>(
  entry: PlatformEntry<Id, Shape, Config>,
): PlatformEntry<Id, Shape, Config> => entry;

/** A base URL as configured, without the trailing slashes that would double the paths joined to it. */
export const withoutTrailingSlash = (url: string): string => url.replace(/\/+$/, '');
