import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { workspaces } from './accounts.ts';

export const OAUTH_CLIENT_AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;
export type OAuthClientAuthMethod = (typeof OAUTH_CLIENT_AUTH_METHODS)[number];

/**
 * OAuth clients: the assistants that will ask a person for access to /mcp. Registered by dynamic
 * client registration (RFC 7591), or known by a Client ID Metadata Document fetched from the https
 * URL that is their client_id. Not tied to a workspace: a client exists before anyone consents to it.
 */
export const oauthClients = sqliteTable(
  'oauth_clients',
  {
    /** What the client sends as client_id: `npc_` + random base62, or its metadata document's https URL. */
    id: text('id').primaryKey(),
    clientName: text('client_name'),
    redirectUris: text('redirect_uris', { mode: 'json' }).$type<string[]>().notNull(),
    tokenEndpointAuthMethod: text('token_endpoint_auth_method', { enum: OAUTH_CLIENT_AUTH_METHODS }).notNull(),
    /** SHA-256 hex of the client secret; null for public clients (method `none`). The secret itself is never stored. */
    secretHash: text('secret_hash'),
    /**
     * The IP address the registration came from (for a metadata-document client, the first authorization
     * request that fetched it): new clients are limited per address and hour.
     */
    registeredFrom: text('registered_from').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    /**
     * Metadata-document clients only: until when the fetched document may be used without fetching it
     * again (its Cache-Control, at most 24 hours). Null for registered clients.
     */
    metadataExpiresAt: integer('metadata_expires_at', { mode: 'timestamp_ms' }),
  },
  (t) => [index('oauth_clients_registered_from_idx').on(t.registeredFrom, t.createdAt)],
);

/**
 * Authorization codes (RFC 6749 section 4.1): what a person's consent yields, exchanged once for
 * tokens. Only a hash is stored; the code lives a minute and `used_at` makes it single use.
 */
export const oauthAuthorizationCodes = sqliteTable(
  'oauth_authorization_codes',
  {
    /** SHA-256 hex of the code. */
    codeHash: text('code_hash').primaryKey(),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id, { onDelete: 'cascade' }),
    redirectUri: text('redirect_uri').notNull(),
    /** PKCE S256 challenge: base64url SHA-256 of the verifier the token request must send. */
    codeChallenge: text('code_challenge').notNull(),
    /** Space-separated scopes granted. */
    scope: text('scope').notNull(),
    /** The resource (RFC 8707) asked for at authorize time, or null when none was named. */
    resource: text('resource'),
    /** The person who consented by signing in: the tokens act with their role. Null for an API-key consent. */
    userId: text('user_id'),
    /** The token family the exchange started: a replayed code revokes it. */
    familyId: text('family_id').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    usedAt: integer('used_at', { mode: 'timestamp_ms' }),
  },
  (t) => [index('oauth_authorization_codes_expires_idx').on(t.expiresAt)],
);

export const OAUTH_TOKEN_KINDS = ['access', 'refresh'] as const;
export type OAuthTokenKind = (typeof OAUTH_TOKEN_KINDS)[number];

/**
 * Access (`np_oat_`) and refresh (`np_ort_`) tokens, stored hashed. Every token issued from one code,
 * through any number of refreshes, shares its `family_id`: reuse of a spent refresh token revokes the family.
 */
export const oauthTokens = sqliteTable(
  'oauth_tokens',
  {
    /** SHA-256 hex of the token. */
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
    /** The person the grant acts for (their role limits it), or null for a grant made with an API key. */
    userId: text('user_id'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
    expiresAt: integer('expires_at', { mode: 'timestamp_ms' }).notNull(),
    lastUsedAt: integer('last_used_at', { mode: 'timestamp_ms' }),
    /** A refresh token's rotation: set when it was exchanged; a second exchange is reuse. */
    usedAt: integer('used_at', { mode: 'timestamp_ms' }),
    revokedAt: integer('revoked_at', { mode: 'timestamp_ms' }),
  },
  (t) => [
    index('oauth_tokens_family_idx').on(t.familyId),
    index('oauth_tokens_workspace_client_idx').on(t.workspaceId, t.clientId),
  ],
);

/**
 * Wrong API keys typed into the consent page, by address: ten a minute from one address answer 429,
 * so the page cannot be used to guess keys. Rows older than the minute are deleted as new ones come.
 */
export const oauthConsentFailures = sqliteTable(
  'oauth_consent_failures',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    address: text('address').notNull(),
    failedAt: integer('failed_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('oauth_consent_failures_failed_at_idx').on(t.failedAt)],
);

/**
 * Client ID Metadata Document fetches, success or not, by document and by the address whose
 * authorization request caused them: both are bounded, so the service cannot be made to fetch a URL,
 * or many URLs, without limit. Rows older than the hour are deleted as new ones come.
 */
export const oauthMetadataFetches = sqliteTable(
  'oauth_metadata_fetches',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    documentUrl: text('document_url').notNull(),
    address: text('address').notNull(),
    fetchedAt: integer('fetched_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [
    index('oauth_metadata_fetches_document_idx').on(t.documentUrl, t.fetchedAt),
    index('oauth_metadata_fetches_address_idx').on(t.address, t.fetchedAt),
    index('oauth_metadata_fetches_fetched_at_idx').on(t.fetchedAt),
  ],
);
