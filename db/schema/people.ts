import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { workspaces } from './accounts.ts';

/** What a person may do in a workspace, each role including the ones before it. */
export const ROLES = ['viewer', 'editor', 'approver', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/**
 * People who sign in to the dashboard: one account across the deployment, whatever workspaces it
 * belongs to. There is no open registration: a row is made, with its password, by the setup link (the
 * first admin) or by accepting an invitation. Rows made before invitations may still have a null
 * `password_hash`: such a person cannot sign in until an invitation or a reset link sets one.
 */
export const users = sqliteTable('users', {
  id: text('id').primaryKey(),
  /** Lowercased and trimmed: one person, one address. */
  email: text('email').notNull().unique(),
  /** argon2id, in the PHC string format (it carries its own parameters and salt). */
  passwordHash: text('password_hash'),
  createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  /** The workspace last chosen at sign-in or from the header: where the next sign-in lands. */
  lastWorkspaceId: text('last_workspace_id'),
});

/** A person's one role in a workspace. */
export const memberships = sqliteTable(
  'memberships',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ROLES }).notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.userId] }), index('memberships_user_idx').on(t.userId)],
);

/**
 * Signed-in browsers. The cookie holds a random token; only its SHA-256 is stored. A session ends at
 * sign-out (the row is deleted), after IDLE time without use, or at its absolute `expires_at`.
 */
export const sessions = sqliteTable(
  'sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The workspace the pages show; one of the person's memberships. */
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    lastSeenAt: integer('last_seen_at', { mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('sessions_user_idx').on(t.userId), index('sessions_expires_idx').on(t.expiresAt)],
);

/**
 * A workspace's invitation of an email, with a role. Nobody is a member until the person accepts it
 * on its link: a new person by choosing a password there, a person with an account by giving theirs
 * (or by being signed in). Only the token's hash is stored. An invitation is live until accepted,
 * withdrawn (by an admin, or replaced by a newer one of the same workspace) or past `expires_at`.
 */
export const invitations = sqliteTable(
  'invitations',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    /** Normalised as users.email is; no users row need exist yet. */
    email: text('email').notNull(),
    role: text('role', { enum: ROLES }).notNull(),
    /** The admin who invited on the dashboard, or null (the admin CLI). */
    invitedBy: text('invited_by').references(() => users.id, { onDelete: 'set null' }),
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    acceptedAt: integer('accepted_at', { mode: 'timestamp_ms' }),
    withdrawnAt: integer('withdrawn_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    index('invitations_email_idx').on(t.email, t.createdAt),
    index('invitations_workspace_idx').on(t.workspaceId, t.expiresAt),
  ],
);

export const PASSWORD_LINK_KINDS = ['setup', 'reset'] as const;
export type PasswordLinkKind = (typeof PASSWORD_LINK_KINDS)[number];

/**
 * One-time links on which a password is set: the first start's setup link (no user yet: it creates
 * the workspace's first admin with a new email), or the admin CLI's reset link for a person. Only a
 * hash is stored; `used_at` makes it single use. Invitations are their own table.
 */
export const passwordLinks = sqliteTable(
  'password_links',
  {
    tokenHash: text('token_hash').primaryKey(),
    kind: text('kind', { enum: PASSWORD_LINK_KINDS }).notNull(),
    workspaceId: text('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    usedAt: integer('used_at', { mode: 'timestamp_ms' }),
  },
  (t) => [index('password_links_user_idx').on(t.userId)],
);

/**
 * Sign-in attempts that count against the limits (src/core/people/sign-in-limits.ts). A row is written
 * before the password is checked, so attempts in flight count too; a successful sign-in deletes its
 * own row, so what stays are the failures. `device` is set (the SHA-256 of the device cookie entry)
 * when the browser proved it signed in to this email before: such attempts are counted apart from the
 * address's. Rows older than a day are pruned as new ones come.
 */
export const signInFailures = sqliteTable(
  'sign_in_failures',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    address: text('address').notNull(),
    email: text('email').notNull(),
    device: text('device'),
    failedAt: integer('failed_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    index('sign_in_failures_address_idx').on(t.address, t.failedAt),
    index('sign_in_failures_email_idx').on(t.email, t.failedAt),
    index('sign_in_failures_device_idx').on(t.device, t.failedAt),
    index('sign_in_failures_failed_at_idx').on(t.failedAt),
  ],
);

export const CONTENT_ACTOR_TYPES = ['user', 'api_key', 'oauth_client', 'service'] as const;
export type ContentActorType = (typeof CONTENT_ACTOR_TYPES)[number];

/** Who did what to a content item, when: the item page's history. Written with the change itself. */
export const contentHistory = sqliteTable(
  'content_history',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    contentId: text('content_id').notNull(),
    action: text('action').notNull(),
    fromStatus: text('from_status'),
    toStatus: text('to_status').notNull(),
    actorType: text('actor_type', { enum: CONTENT_ACTOR_TYPES }).notNull(),
    actorId: text('actor_id'),
    /** How the actor is shown (an email, "API key np_live_AbCd…"), kept as it was at the time. */
    actorLabel: text('actor_label').notNull(),
    note: text('note'),
    at: integer('at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('content_history_content_idx').on(t.contentId, t.at)],
);
