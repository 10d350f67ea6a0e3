import express, {
  type ErrorRequestHandler,
  type Request,
  type RequestHandler,
  type Response,
  type Router,
} from 'express';
import { z } from 'zod';
import type { Runtime } from '../../core/context.ts';
import {
  AUTHORIZATION_FIELDS,
  approveAuthorization,
  approveAuthorizationAsPerson,
  checkAuthorizationRequest,
  consentFormToken,
  consentFormTokenMatches,
  redirectLocation,
  type AuthorizationParams,
  type AuthorizationRequest,
} from '../../core/oauth/authorize.ts';
import {
  authenticateClient,
  exchangeAuthorizationCode,
  refreshTokens,
  revokeToken,
  type ClientCredentials,
} from '../../core/oauth/grants.ts';
import { ServiceError } from '../../core/errors.ts';
import { isTokenError, oauthErrorBody } from '../../core/oauth/errors.ts';
import { publicEndpoint, routerFor } from '../endpoints.ts';
import { ERROR_STATUS } from '../../http/errors.ts';
import { messagePage, PAGE_SECURITY_POLICY } from '../../http/message-page.ts';
import { consentPage } from '../pages.ts';

/** A consent form or a token request is a few fields; nothing larger has a reason to arrive. */
const FORM_LIMIT = '16kb';
const readForm = express.urlencoded({ extended: false, limit: FORM_LIMIT });

/** The consent page must never be framed (clickjacking), run a script nor be cached. */
function setPageHeaders(res: Response): void {
  res.set({
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': PAGE_SECURITY_POLICY,
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
  });
  res.type('html');
}

/** Only string values of the known fields: a repeated parameter (an array) is treated as absent. */
function pickParams(source: Record<string, unknown>): AuthorizationParams {
  const params: AuthorizationParams = {};
  for (const name of AUTHORIZATION_FIELDS) {
    const value = source[name];
    if (typeof value === 'string') params[name] = value;
  }
  return params;
}

const fieldOf = (source: Record<string, unknown>, name: string): string | undefined =>
  typeof source[name] === 'string' ? source[name] : undefined;

function showConsent(runtime: Runtime, res: Response, request: AuthorizationRequest, error?: string): void {
  setPageHeaders(res);
  const fields: Record<string, string> = {};
  for (const name of AUTHORIZATION_FIELDS) fields[name] = request.params[name] ?? '';
  fields.form_token = consentFormToken(runtime, request.params);
  res.send(
    consentPage({
      clientName: request.client.clientName ?? request.client.id,
      returnHost: new URL(request.redirectUri).host,
      scopes: request.scopes,
      fields,
      error,
    }),
  );
}

/** The client's address: the TCP peer's, or the one a proxy named in TRUST_PROXY gave (Express's trust proxy). */
const addressOf = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? 'unknown';

/** Checks the request; answers a refusal (page or redirect) itself and says whether to go on. */
async function checkedRequest(
  runtime: Runtime,
  req: Request,
  res: Response,
  params: AuthorizationParams,
): Promise<AuthorizationRequest | null> {
  const checked = await checkAuthorizationRequest(runtime, params, addressOf(req));
  if (!('kind' in checked)) return checked;
  if (checked.kind === 'redirect') {
    res.redirect(302, checked.location);
    return null;
  }
  setPageHeaders(res);
  res.status(400).send(messagePage('This authorization request cannot be used', checked.message));
  return null;
}

const showAuthorization =
  (runtime: Runtime): RequestHandler =>
  async (req, res) => {
    const request = await checkedRequest(runtime, req, res, pickParams(req.query as Record<string, unknown>));
    if (request) showConsent(runtime, res, request);
  };

const answerConsent =
  (runtime: Runtime): RequestHandler =>
  async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const params = pickParams(body);
    // The form token first: fields that are not the ones the page showed never reach a redirect.
    if (!consentFormTokenMatches(runtime, params, fieldOf(body, 'form_token') ?? '')) {
      setPageHeaders(res);
      res
        .status(403)
        .send(messagePage('This form cannot be used', 'Go back to your assistant and start the connection again.'));
      return;
    }
    const request = await checkedRequest(runtime, req, res, params);
    if (!request) return;
    const decision = fieldOf(body, 'decision');
    if (decision === 'deny') {
      const answer = { error: 'access_denied', error_description: 'The person declined.', state: request.state };
      return res.redirect(302, redirectLocation(runtime, request.redirectUri, answer));
    }
    if (decision !== 'approve') return showConsent(runtime, res, request, 'Choose Allow or Deny.');
    const apiKey = fieldOf(body, 'api_key') ?? '';
    const email = fieldOf(body, 'email') ?? '';
    // A key, when one is pasted; otherwise the dashboard account's email and password.
    const outcome =
      apiKey.trim() === '' && email.trim() !== ''
        ? await approveAuthorizationAsPerson(
            runtime,
            request,
            { email, password: fieldOf(body, 'password') ?? '' },
            addressOf(req),
          )
        : await approveAuthorization(runtime, request, apiKey, addressOf(req));
    if ('keyRefused' in outcome) {
      res.status(400);
      return showConsent(runtime, res, request, outcome.keyRefused);
    }
    res.redirect(302, outcome.location);
  };

