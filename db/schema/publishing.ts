import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { workspaces } from './accounts.ts';
import { content } from './content.ts';

/**
 * The platform ids (`twitter` is X's). The database does not list them: the platform registry
 * (src/core/platforms/registry.ts) adds each of its entries' ids to this interface, so a new platform
 * needs no change here. The columns are plain text without a CHECK (drizzle's `enum` on SQLite is
 * TypeScript only), so a new id needs no migration either; the core validates every id it stores.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging (above).
export interface PlatformIds {}
export type Platform = Extract<keyof PlatformIds, string>;

/**
 * `sandbox`: connected by the admin CLI, publishes through the sandbox connector, holds no tokens.
 * `live`: connected over OAuth, publishes through the platform's client with its stored tokens.
 */
export const SOCIAL_ACCOUNT_MODES = ['sandbox', 'live'] as const;
export type SocialAccountMode = (typeof SOCIAL_ACCOUNT_MODES)[number];

/**
 * `active`: usable. `needs_reconnect`: the platform no longer honours the tokens; the user must connect
 * again. `disconnected`: deauthorized by the platform or disconnected by the user.
 */
export const SOCIAL_ACCOUNT_STATUSES = ['active', 'needs_reconnect', 'disconnected'] as const;
export type SocialAccountStatus = (typeof SOCIAL_ACCOUNT_STATUSES)[number];

/** A workspace's connection to one account on one platform, made in the dashboard (the admin CLI here). */
export const socialAccounts = sqliteTable(
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
    /**
     * Derived by the database from `status`, so no writer can make the two disagree: true exactly when
     * the account is `active`. Read it; set `status`.
     */
    isActive: integer('is_active', { mode: 'boolean' })
      .notNull()
      .generatedAlwaysAs(sql`status = 'active'`, { mode: 'virtual' }),
    /** The scopes the platform granted; empty for sandbox accounts. */
    scopes: text('scopes', { mode: 'json' })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    profileUrl: text('profile_url'),
    /** Live accounts' tokens, AES-256-GCM under the key that encrypts webhook secrets (tokens.ts). */
    accessTokenEncrypted: text('access_token_encrypted'),
    refreshTokenEncrypted: text('refresh_token_encrypted'),
    tokenExpiresAt: integer('token_expires_at', { mode: 'timestamp_ms' }),
    /** When the stored access token was issued (connect or refresh): Instagram renews only tokens a day old. */
    tokenIssuedAt: integer('token_issued_at', { mode: 'timestamp_ms' }),
    refreshTokenExpiresAt: integer('refresh_token_expires_at', { mode: 'timestamp_ms' }),
    /** Whoever refreshes the tokens holds this lease, so two processes never refresh one account at once. */
    refreshLeaseToken: text('refresh_lease_token'),
    refreshLeaseUntil: integer('refresh_lease_until', { mode: 'timestamp_ms' }),
    connectedAt: integer('connected_at', { mode: 'timestamp_ms' }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    uniqueIndex('social_accounts_workspace_platform_user_idx').on(t.workspaceId, t.platform, t.platformUserId),
    // Deauthorization callbacks find every workspace's row for one platform user.
    index('social_accounts_platform_user_idx').on(t.platform, t.platformUserId),
  ],
);

export const PUBLISH_RUN_OUTCOMES = ['published', 'failed'] as const;

/**
 * One pass of the publishing run over one item: claimed with a lease, fanned out, finished with an
 * outcome. A crashed holder's run is continued by whoever reclaims the item, under the same id.
 */
export const publishRuns = sqliteTable(
  'publish_runs',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    contentId: text('content_id')
      .notNull()
      .references(() => content.id, { onDelete: 'cascade' }),
    startedAt: integer('started_at', { mode: 'timestamp_ms' }).notNull(),
    /** The process that claimed the item (`host:pid`), so an operator can tell which worker published it. */
    claimedBy: text('claimed_by'),
    finishedAt: integer('finished_at', { mode: 'timestamp_ms' }),
    outcome: text('outcome', { enum: PUBLISH_RUN_OUTCOMES }),
  },
  (t) => [
    index('publish_runs_content_idx').on(t.contentId),
    // Analytics: finished runs of a workspace in a period.
    index('publish_runs_workspace_finished_idx')
      .on(t.workspaceId, t.finishedAt)
      .where(sql`${t.finishedAt} is not null`),
  ],
);

/**
 * `pending`: recorded, the platform is being (or was, before a crash) called; `published` and
 * `rejected` are known outcomes; `unknown` is a pending attempt whose holder died, never retried.
 */
export const ATTEMPT_STATUSES = ['pending', 'published', 'rejected', 'unknown'] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

