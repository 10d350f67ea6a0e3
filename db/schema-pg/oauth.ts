import { bigint, index, json, pgTable, text } from 'drizzle-orm/pg-core';
import { OAUTH_CLIENT_AUTH_METHODS, OAUTH_TOKEN_KINDS } from '../schema/oauth.ts';
import { workspaces } from './accounts.ts';
import { epochMs } from './columns.ts';

export const oauthClients = pgTable(
  'oauth_clients',
  {
    id: text('id').primaryKey(),
    clientName: text('client_name'),
    redirectUris: json('redirect_uris').$type<string[]>().notNull(),
    tokenEndpointAuthMethod: text('token_endpoint_auth_method', { enum: OAUTH_CLIENT_AUTH_METHODS }).notNull(),
    secretHash: text('secret_hash'),
    registeredFrom: text('registered_from').notNull(),
    createdAt: epochMs('created_at').notNull(),
    metadataExpiresAt: epochMs('metadata_expires_at'),
  },
  (t) => [index('oauth_clients_registered_from_idx').on(t.registeredFrom, t.createdAt)],
);

export const oauthAuthorizationCodes = pgTable(
  'oauth_authorization_codes',
  {
    codeHash: text('code_hash').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    redirectUri: text('redirect_uri').notNull(),
    codeChallenge: text('code_challenge').notNull(),
    scope: text('scope').notNull(),
    resource: text('resource'),
    userId: text('user_id'),
    familyId: text('family_id').notNull(),
    createdAt: epochMs('created_at').notNull(),
    expiresAt: epochMs('expires_at').notNull(),
    usedAt: epochMs('used_at'),
  },
  (t) => [index('oauth_authorization_codes_expires_idx').on(t.expiresAt)],
);

export const oauthTokens = pgTable(
  'oauth_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    kind: text('kind', { enum: OAUTH_TOKEN_KINDS }).notNull(),
    familyId: text('family_id').notNull(),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    scope: text('scope').notNull(),
    resource: text('resource'),
    userId: text('user_id'),
    createdAt: epochMs('created_at').notNull(),
    expiresAt: epochMs('expires_at').notNull(),
    lastUsedAt: epochMs('last_used_at'),
    usedAt: epochMs('used_at'),
    revokedAt: epochMs('revoked_at'),
  },
  (t) => [
    index('oauth_tokens_family_idx').on(t.familyId),
    index('oauth_tokens_workspace_client_idx').on(t.workspaceId, t.clientId),
  ],
);

export const oauthConsentFailures = pgTable(
  'oauth_consent_failures',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    address: text('address').notNull(),
    failedAt: epochMs('failed_at').notNull(),
  },
  (t) => [index('oauth_consent_failures_failed_at_idx').on(t.failedAt)],
);

export const oauthMetadataFetches = pgTable(
  'oauth_metadata_fetches',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    documentUrl: text('document_url').notNull(),
    address: text('address').notNull(),
    fetchedAt: epochMs('fetched_at').notNull(),
  },
  (t) => [
    index('oauth_metadata_fetches_document_idx').on(t.documentUrl, t.fetchedAt),
    index('oauth_metadata_fetches_address_idx').on(t.address, t.fetchedAt),
    index('oauth_metadata_fetches_fetched_at_idx').on(t.fetchedAt),
  ],
);
