import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const OAUTH_CLIENT_AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;
export type OAuthClientAuthMethod = (typeof OAUTH_CLIENT_AUTH_METHODS)[number];

/**
 * OAuth clients registered by dynamic client registration (RFC 7591): the assistants that will ask a
 * person for access to /mcp. Not tied to a workspace: a client exists before anyone consents to it.
 */
export const oauthClients = sqliteTable(
  'oauth_clients',
  {
    /** `npc_` + random base62; what the client sends as client_id. */
    id: text('id').primaryKey(),
    clientName: text('client_name'),
    redirectUris: text('redirect_uris', { mode: 'json' }).$type<string[]>().notNull(),
    tokenEndpointAuthMethod: text('token_endpoint_auth_method', { enum: OAUTH_CLIENT_AUTH_METHODS }).notNull(),
    /** SHA-256 hex of the client secret; null for public clients (method `none`). The secret itself is never stored. */
    secretHash: text('secret_hash'),
    /** The IP address the registration came from: registrations are limited per address and hour. */
    registeredFrom: text('registered_from').notNull(),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('oauth_clients_registered_from_idx').on(t.registeredFrom, t.createdAt)],
);
