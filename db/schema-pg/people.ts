import { bigint, index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { CONTENT_ACTOR_TYPES, PASSWORD_LINK_KINDS, ROLES } from '../schema/people.ts';
import { workspaces } from './accounts.ts';
import { epochMs } from './columns.ts';

export const users = pgTable('users', {
  id: text('id').primaryKey(),
  email: text('email').notNull().unique(),
  passwordHash: text('password_hash'),
  createdAt: epochMs('created_at').notNull(),
  lastWorkspaceId: text('last_workspace_id'),
});

export const memberships = pgTable(
  'memberships',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: ROLES }).notNull(),
    createdAt: epochMs('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.userId] }), index('memberships_user_idx').on(t.userId)],
);

export const sessions = pgTable(
  'sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    createdAt: epochMs('created_at').notNull(),
    lastSeenAt: epochMs('last_seen_at').notNull(),
    expiresAt: epochMs('expires_at').notNull(),
  },
  (t) => [index('sessions_user_idx').on(t.userId), index('sessions_expires_idx').on(t.expiresAt)],
);

export const invitations = pgTable(
  'invitations',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role', { enum: ROLES }).notNull(),
    invitedBy: text('invited_by').references(() => users.id, { onDelete: 'set null' }),
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: epochMs('created_at').notNull(),
    expiresAt: epochMs('expires_at').notNull(),
    acceptedAt: epochMs('accepted_at'),
    withdrawnAt: epochMs('withdrawn_at'),
  },
  (t) => [
    index('invitations_email_idx').on(t.email, t.createdAt),
    index('invitations_workspace_idx').on(t.workspaceId, t.expiresAt),
  ],
);

export const passwordLinks = pgTable(
  'password_links',
  {
    tokenHash: text('token_hash').primaryKey(),
    kind: text('kind', { enum: PASSWORD_LINK_KINDS }).notNull(),
    workspaceId: text('workspace_id').references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    createdAt: epochMs('created_at').notNull(),
    expiresAt: epochMs('expires_at').notNull(),
    usedAt: epochMs('used_at'),
  },
  (t) => [index('password_links_user_idx').on(t.userId)],
);

// Ids that only grow (SQLite's AUTOINCREMENT) are bigint identities: a guessing attack alone could pass int4.
export const signInFailures = pgTable(
  'sign_in_failures',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    address: text('address').notNull(),
    email: text('email').notNull(),
    device: text('device'),
    failedAt: epochMs('failed_at').notNull(),
  },
  (t) => [
    index('sign_in_failures_address_idx').on(t.address, t.failedAt),
    index('sign_in_failures_email_idx').on(t.email, t.failedAt),
    index('sign_in_failures_device_idx').on(t.device, t.failedAt),
    index('sign_in_failures_failed_at_idx').on(t.failedAt),
  ],
);

export const contentHistory = pgTable(
  'content_history',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    contentId: text('content_id').notNull(),
    action: text('action').notNull(),
    fromStatus: text('from_status'),
    toStatus: text('to_status').notNull(),
    actorType: text('actor_type', { enum: CONTENT_ACTOR_TYPES }).notNull(),
    actorId: text('actor_id'),
    actorLabel: text('actor_label').notNull(),
    note: text('note'),
    at: epochMs('at').notNull(),
  },
  (t) => [index('content_history_content_idx').on(t.contentId, t.at)],
);
