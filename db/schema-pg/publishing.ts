import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, json, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import {
  ATTEMPT_STATUSES,
  PUBLISH_RUN_OUTCOMES,
  SOCIAL_ACCOUNT_MODES,
  SOCIAL_ACCOUNT_STATUSES,
  type Platform,
} from '../schema/publishing.ts';
import { workspaces } from './accounts.ts';
import { epochMs } from './columns.ts';
import { content } from './content.ts';

export const socialAccounts = pgTable(
  'social_accounts',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    platform: text('platform').$type<Platform>().notNull(),
    platformUserId: text('platform_user_id').notNull(),
    username: text('username').notNull(),
    displayName: text('display_name'),
    mode: text('mode', { enum: SOCIAL_ACCOUNT_MODES }).notNull().default('sandbox'),
    status: text('status', { enum: SOCIAL_ACCOUNT_STATUSES }).notNull().default('active'),
    // PostgreSQL 15 has stored generated columns only (SQLite's is virtual): same reads, same rule.
    isActive: boolean('is_active')
      .notNull()
      .generatedAlwaysAs(sql`status = 'active'`),
    scopes: json('scopes')
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::json`),
    profileUrl: text('profile_url'),
    accessTokenEncrypted: text('access_token_encrypted'),
    refreshTokenEncrypted: text('refresh_token_encrypted'),
    tokenExpiresAt: epochMs('token_expires_at'),
    tokenIssuedAt: epochMs('token_issued_at'),
    refreshTokenExpiresAt: epochMs('refresh_token_expires_at'),
    refreshLeaseToken: text('refresh_lease_token'),
    refreshLeaseUntil: epochMs('refresh_lease_until'),
    connectedAt: epochMs('connected_at').notNull(),
    createdAt: epochMs('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('social_accounts_workspace_platform_user_idx').on(t.workspaceId, t.platform, t.platformUserId),
    index('social_accounts_platform_user_idx').on(t.platform, t.platformUserId),
  ],
);

export const publishRuns = pgTable(
  'publish_runs',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    contentId: text('content_id')
      .notNull()
      .references(() => content.id, { onDelete: 'cascade' }),
    startedAt: epochMs('started_at').notNull(),
    claimedBy: text('claimed_by'),
    finishedAt: epochMs('finished_at'),
    outcome: text('outcome', { enum: PUBLISH_RUN_OUTCOMES }),
  },
  (t) => [
    index('publish_runs_content_idx').on(t.contentId),
    index('publish_runs_workspace_finished_idx')
      .on(t.workspaceId, t.finishedAt)
      .where(sql`${t.finishedAt} is not null`),
  ],
);

export const publishAttempts = pgTable(
  'publish_attempts',
  {
    id: text('id').primaryKey(),
    runId: text('run_id')
      .notNull()
      .references(() => publishRuns.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id').notNull(),
    contentId: text('content_id').notNull(),
    platform: text('platform').notNull(),
    socialAccountId: text('social_account_id'),
    status: text('status', { enum: ATTEMPT_STATUSES }).notNull(),
    platformPostId: text('platform_post_id'),
    url: text('url'),
    notice: text('notice'),
    error: text('error'),
    attemptedAt: epochMs('attempted_at').notNull(),
    finishedAt: epochMs('finished_at'),
  },
  (t) => [
    uniqueIndex('publish_attempts_run_platform_idx').on(t.runId, t.platform),
    index('publish_attempts_workspace_finished_idx')
      .on(t.workspaceId, t.finishedAt)
      .where(sql`${t.finishedAt} is not null`),
  ],
);

export const publishCheckpoints = pgTable('publish_checkpoints', {
  attemptId: text('attempt_id')
    .primaryKey()
    .references(() => publishAttempts.id, { onDelete: 'cascade' }),
  data: json('data')
    .$type<Record<string, unknown>>()
    .notNull()
    .default(sql`'{}'::json`),
  createSentAt: epochMs('create_sent_at'),
  updatedAt: epochMs('updated_at').notNull(),
});

export const oauthConnectStates = pgTable(
  'oauth_connect_states',
  {
    stateHash: text('state_hash').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    platform: text('platform').$type<Platform>().notNull(),
    codeVerifierEncrypted: text('code_verifier_encrypted'),
    returnUrl: text('return_url'),
    choicesEncrypted: text('choices_encrypted'),
    confirmationHash: text('confirmation_hash'),
    sessionHash: text('session_hash'),
    expiresAt: epochMs('expires_at').notNull(),
    createdAt: epochMs('created_at').notNull(),
  },
  (t) => [index('oauth_connect_states_expires_idx').on(t.expiresAt)],
);

export const sandboxPosts = pgTable(
  'sandbox_posts',
  {
    id: text('id').primaryKey(),
    platform: text('platform').notNull(),
    platformUserId: text('platform_user_id').notNull(),
    attemptId: text('attempt_id').notNull(),
    text: text('text').notNull(),
    mediaUrls: json('media_urls').$type<string[]>().notNull(),
    createdAt: epochMs('created_at').notNull(),
  },
  (t) => [index('sandbox_posts_attempt_idx').on(t.attemptId)],
);

export const dataDeletionRequests = pgTable('data_deletion_requests', {
  confirmationCode: text('confirmation_code').primaryKey(),
  platform: text('platform').notNull(),
  accountsRemoved: integer('accounts_removed').notNull(),
  completedAt: epochMs('completed_at').notNull(),
});

export const handledSignedRequests = pgTable(
  'handled_signed_requests',
  {
    signatureHash: text('signature_hash').primaryKey(),
    forgetAt: epochMs('forget_at').notNull(),
  },
  (t) => [index('handled_signed_requests_forget_at_idx').on(t.forgetAt)],
);

/** As db/schema/publishing.ts: the last tick each once-per-tick job was claimed for. */
export const jobTicks = pgTable('job_ticks', {
  job: text('job').primaryKey(),
  tickAt: bigint('tick_at', { mode: 'number' }).notNull(),
});