/** Client credentials from HTTP Basic (RFC 6749 section 2.3.1: each part form-urlencoded) or from the form. */
function clientCredentials(req: Request, body: Record<string, unknown>): ClientCredentials {
  const basic = /^Basic\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
  if (basic) {
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new ServiceError('invalid_client', 'The Basic credentials are malformed.');
    const part = (text: string) => decodeURIComponent(text.replace(/\+/g, ' '));
    try {
      return { clientId: part(decoded.slice(0, colon)), secret: part(decoded.slice(colon + 1)), via: 'basic' };
    } catch {
      throw new ServiceError('invalid_client', 'The Basic credentials are malformed.');
    }
  }
  const secret = fieldOf(body, 'client_secret');
  return { clientId: fieldOf(body, 'client_id'), secret, via: secret === undefined ? 'none' : 'post' };
}

/** RFC 6749 section 5.2: the error JSON; 401 for a client that failed authentication. */
function sendOAuthError(req: Request, res: Response, error: ServiceError): void {
  if (error.code === 'invalid_client' && /^Basic/i.test(req.get('authorization') ?? '')) {
    res.set('WWW-Authenticate', 'Basic realm="oauth"');
  }
  res.status(ERROR_STATUS[error.code]).json(oauthErrorBody(error));
}

const issueTokens =
  (runtime: Runtime): RequestHandler =>
  async (req, res) => {
    res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    const body = (req.body ?? {}) as Record<string, unknown>;
    try {
      const client = await authenticateClient(runtime, clientCredentials(req, body));
      const grantType = fieldOf(body, 'grant_type');
      if (grantType === 'authorization_code') {
        return res.json(
          await exchangeAuthorizationCode(runtime, client, {
            code: fieldOf(body, 'code'),
            codeVerifier: fieldOf(body, 'code_verifier'),
            redirectUri: fieldOf(body, 'redirect_uri'),
            resource: fieldOf(body, 'resource'),
          }),
        );
      }
      if (grantType === 'refresh_token') {
        return res.json(
          await refreshTokens(runtime, client, {
            refreshToken: fieldOf(body, 'refresh_token'),
            scope: fieldOf(body, 'scope'),
            resource: fieldOf(body, 'resource'),
          }),
        );
      }
      if (grantType === undefined) throw new ServiceError('invalid_request', 'grant_type is required.');
      throw new ServiceError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
    } catch (error) {
      if (!isTokenError(error)) throw error;
      sendOAuthError(req, res, error);
    }
  };

const revoke =
  (runtime: Runtime): RequestHandler =>
  async (req, res) => {
    res.set({ 'Cache-Control': 'no-store' });
    const body = (req.body ?? {}) as Record<string, unknown>;
    try {
      const client = await authenticateClient(runtime, clientCredentials(req, body));
      await revokeToken(runtime, client, fieldOf(body, 'token'));
      res.status(200).end();
    } catch (error) {
      if (!isTokenError(error)) throw error;
      sendOAuthError(req, res, error);
    }
  };

/** A form that cannot be read is an invalid_request in OAuth's terms, not the API's envelope. */
const unreadableForm: ErrorRequestHandler = (error: { type?: string }, _req, res, next) => {
  if (error.type !== 'entity.parse.failed' && error.type !== 'entity.too.large') return next(error);
  res.set('Cache-Control', 'no-store');
  res.status(400).json({ error: 'invalid_request', error_description: 'The form body cannot be read.' });
};

const OAuthErrorBody = z.strictObject({ error: z.string(), error_description: z.string() });
const TokenBody = z.strictObject({
  access_token: z.string().startsWith('np_oat_'),
  token_type: z.literal('Bearer'),
  expires_in: z.int(),
  refresh_token: z.string().startsWith('np_ort_'),
  scope: z.string(),
});
const formBody = (properties: Record<string, unknown>, required: string[]) => ({
  required: true,
  content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', required, properties } } },
});
const stringField = { type: 'string' };
const redirectAnswer = {
  description: 'Back to redirect_uri with code, state and iss, or with error, state and iss.',
  headers: { Location: { description: 'The client redirect_uri with the answer.', required: true } },
};
const requestFields = Object.fromEntries(AUTHORIZATION_FIELDS.map((name) => [name, stringField]));

