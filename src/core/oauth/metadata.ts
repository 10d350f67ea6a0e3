import { OAUTH_CLIENT_AUTH_METHODS } from '../../../db/schema/index.ts';
import type { Config } from '../config.ts';

/** What a token may do: read everything, write content and settings, publish. API keys carry all three. */
export const OAUTH_SCOPES = ['read', 'write', 'publish'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

type BaseUrl = Pick<Config, 'publicBaseUrl'>;

/** The protected resource: the MCP endpoint, by its public address. */
export const mcpResourceUrl = ({ publicBaseUrl }: BaseUrl): string => `${publicBaseUrl}/mcp`;

/** The resources a token may be for (RFC 8707): the MCP endpoint, or the service as a whole. */
export const acceptedResources = (config: BaseUrl): string[] => [mcpResourceUrl(config), config.publicBaseUrl];

/**
 * Where the resource's metadata lives (RFC 9728 section 3: the well-known prefix inserted before the
 * resource's path). Always absolute: Claude refuses a relative resource_metadata.
 */
export const protectedResourceMetadataUrl = ({ publicBaseUrl }: BaseUrl): string =>
  `${publicBaseUrl}/.well-known/oauth-protected-resource/mcp`;

/** RFC 9728 protected-resource metadata for /mcp; the service is its own authorization server. */
export function protectedResourceMetadata(config: BaseUrl) {
  return {
    resource: mcpResourceUrl(config),
    authorization_servers: [config.publicBaseUrl],
    scopes_supported: [...OAUTH_SCOPES],
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
 * The `WWW-Authenticate` value of a 401 from /mcp: where to find the metadata and the scopes to ask
 * for, so an OAuth client can start its flow. `refused`, when a credential was sent and turned down,
 * adds `error="invalid_token"` (RFC 6750 section 3.1) with the reason.
 */
export function mcpChallenge(config: BaseUrl, refused?: { description: string }): string {
  const params = [
    `resource_metadata=${quoted(protectedResourceMetadataUrl(config))}`,
    `scope=${quoted(OAUTH_SCOPES.join(' '))}`,
  ];
  if (refused) params.push('error="invalid_token"', `error_description=${quoted(refused.description)}`);
  return `Bearer ${params.join(', ')}`;
}

/**
 * The `WWW-Authenticate` value of a 403 from /mcp for a tool the token's scopes do not allow
 * (RFC 6750 section 3.1): the scope to ask for in a new authorization, and where the metadata is.
 */
export function insufficientScopeChallenge(config: BaseUrl, needed: OAuthScope): string {
  return `Bearer error="insufficient_scope", scope=${quoted(needed)}, resource_metadata=${quoted(protectedResourceMetadataUrl(config))}`;
}
