import { isIP } from 'node:net';
import { join } from 'node:path';
import { z } from 'zod';
import { type Platform } from '../../db/schema/index.ts';
import { LOG_LEVELS, type LogLevel } from './log.ts';
import { PLATFORM_REGISTRY, PLATFORMS, type PlatformConfigs } from './platforms/registry.ts';
import { DEFAULT_LOG_RETENTION_DAYS, DEFAULT_RETRY_DELAYS_SECONDS } from './webhooks/delivery/defaults.ts';

export type Bucket = 'read' | 'write' | 'publish' | 'media';

export interface Config {
  port: number;
  host: string;
  /** The least severe log lines written (`LOG_LEVEL`). */
  logLevel: LogLevel;
  /** When set, GET /metrics asks for `Authorization: Bearer <this>` (`METRICS_TOKEN`). */
  metricsToken: string | null;
  dataDir: string;
  /** The SQLite file (`DATABASE_FILE`, or a path in `DATABASE_URL`; default `DATA_DIR/service.db`), used when `databaseUrl` is null. */
  databaseFile: string;
  /** A PostgreSQL URL (`DATABASE_URL=postgres://…` or `postgresql://…`): the service runs on it instead of SQLite. */
  databaseUrl: string | null;
  /** Connections each process's PostgreSQL pool may hold at once (`DATABASE_POOL_MAX`). */
  databasePoolMax: number;
  publicBaseUrl: string;
  /**
   * Which peers may speak for the client in `X-Forwarded-For` (`TRUST_PROXY`), as Express's `trust
   * proxy` takes it: false (the TCP peer is the client), true, a number of hops, or addresses and subnets.
   */
  trustProxy: TrustProxy;
  docsUrl: string;
  rateLimits: Record<Bucket, number>;
  bodyLimitBytes: number;
  /** Browser origins allowed to call /mcp besides the service's own. */
  mcpAllowedOrigins: string[];
  /** Host names the service answers besides PUBLIC_BASE_URL's (`ALLOWED_HOSTS`), lowercase, without port. */
  allowedHosts: string[];
  /** Origins an account connection may send the person back to besides the service's own (exact origins). */
  connectReturnOrigins: string[];
  /**
   * Which tools MCP lists and serves, on both transports: only the read tools when `readOnly`
   * (SERVICE_READ_ONLY or `--read-only`), only the named ones when `names` is set (SERVICE_TOOLS);
   * both together give the intersection. The MCP door checks the names against its tools.
   */
  mcpTools: { readOnly: boolean; names: string[] | null };
  /** Whether this process runs the schedulers (the publishing run, webhook delivery, maintenance). */
  runSchedulers: boolean;
  /** How often the schedulers poll for work other processes queued (they are woken for their own). */
  schedulerPollSeconds: number;
  publishing: {
    /** How long a claimed item is held before another process may take it over. */
    leaseSeconds: number;
    /** Items one process fans out at once. */
    concurrency: number;
    /** A platform call that takes longer has an unknown outcome. */
    platformTimeoutSeconds: number;
    /** Testing knob: the sandbox platforms answer after this many milliseconds. */
    sandboxDelayMs: Partial<Record<Platform, number>>;
  };
  /** Per-platform app secrets that sign deauthorization callbacks (`<PLATFORM>_APP_SECRET`). */
  appSecrets: Partial<Record<Platform, string>>;
  /** The live connectors: each platform's OAuth app and hosts (injected, so tests point them at fakes). */
  live: LiveConfig;
  webhooks: {
    /** Seconds before attempts 2 to 6; 30 s, 2 min, 10 min, 1 h, 6 h by default. */
    retryDelaysSeconds: number[];
    /** Lifts the SSRF guard for local development and tests. */
    allowPrivateUrls: boolean;
    /** One deadline for connect, headers and body (10 seconds by contract). */
    timeoutMs: number;
    /** Attempts one process has out at once. */
    concurrency: number;
    /**
     * Days the delivery log and finished delivery jobs are kept (`WEBHOOK_LOG_RETENTION_DAYS`);
     * maintenance prunes older ones, except what a delivery still queued needs.
     */
    logRetentionDays: number;
  };
  /** base64 of the 32-byte key that encrypts signing secrets; when absent, one is kept in DATA_DIR. */
  encryptionKey: string | undefined;
  /** An OpenAI-compatible chat-completions endpoint that writes campaign posts instead of the built-in generator. */
  ai: {
    /** E.g. `https://api.openai.com/v1`; `/chat/completions` is appended. */
    baseUrl: string | null;
    /** Sent as a bearer token when set; never logged. */
    apiKey: string | null;
    model: string;
    /** One deadline per request, for the headers and the body. */
    timeoutMs: number;
    /** Further requests after the first fails (429, 5xx, a timeout, output that fails validation). */
    maxRetries: number;
  };
  campaigns: {
    /** How long a generation run holds a campaign without committing a batch; bounds the wait after a crash. */
    leaseSeconds: number;
  };
  media: {
    /** Where uploaded files are kept (`MEDIA_DIR`, default `DATA_DIR/media`). */
    dir: string;
    /** The largest upload accepted, in bytes (`MEDIA_MAX_BYTES`); a larger one is 413. */
    maxBytes: number;
  };
}

