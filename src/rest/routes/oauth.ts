import express, { type ErrorRequestHandler, type RequestHandler, type Router } from 'express';
import { z } from 'zod';
import type { Runtime } from '../../core/context.ts';
import {
  authorizationServerMetadata,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
  type ProtectedResource,
} from '../../core/oauth/metadata.ts';
import { isRegistrationError, oauthErrorBody } from '../../core/oauth/errors.ts';
import { registerClient } from '../../core/oauth/registration.ts';
import { publicEndpoint, routerFor } from '../endpoints.ts';
import { ERROR_STATUS } from '../../http/errors.ts';
import { requireBodyType } from '../handle.ts';

/** Client metadata is a few hundred bytes; a registration body has no reason to be large. */
const REGISTRATION_BODY_LIMIT = '16kb';

const ProtectedResourceMetadata = z.strictObject({
  resource: z.url(),
  authorization_servers: z.array(z.url()),
  scopes_supported: z.array(z.string()),
  bearer_methods_supported: z.array(z.literal('header')),
});

const AuthorizationServerMetadata = z.strictObject({
  issuer: z.url(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url(),
  registration_endpoint: z.url(),
  revocation_endpoint: z.url(),
  response_types_supported: z.array(z.string()),
  grant_types_supported: z.array(z.string()),
  code_challenge_methods_supported: z.array(z.string()),
  token_endpoint_auth_methods_supported: z.array(z.string()),
  client_id_metadata_document_supported: z.boolean(),
  authorization_response_iss_parameter_supported: z.boolean(),
  scopes_supported: z.array(z.string()),
});

const RegisteredClient = z.strictObject({
  client_id: z.string().startsWith('npc_'),
  client_id_issued_at: z.int(),
  client_name: z.string().optional(),
  redirect_uris: z.array(z.url()).min(1),
  token_endpoint_auth_method: z.enum(['none', 'client_secret_basic', 'client_secret_post']),
  grant_types: z.array(z.string()),
  response_types: z.array(z.string()),
  client_secret: z.string().optional().describe('Only when token_endpoint_auth_method is not none; shown this once.'),
  client_secret_expires_at: z.literal(0).optional().describe('0: the secret does not expire.'),
});

/** RFC 7591 section 3.2.2's error body; not the service's envelope, because OAuth clients parse this one. */
const RegistrationError = z.strictObject({
  error: z.enum(['invalid_redirect_uri', 'invalid_client_metadata']),
  error_description: z.string(),
});

/** Metadata is the same for everyone and changes only with PUBLIC_BASE_URL; browser-based clients read it too. */
const metadataHandler =
  (build: (runtime: Runtime) => object) =>
  (runtime: Runtime): RequestHandler[] => [
    (_req, res) => {
      res.set({ 'Cache-Control': 'public, max-age=3600', 'Access-Control-Allow-Origin': '*' });
      res.json(build(runtime));
    },
  ];

/** A body that is not JSON is client metadata the server cannot read: RFC 7591's error, not the envelope. */
const unreadableMetadata: ErrorRequestHandler = (error: { type?: string }, _req, res, next) => {
  if (error.type !== 'entity.parse.failed') return next(error);
  res.status(400).json({ error: 'invalid_client_metadata', error_description: 'The body is not valid JSON.' });
};

const register = (runtime: Runtime): RequestHandler => {
  return async (req, res) => {
    res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    try {
      // The TCP peer's address, or the one a proxy named in TRUST_PROXY gave (Express's trust proxy).
      const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
      res.status(201).json(await registerClient(runtime, req.body, address));
    } catch (error) {
      if (!isRegistrationError(error)) throw error;
      res.status(ERROR_STATUS[error.code]).json(oauthErrorBody(error));
    }
  };
};

const PROTECTED_RESOURCE_DOCUMENTS: Record<ProtectedResource, { summary: string; description: string }> = {
  mcp: {
    summary: 'OAuth protected-resource metadata of /mcp',
    description:
      'RFC 9728 protected-resource metadata of /mcp: the resource (PUBLIC_BASE_URL/mcp), its authorization server ' +
      '(the service itself), the scopes and the bearer method. Where the resource_metadata of a 401 from /mcp points.',
  },
  readonly: {
    summary: 'OAuth protected-resource metadata of /mcp/readonly',
    description:
      'RFC 9728 protected-resource metadata of the read-only door: the resource (PUBLIC_BASE_URL/mcp/readonly), ' +
      'its authorization server, the one scope it grants (read) and the bearer method. Where the resource_metadata ' +
      'of a 401 from /mcp/readonly points; a token for this resource only reads, wherever it is used.',
  },
  service: {
    summary: 'OAuth protected-resource metadata of the service as a whole',
    description:
      'RFC 9728 protected-resource metadata at the root address, which names the resource it was derived from: ' +
      'the service itself (PUBLIC_BASE_URL, whose tokens work on /mcp and the REST API). Clients of /mcp should ' +
      'read /.well-known/oauth-protected-resource/mcp.',
  },
};

const protectedResourceRow = (resource: ProtectedResource) =>
  publicEndpoint({
    method: 'get',
    // The well-known address of the resource, relative to PUBLIC_BASE_URL (RFC 9728 section 3.1).
    path: new URL(protectedResourceMetadataUrl({ publicBaseUrl: 'http://base.invalid' }, resource)).pathname,
    ...PROTECTED_RESOURCE_DOCUMENTS[resource],
    handlers: metadataHandler((runtime) => protectedResourceMetadata(runtime.config, resource)),
    responses: { 200: { description: 'The metadata.', json: ProtectedResourceMetadata } },
    errors: [],
  });

/**
 * The OAuth discovery documents and dynamic client registration for remote assistants on /mcp:
 * public, outside /api/v1, no workspace rate-limit bucket (registration has its own, per address).
 */
export const oauthEndpoints = [
  protectedResourceRow('mcp'),
  protectedResourceRow('readonly'),
  protectedResourceRow('service'),
  publicEndpoint({
    method: 'get',
    path: '/.well-known/oauth-authorization-server',
    summary: 'OAuth authorization-server metadata',
    description:
      'RFC 8414 metadata: issuer (PUBLIC_BASE_URL), the authorize, token, register and revoke endpoints, code with ' +
      'PKCE S256, the client authentication methods, Client ID Metadata Document support and the scopes.',
    handlers: metadataHandler((runtime) => authorizationServerMetadata(runtime.config)),
    responses: { 200: { description: 'The metadata.', json: AuthorizationServerMetadata } },
    errors: [],
    answersWithoutDatabase: true,
  }),
  publicEndpoint({
    method: 'post',
    path: '/oauth/register',
    summary: 'Register an OAuth client (dynamic client registration)',
    description:
      'RFC 7591, without authentication. Takes client_name, redirect_uris (https, or http on 127.0.0.1, [::1] or ' +
      'localhost; no fragment) and token_endpoint_auth_method (none, client_secret_basic, the default, or ' +
      'client_secret_post); other metadata is ignored. A client_secret is issued unless the method is none, and ' +
      'shown only in this answer. Each IP address may register 20 clients an hour.',
    handlers: (runtime) => [
      requireBodyType('application/json', 'Send the client metadata as JSON with Content-Type: application/json.'),
      express.json({ limit: REGISTRATION_BODY_LIMIT }),
      unreadableMetadata,
      register(runtime),
    ],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['redirect_uris'],
            properties: {
              client_name: { type: 'string', maxLength: 200 },
              redirect_uris: { type: 'array', minItems: 1, maxItems: 10, items: { type: 'string', format: 'uri' } },
              token_endpoint_auth_method: {
                type: 'string',
                enum: ['none', 'client_secret_basic', 'client_secret_post'],
                default: 'client_secret_basic',
              },
            },
          },
        },
      },
    },
    responses: {
      201: { description: 'The client is registered.', json: RegisteredClient },
      400: { description: 'The metadata is refused (RFC 7591 error body).', json: RegistrationError },
    },
    errors: ['payload_too_large', 'unsupported_media_type', 'rate_limit_exceeded'],
  }),
];

export const oauthRoutes = (runtime: Runtime): Router => routerFor(runtime, oauthEndpoints);
