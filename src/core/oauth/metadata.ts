import { OAUTH_CLIENT_AUTH_METHODS } from '../../../db/schema/index.ts';
import type { Config } from '../config.ts';

/** What a token may do: read everything, write content and settings, publish. API keys carry all three. */
export const OAUTH_SCOPES = ['read', 'write', 'publish'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

type BaseUrl = Pick<Config, 'publicBaseUrl'>;

/**
 * The protected resources, each a resource identifier of its own (RFC 8707, RFC 9728): `/mcp` with
 * every tool, `/mcp/readonly` with the read tools only, and the service as a whole (its origin, where
 * the REST API lives too). A token is bound to one of them; one bound to the read-only door only reads.
 */
export const PROTECTED_RESOURCES = ['mcp', 'readonly', 'service'] as const;
export type ProtectedResource = (typeof PROTECTED_RESOURCES)[number];

/** Each resource's path under PUBLIC_BASE_URL: its identifier is the base plus this. */
const RESOURCE_PATHS: Record<ProtectedResource, string> = { mcp: '/mcp', readonly: '/mcp/readonly', service: '' };

/** A resource's identifier, by its public address. */
export const resourceUrl = ({ publicBaseUrl }: BaseUrl, resource: ProtectedResource): string =>
  publicBaseUrl + RESOURCE_PATHS[resource];

/** The protected resource a bare authorization request is for: the MCP endpoint, by its public address. */
export const mcpResourceUrl = (config: BaseUrl): string => resourceUrl(config, 'mcp');

/** The resources a token may be for (RFC 8707): the MCP endpoint, its read-only door, or the service as a whole. */
export const acceptedResources = (config: BaseUrl): string[] =>
  PROTECTED_RESOURCES.map((resource) => resourceUrl(config, resource));

/** Which of the service's resources an identifier names, or undefined when it is none of them. */
export const protectedResourceOf = (config: BaseUrl, identifier: string): ProtectedResource | undefined =>
  PROTECTED_RESOURCES.find((resource) => resourceUrl(config, resource) === identifier);

/** The scopes a grant for the resource may carry: the read-only door's only read, whatever was asked. */
export const resourceScopes = (resource: ProtectedResource): readonly OAuthScope[] =>
  resource === 'readonly' ? ['read'] : OAUTH_SCOPES;

/**
 * Where a resource's metadata lives (RFC 9728 section 3.1: the well-known prefix inserted before the
 * resource's path, so the origin's own document is the bare well-known address). Always absolute:
 * Claude refuses a relative resource_metadata.
 */
export const protectedResourceMetadataUrl = ({ publicBaseUrl }: BaseUrl, resource: ProtectedResource): string =>
  `${publicBaseUrl}/.well-known/oauth-protected-resource${RESOURCE_PATHS[resource]}`;

/**
 * RFC 9728 protected-resource metadata of one resource; the service is its own authorization server.
 * `resource` is exactly the identifier the document's address was derived from (section 3.3), which a
 * strict client checks.
 */
export function protectedResourceMetadata(config: BaseUrl, resource: ProtectedResource) {
  return {
    resource: resourceUrl(config, resource),
    authorization_servers: [config.publicBaseUrl],
    scopes_supported: [...resourceScopes(resource)],
    bearer_methods_supported: ['header'],
  };
}

/**
 * RFC 8414 authorization-server metadata, written out by hand: the SDK's builder leaves out the
 * Client ID Metadata Document and `iss` flags that clients of the 2025-11-25 revision look for.
 */
export function authorizationServerMetadata({ publicBaseUrl }: BaseUrl) {
  return {
    issuer: publicBaseUrl,
    authorization_endpoint: `${publicBaseUrl}/oauth/authorize`,
    token_endpoint: `${publicBaseUrl}/oauth/token`,
    registration_endpoint: `${publicBaseUrl}/oauth/register`,
    revocation_endpoint: `${publicBaseUrl}/oauth/revoke`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: [...OAUTH_CLIENT_AUTH_METHODS],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    scopes_supported: [...OAUTH_SCOPES],
  };
}

/** A quoted-string parameter value of a challenge (RFC 9110): no double quotes or backslashes inside. */
const quoted = (value: string): string => `"${value.replace(/["\\]/g, "'")}"`;

/**
 * The `WWW-Authenticate` value of a 401 from /mcp or /mcp/readonly (`resource`): where to find that
 * door's own metadata and the scopes to ask for, so an OAuth client can start its flow. `refused`,
 * when a credential was sent and turned down, adds `error="invalid_token"` (RFC 6750 section 3.1)
 * with the reason.
 */
export function mcpChallenge(config: BaseUrl, resource: ProtectedResource, refused?: { description: string }): string {
  const params = [
    `resource_metadata=${quoted(protectedResourceMetadataUrl(config, resource))}`,
    `scope=${quoted(resourceScopes(resource).join(' '))}`,
  ];
  if (refused) params.push('error="invalid_token"', `error_description=${quoted(refused.description)}`);
  return `Bearer ${params.join(', ')}`;
}

/**
 * The `WWW-Authenticate` value of a 403 from /mcp (or /mcp/readonly) for a tool the token's scopes do
 * not allow (RFC 6750 section 3.1): the scope to ask for in a new authorization, and where the
 * metadata of the door that answered is.
 */
export function insufficientScopeChallenge(config: BaseUrl, resource: ProtectedResource, needed: OAuthScope): string {
  return `Bearer error="insufficient_scope", scope=${quoted(needed)}, resource_metadata=${quoted(protectedResourceMetadataUrl(config, resource))}`;
}