export type TrustProxy = boolean | number | string[];

/**
 * The live connectors: each platform's OAuth app and hosts (injected, so tests point them at fakes),
 * one block per platform as its registry entry reads it.
 */
export type LiveConfig = PlatformConfigs & {
  /** How long a publish keeps retrying a rate-limited or briefly unavailable platform within its run. */
  retryWindowSeconds: number;
};

/** Whether `DATABASE_URL` names PostgreSQL (anything else set there is a SQLite path). */
export const isPostgresUrl = (url: string): boolean => /^postgres(ql)?:/i.test(url);

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  METRICS_TOKEN: z.string().min(16, 'expected at least 16 characters').optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_FILE: z.string().min(1).optional(),
  DATABASE_URL: z
    .string()
    .min(1)
    // A URL of another scheme (sqlite:, file:, mysql://) is refused rather than read as a file name,
    // which would start on a new, empty database beside the real one.
    .refine(
      (value) => isPostgresUrl(value) || !/^[a-z][a-z0-9+.-]+:/i.test(value),
      'expected a postgres:// or postgresql:// URL, or a SQLite file path',
    )
    .optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(10),
  PUBLIC_BASE_URL: z.url().optional(),
  TRUST_PROXY: z
    .string()
    .refine(
      (value) => parseTrustProxy(value) !== null,
      'expected false, true, a number of proxy hops, or proxy addresses and subnets, comma-separated (loopback, 10.0.0.0/8, 192.0.2.7)',
    )
    .default('false'),
  RATE_LIMIT_READ: positiveInt(300),
  RATE_LIMIT_WRITE: positiveInt(60),
  RATE_LIMIT_PUBLISH: positiveInt(30),
  RATE_LIMIT_MEDIA: positiveInt(20),
  BODY_LIMIT_BYTES: positiveInt(1024 * 1024),
  MCP_ALLOWED_ORIGINS: z.string().default(''),
  ALLOWED_HOSTS: z
    .string()
    .default('')
    .refine(
      (list) => commaList(list).every(isHostname),
      'expected host names, comma-separated, without scheme or port, for example app.example.com,[::1]',
    ),
  CONNECT_RETURN_ORIGINS: z
    .string()
    .default('')
    .refine(
      (list) => commaList(list).every(isOrigin),
      'expected origins, comma-separated, each scheme://host[:port] with no path, for example https://app.example.com',
    ),
  SERVICE_READ_ONLY: z.enum(['true', 'false']).default('false'),
  SERVICE_TOOLS: z
    .string()
    .refine(
      (list) => commaList(list).length > 0,
      'expected tool names, comma-separated, for example service_list_content,service_get_content',
    )
    .optional(),
  RUN_SCHEDULERS: z.enum(['true', 'false']).default('true'),
  SCHEDULER_POLL_SECONDS: positiveInt(1),
  PUBLISH_LEASE_SECONDS: positiveInt(60),
  PUBLISH_CONCURRENCY: positiveInt(64),
  PLATFORM_TIMEOUT_SECONDS: positiveInt(30),
  SANDBOX_PUBLISH_DELAY_MS: z
    .string()
    .regex(
      new RegExp(`^((${PLATFORMS.join('|')}):\\d+)(,(${PLATFORMS.join('|')}):\\d+)*$`),
      'expected platform:ms pairs, comma-separated, for example linkedin:5000',
    )
    .optional(),
  WEBHOOK_RETRY_DELAYS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'expected seconds, comma-separated, for example 30,120,600,3600,21600')
    .default(DEFAULT_RETRY_DELAYS_SECONDS.join(',')),
  WEBHOOK_ALLOW_PRIVATE_URLS: z.enum(['true', 'false']).default('false'),
  WEBHOOK_TIMEOUT_MS: positiveInt(10_000),
  WEBHOOK_CONCURRENCY: positiveInt(64),
  WEBHOOK_LOG_RETENTION_DAYS: positiveInt(DEFAULT_LOG_RETENTION_DAYS),
  ENCRYPTION_KEY: z
    .string()
    .refine(
      (key) => Buffer.from(key, 'base64').length === 32,
      'expected base64 of 32 random bytes (openssl rand -base64 32)',
    )
    .optional(),
  AI_BASE_URL: z.url().optional(),
  AI_API_KEY: z.string().min(1).optional(),
  AI_MODEL: z.string().min(1).default('gpt-4o-mini'),
  AI_TIMEOUT_MS: positiveInt(30_000),
  AI_MAX_RETRIES: z.coerce.number().int().min(0).default(3),
  GENERATION_LEASE_SECONDS: positiveInt(60),
  MEDIA_DIR: z.string().min(1).optional(),
  MEDIA_MAX_BYTES: positiveInt(100 * 1024 * 1024),
  PLATFORM_RETRY_WINDOW_SECONDS: z.coerce.number().int().min(0).default(900),
});

