import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Seeded rows; the five features that `GET /me` reports under `features`, and the media storage quota. */
export const plans = sqliteTable('plans', {
  name: text('name').primaryKey(),
  postsPerMonth: integer('posts_per_month').notNull(),
  platformsLimit: integer('platforms_limit').notNull(),
  apiAccess: integer('api_access', { mode: 'boolean' }).notNull(),
  monthlyAiCredits: integer('monthly_ai_credits').notNull(),
  analyticsHistoryDays: integer('analytics_history_days').notNull(),
  /** The media library's quota: the most bytes of stored files a workspace may keep (not a `features` field). */
  storageBytes: integer('storage_bytes').notNull().default(0),
});

export const workspaces = sqliteTable('workspaces', {
  id: text('id').primaryKey(),
  orgId: text('org_id').notNull().unique(),
  name: text('name').notNull(),
  plan: text('plan')
    .notNull()
    .references(() => plans.name),
  planStatus: text('plan_status', { enum: ['active', 'trialing', 'past_due', 'canceled'] }).notNull(),
  createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  /** IANA time zone the dashboard shows times in (its calendar days, its "Scheduled for" field). */
  timezone: text('timezone').notNull().default('UTC'),
  /** When on, a person cannot approve an item they created. */
  approverMustDiffer: integer('approver_must_differ', { mode: 'boolean' }).notNull().default(false),
  /** The language posts are written in unless an item says otherwise (a canonical BCP 47 tag); null: not said. */
  defaultLanguage: text('default_language'),
});

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** SHA-256 of the full key, hex; the raw key is never stored. */
    keyHash: text('key_hash').notNull().unique(),
    /** What the key is for, as its maker called it; keys made before names existed are "Unnamed key". */
    name: text('name').notNull().default('Unnamed key'),
    displayPrefix: text('display_prefix').notNull(),
    lastFour: text('last_four').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }),
    revokedAt: integer('revoked_at', { mode: 'timestamp_ms' }),
  },
  (t) => [index('api_keys_workspace_idx').on(t.workspaceId)],
);

/**
 * When each key was last used, apart from `api_keys`: every write there moves the auth epoch (and so
 * empties every process's key cache), and use is noted as a request goes by, at most once a minute.
 */
export const apiKeyUses = sqliteTable('api_key_uses', {
  keyId: text('key_id')
    .primaryKey()
    .references(() => apiKeys.id, { onDelete: 'cascade' }),
  lastUsedAt: integer('last_used_at', { mode: 'timestamp_ms' }).notNull(),
});

/** Per-month usage that is not derivable from other rows (AI credits are spent, not stored). */
export const usagePeriods = sqliteTable(
  'usage_periods',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    periodStart: integer('period_start', { mode: 'timestamp_ms' }).notNull(),
    aiCreditsUsed: integer('ai_credits_used').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.periodStart] })],
);

/** Fixed one-minute windows per workspace and bucket, shared by every process on the database. */
export const rateLimitWindows = sqliteTable(
  'rate_limit_windows',
  {
    workspaceId: text('workspace_id').notNull(),
    bucket: text('bucket', { enum: ['read', 'write', 'publish', 'media'] }).notNull(),
    windowStart: integer('window_start').notNull(),
    count: integer('count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.bucket, t.windowStart] })],
);

/**
 * One row whose version moves whenever a key, a workspace or a plan changes (triggers in the
 * auth-epoch-triggers migration). Every process caches resolved API keys and checks this version per request, so a
 * revocation or plan change made by any process takes effect at once everywhere.
 */
export const authEpoch = sqliteTable('auth_epoch', {
  id: integer('id').primaryKey(),
  version: integer('version').notNull(),
});
