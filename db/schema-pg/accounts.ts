import { bigint, boolean, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { epochMs } from './columns.ts';

/** The PostgreSQL twin of db/schema/accounts.ts: same names, same row types (see test/db/schema-parity.test.ts). */
export const plans = pgTable('plans', {
  name: text('name').primaryKey(),
  postsPerMonth: integer('posts_per_month').notNull(),
  platformsLimit: integer('platforms_limit').notNull(),
  apiAccess: boolean('api_access').notNull(),
  monthlyAiCredits: integer('monthly_ai_credits').notNull(),
  analyticsHistoryDays: integer('analytics_history_days').notNull(),
  // The business plan's 250 GiB is past int4.
  storageBytes: bigint('storage_bytes', { mode: 'number' }).notNull().default(0),
});

export const workspaces = pgTable('workspaces', {
  id: text('id').primaryKey(),
  orgId: text('org_id').notNull().unique(),
  name: text('name').notNull(),
  plan: text('plan')
    .notNull()
    .references(() => plans.name),
  planStatus: text('plan_status', { enum: ['active', 'trialing', 'past_due', 'canceled'] }).notNull(),
  createdAt: epochMs('created_at').notNull(),
  timezone: text('timezone').notNull().default('UTC'),
  approverMustDiffer: boolean('approver_must_differ').notNull().default(false),
  defaultLanguage: text('default_language'),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    keyHash: text('key_hash').notNull().unique(),
    name: text('name').notNull().default('Unnamed key'),
    displayPrefix: text('display_prefix').notNull(),
    lastFour: text('last_four').notNull(),
    createdAt: epochMs('created_at').notNull(),
    expiresAt: epochMs('expires_at'),
    revokedAt: epochMs('revoked_at'),
  },
  (t) => [index('api_keys_workspace_idx').on(t.workspaceId)],
);

export const apiKeyUses = pgTable('api_key_uses', {
  keyId: text('key_id')
    .primaryKey()
    .references(() => apiKeys.id, { onDelete: 'cascade' }),
  lastUsedAt: epochMs('last_used_at').notNull(),
});

export const usagePeriods = pgTable(
  'usage_periods',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    periodStart: epochMs('period_start').notNull(),
    aiCreditsUsed: integer('ai_credits_used').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.periodStart] })],
);

export const rateLimitWindows = pgTable(
  'rate_limit_windows',
  {
    workspaceId: text('workspace_id').notNull(),
    bucket: text('bucket', { enum: ['read', 'write', 'publish', 'media'] }).notNull(),
    // Epoch seconds: past int4 in 2038.
    windowStart: bigint('window_start', { mode: 'number' }).notNull(),
    count: integer('count').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.bucket, t.windowStart] })],
);

/**
 * The one row (id 1, made by the baseline migration) whose version the baseline's triggers move on
 * any change to api_keys, workspaces or plans, as SQLite's auth-epoch triggers do.
 */
export const authEpoch = pgTable('auth_epoch', {
  // SQLite's INTEGER PRIMARY KEY may be left out of an insert; here the one row's id is the default.
  id: integer('id').primaryKey().default(1),
  // Only grows, with every key, workspace or plan write.
  version: bigint('version', { mode: 'number' }).notNull(),
});