/**
 * Every platform's own variables, as its registry entry declares them, and each platform's
 * `<PLATFORM>_APP_SECRET`, which signs its deauthorization callbacks (an entry that also declares its
 * own, as its OAuth app's secret, gives it the same rule).
 */
const PlatformEnvSchema = z.object({
  ...Object.fromEntries(PLATFORMS.map((p) => [appSecretVariable(p), z.string().min(1).optional()])),
  ...(Object.assign({}, ...PLATFORM_REGISTRY.map((entry) => entry.variables)) as z.ZodRawShape),
});

/** The entries of a comma-separated variable, blanks around commas ignored. */
const commaList = (list: string): string[] =>
  list
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);

/** An http(s) origin written as the URL parser would write it back: no path, query, credentials or trailing slash. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return /^https?:$/.test(url.protocol) && url.origin === value;
  } catch {
    return false;
  }
}

/** A host name as a Host header carries it, without the port: `app.example.com`, `10.0.0.7`, `[::1]`. */
function isHostname(value: string): boolean {
  try {
    const url = new URL(`http://${value}`);
    return url.host === value.toLowerCase() && url.port === '';
  } catch {
    return false;
  }
}

/** Express's names for the reserved ranges, accepted in a TRUST_PROXY list beside addresses and subnets. */
const TRUST_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** TRUST_PROXY as Express's `trust proxy` setting, or null when it is none of the forms it takes. */
function parseTrustProxy(value: string): TrustProxy | null {
  const text = value.trim().toLowerCase();
  if (text === 'false') return false;
  if (text === 'true') return true;
  if (/^\d+$/.test(text)) return Number(text);
  const entries = commaList(text);
  const valid = (entry: string) => {
    if (TRUST_PROXY_NAMES.has(entry)) return true;
    const [address, prefix, ...rest] = entry.split('/');
    const family = isIP(address!);
    if (family === 0 || rest.length > 0) return false;
    return prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
  };
  return entries.length > 0 && entries.every(valid) ? entries : null;
}

function appSecretVariable(platform: Platform): string {
  return `${platform.toUpperCase()}_APP_SECRET`;
}