/** One platform of one run. Written before the platform is called, so a crash leaves a trace. */
export const publishAttempts = sqliteTable(
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
    /** The post's public URL, when the platform has one (live connectors). */
    url: text('url'),
    /** What the user should know about a published post (TikTok posted it privately, or to the inbox). */
    notice: text('notice'),
    error: text('error'),
    attemptedAt: integer('attempted_at', { mode: 'timestamp_ms' }).notNull(),
    finishedAt: integer('finished_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    uniqueIndex('publish_attempts_run_platform_idx').on(t.runId, t.platform),
    index('publish_attempts_workspace_finished_idx')
      .on(t.workspaceId, t.finishedAt)
      .where(sql`${t.finishedAt} is not null`),
  ],
);

/**
 * A live publish's progress, one row per attempt, written with its pending attempt: what each finished
 * step saved (uploaded media ids) and when the create call was sent. A process that takes over a
 * pending attempt resumes from here; once `create_sent_at` is set it never sends the create again,
 * and can only look for the post (reconcile) or report the outcome unknown.
 */
export const publishCheckpoints = sqliteTable('publish_checkpoints', {
  attemptId: text('attempt_id')
    .primaryKey()
    .references(() => publishAttempts.id, { onDelete: 'cascade' }),
  data: text('data', { mode: 'json' })
    .$type<Record<string, unknown>>()
    .notNull()
    .default(sql`'{}'`),
  createSentAt: integer('create_sent_at', { mode: 'timestamp_ms' }),
  updatedAt: integer('updated_at', { mode: 'timestamp_ms' }).notNull(),
});

/**
 * One OAuth connection in progress: made by POST /social-accounts/connect, consumed (deleted) by the
 * platform's callback. Only the state's SHA-256 is kept, so the table alone cannot complete a
 * connection; the PKCE verifier is encrypted like the tokens.
 */
export const oauthConnectStates = sqliteTable(
  'oauth_connect_states',
  {
    stateHash: text('state_hash').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    platform: text('platform').$type<Platform>().notNull(),
    codeVerifierEncrypted: text('code_verifier_encrypted'),
    returnUrl: text('return_url'),
    /**
     * Set once the platform answered: the accounts its login offered (one, or several Facebook Pages),
     * profiles and tokens encrypted, until the confirmation form posts back with this same state.
     */
    choicesEncrypted: text('choices_encrypted'),
    /**
     * SHA-256 of the confirmation token the browser that brought the code holds (a cookie, echoed by
     * the confirmation form), set with `choices_encrypted`: only that browser can confirm or reload.
     */
    confirmationHash: text('confirmation_hash'),
    /**
     * SHA-256 of the dashboard session that started the connection, when a signed-in person started
     * it there: the callback, opened with that same session, needs no confirmation page.
     */
    sessionHash: text('session_hash'),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  // Maintenance deletes the expired ones.
  (t) => [index('oauth_connect_states_expires_idx').on(t.expiresAt)],
);

/**
 * The sandbox platforms' side of the wire: what each accepted post would have been. Kept apart from
 * the attempts (the service's own record), so a test can count what a platform really received.
 */
export const sandboxPosts = sqliteTable(
  'sandbox_posts',
  {
    id: text('id').primaryKey(),
    platform: text('platform').notNull(),
    platformUserId: text('platform_user_id').notNull(),
    /** The service's attempt id, as a real platform would get a client reference. */
    attemptId: text('attempt_id').notNull(),
    text: text('text').notNull(),
    mediaUrls: text('media_urls', { mode: 'json' }).$type<string[]>().notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('sandbox_posts_attempt_idx').on(t.attemptId)],
);

/** Meta's data-deletion callback answers a status URL and a code; this is what the URL shows. */
export const dataDeletionRequests = sqliteTable('data_deletion_requests', {
  confirmationCode: text('confirmation_code').primaryKey(),
  platform: text('platform').notNull(),
  accountsRemoved: integer('accounts_removed').notNull(),
  completedAt: integer('completed_at', { mode: 'timestamp_ms' }).notNull(),
});

/**
 * The platform callbacks' signed requests already handled, by the SHA-256 of their signature, until
 * their issued_at falls out of the window a request is accepted in: a second use is refused.
 */
export const handledSignedRequests = sqliteTable(
  'handled_signed_requests',
  {
    signatureHash: text('signature_hash').primaryKey(),
    /** Past this, the request's issued_at is too old to be accepted anyway, and the row goes. */
    forgetAt: integer('forget_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('handled_signed_requests_forget_at_idx').on(t.forgetAt)],
);

/**
 * For a job that must run once per tick across every process on the database (maintenance): the
 * last tick (epoch ms) it was claimed for. A process runs a tick only when its claim moved the row.
 */
export const jobTicks = sqliteTable('job_ticks', {
  job: text('job').primaryKey(),
  tickAt: integer('tick_at').notNull(),
});