/** The authorization code flow for remote assistants: consent, tokens, revocation. Public routes: OAuth has its own errors. */
export const oauthFlowEndpoints = [
  publicEndpoint({
    method: 'get',
    path: '/oauth/authorize',
    summary: 'OAuth consent page',
    description:
      'Checks the authorization request (response_type=code, client_id, redirect_uri, code_challenge with S256, ' +
      'state, optional scope and resource) and shows the consent page, where the person pastes their API key. ' +
      'A client_id that is an https URL is fetched as the client metadata document. An unknown client or ' +
      'redirect_uri is shown as an error page; other errors go back to redirect_uri. A client first met by its ' +
      'document counts against the address registration allowance (429 past it).',
    parameters: AUTHORIZATION_FIELDS.map((name) => ({
      name,
      in: 'query' as const,
      description: `The authorization request's ${name}.`,
      schema: stringField,
    })),
    handlers: (runtime) => [showAuthorization(runtime)],
    responses: {
      200: { description: 'The consent page.', mediaType: 'text/html' },
      302: redirectAnswer,
      400: { description: 'The client or redirect_uri cannot be trusted: an error page.', mediaType: 'text/html' },
    },
    errors: ['rate_limit_exceeded'],
  }),
  publicEndpoint({
    method: 'post',
    path: '/oauth/authorize',
    summary: 'Answer the OAuth consent page',
    description:
      'The consent form: the request fields, form_token, api_key and decision (approve or deny). Approve with a ' +
      "valid key redirects with a code for the key's workspace; a wrong key shows the page again. Without a key, " +
      'email and password sign the person in with their dashboard account: the grant is bound to them, its scopes ' +
      'cut to their role (viewer: read; editor: read and write), and its tokens act with their role.',
    handlers: (runtime) => [readForm, answerConsent(runtime)],
    requestBody: formBody(
      {
        ...requestFields,
        form_token: stringField,
        api_key: stringField,
        email: stringField,
        password: stringField,
        decision: { enum: ['approve', 'deny'] },
      },
      ['client_id', 'redirect_uri', 'form_token', 'decision'],
    ),
    responses: {
      200: { description: 'The page again (no decision).', mediaType: 'text/html' },
      302: redirectAnswer,
      400: { description: 'A wrong key or an untrusted request: a page.', mediaType: 'text/html' },
      403: { description: 'The form token does not match the request.', mediaType: 'text/html' },
    },
    errors: ['rate_limit_exceeded'],
  }),
  publicEndpoint({
    method: 'post',
    path: '/oauth/token',
    summary: 'OAuth token endpoint',
    description:
      'authorization_code (code, code_verifier, redirect_uri, optional resource) or refresh_token (refresh_token, ' +
      'optional narrower scope, optional resource; rotates). A resource must be the one authorized, or ' +
      'PUBLIC_BASE_URL/mcp/readonly, which narrows the grant to read; any other is invalid_target (RFC 8707). ' +
      'Client authentication by its registered method: none (client_id in the form), client_secret_basic or ' +
      'client_secret_post. Errors are RFC 6749 JSON.',
    handlers: (runtime) => [readForm, unreadableForm, issueTokens(runtime)],
    requestBody: formBody(
      {
        grant_type: { enum: ['authorization_code', 'refresh_token'] },
        code: stringField,
        code_verifier: stringField,
        redirect_uri: stringField,
        resource: stringField,
        refresh_token: stringField,
        scope: stringField,
        client_id: stringField,
        client_secret: stringField,
      },
      ['grant_type'],
    ),
    responses: {
      200: { description: 'The tokens: access 1 hour, refresh 30 days.', json: TokenBody },
      400: {
        description: 'invalid_request, invalid_grant, unsupported_grant_type, invalid_scope or invalid_target.',
        json: OAuthErrorBody,
      },
      401: { description: 'invalid_client.', json: OAuthErrorBody },
    },
    errors: [],
  }),
  publicEndpoint({
    method: 'post',
    path: '/oauth/revoke',
    summary: 'OAuth token revocation (RFC 7009)',
    description:
      "Revokes the token if it is one of the client's (a refresh token ends its whole grant); answers 200 whatever the token was.",
    handlers: (runtime) => [readForm, unreadableForm, revoke(runtime)],
    requestBody: formBody({ token: stringField, token_type_hint: stringField, client_id: stringField }, ['token']),
    responses: {
      200: { description: 'Done, or nothing to do.' },
      401: { description: 'invalid_client.', json: OAuthErrorBody },
    },
    errors: [],
  }),
];

export const oauthFlowRoutes = (runtime: Runtime): Router => routerFor(runtime, oauthFlowEndpoints);