/** Reads configuration from an environment map; a bad value stops start-up with a clear message. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const blanksRemoved = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(blanksRemoved);
  const platformsParsed = PlatformEnvSchema.safeParse(blanksRemoved);
  if (!parsed.success || !platformsParsed.success) {
    const issues = [...(parsed.error?.issues ?? []), ...(platformsParsed.error?.issues ?? [])];
    const problems = issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  const platformEnv = platformsParsed.data;
  const publicBaseUrl = (
    e.PUBLIC_BASE_URL ?? `http://${e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST}:${e.PORT}`
  ).replace(/\/+$/, '');
  return {
    port: e.PORT,
    host: e.HOST,
    logLevel: e.LOG_LEVEL,
    metricsToken: e.METRICS_TOKEN ?? null,
    dataDir: e.DATA_DIR,
    databaseFile:
      (e.DATABASE_URL !== undefined && !isPostgresUrl(e.DATABASE_URL) ? e.DATABASE_URL : e.DATABASE_FILE) ??
      join(e.DATA_DIR, 'service.db'),
    databaseUrl: e.DATABASE_URL !== undefined && isPostgresUrl(e.DATABASE_URL) ? e.DATABASE_URL : null,
    databasePoolMax: e.DATABASE_POOL_MAX,
    publicBaseUrl,
    trustProxy: parseTrustProxy(e.TRUST_PROXY)!,
    docsUrl: `${publicBaseUrl}/docs/errors`,
    rateLimits: {
      read: e.RATE_LIMIT_READ,
      write: e.RATE_LIMIT_WRITE,
      publish: e.RATE_LIMIT_PUBLISH,
      media: e.RATE_LIMIT_MEDIA,
    },
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    mcpAllowedOrigins: commaList(e.MCP_ALLOWED_ORIGINS),
    allowedHosts: commaList(e.ALLOWED_HOSTS).map((host) => host.toLowerCase()),
    connectReturnOrigins: commaList(e.CONNECT_RETURN_ORIGINS),
    mcpTools: {
      readOnly: e.SERVICE_READ_ONLY === 'true',
      names: e.SERVICE_TOOLS === undefined ? null : commaList(e.SERVICE_TOOLS),
    },
    runSchedulers: e.RUN_SCHEDULERS === 'true',
    schedulerPollSeconds: e.SCHEDULER_POLL_SECONDS,
    publishing: {
      leaseSeconds: e.PUBLISH_LEASE_SECONDS,
      concurrency: e.PUBLISH_CONCURRENCY,
      platformTimeoutSeconds: e.PLATFORM_TIMEOUT_SECONDS,
      sandboxDelayMs: Object.fromEntries(
        (e.SANDBOX_PUBLISH_DELAY_MS ?? '')
          .split(',')
          .filter(Boolean)
          .map((pair) => pair.split(':'))
          .map(([platform, ms]) => [platform, Number(ms)]),
      ),
    },
    webhooks: {
      retryDelaysSeconds: e.WEBHOOK_RETRY_DELAYS.split(',').map(Number),
      allowPrivateUrls: e.WEBHOOK_ALLOW_PRIVATE_URLS === 'true',
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
      logRetentionDays: e.WEBHOOK_LOG_RETENTION_DAYS,
    },
    encryptionKey: e.ENCRYPTION_KEY,
    ai: {
      baseUrl: e.AI_BASE_URL?.replace(/\/+$/, '') ?? null,
      apiKey: e.AI_API_KEY ?? null,
      model: e.AI_MODEL,
      timeoutMs: e.AI_TIMEOUT_MS,
      maxRetries: e.AI_MAX_RETRIES,
    },
    campaigns: { leaseSeconds: e.GENERATION_LEASE_SECONDS },
    media: { dir: e.MEDIA_DIR ?? join(e.DATA_DIR, 'media'), maxBytes: e.MEDIA_MAX_BYTES },
    live: {
      retryWindowSeconds: e.PLATFORM_RETRY_WINDOW_SECONDS,
      ...(Object.fromEntries(
        PLATFORM_REGISTRY.map((entry) => [entry.id, entry.readConfig(platformEnv)]),
      ) as PlatformConfigs),
    },
    appSecrets: Object.fromEntries(
      PLATFORMS.flatMap((p) => {
        const secret = platformEnv[appSecretVariable(p)];
        return typeof secret === 'string' ? [[p, secret]] : [];
      }),
    ),
  };
}
