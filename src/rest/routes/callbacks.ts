import cookieParser from 'cookie-parser';
import express, { type ErrorRequestHandler, type RequestHandler, type Response, type Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import { OAUTH_PLATFORMS, PLATFORM_NAMES, PLATFORMS, platformIdList } from '../../core/platforms/registry.ts';
import { ServiceError } from '../../core/errors.ts';
import {
  getDataDeletionRequest,
  handlePlatformCallback,
  type CallbackKind,
} from '../../core/social-accounts/deauthorization.ts';
import {
  accountHandle,
  completeConfirmation,
  completeConnection,
  type ConnectionOutcome,
} from '../../core/social-accounts/connect.ts';
import { sessionCookieName } from '../../core/people/sessions.ts';
import { DataDeletionAnswer, DataDeletionStatus, DeauthorizeAnswer } from '../../core/social-accounts/schemas.ts';
import { publicEndpoint, routerFor } from '../endpoints.ts';
import { ERROR_STATUS } from '../../http/errors.ts';
import { requireBodyType } from '../handle.ts';
import { messagePage, PAGE_SECURITY_POLICY } from '../../http/message-page.ts';
import { confirmationPage } from '../pages.ts';

/** Platforms post form-encoded bodies; anything else would parse to nothing and read as "missing". */
const requireFormBody = requireBodyType(
  'application/x-www-form-urlencoded',
  'Send signed_request form-encoded, with Content-Type: application/x-www-form-urlencoded.',
);

/** The form parser's own failures that the shared translator (written for JSON) does not name. */
const formParserErrors: ErrorRequestHandler = (error: { type?: string }, _req, _res, next) => {
  switch (error.type) {
    case 'parameters.too.many':
      return next(new ServiceError('payload_too_large', 'The form has too many fields; send signed_request alone.'));
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return next(new ServiceError('unsupported_media_type', 'Send the form body in UTF-8, without content encoding.'));
    default:
      return next(error);
  }
};

const callback = (kind: CallbackKind) => (runtime: Runtime) => [
  requireFormBody,
  express.urlencoded({ extended: false, limit: runtime.config.bodyLimitBytes }),
  formParserErrors,
  (async (req, res) => {
    const body = req.body as Record<string, unknown> | undefined;
    res.json(
      await handlePlatformCallback(runtime, {
        platform: req.params.platform as string,
        kind,
        signedRequest: body?.signed_request,
      }),
    );
  }) satisfies RequestHandler,
];

const platformParameter = {
  name: 'platform',
  in: 'path' as const,
  description:
    'The platform id, such as facebook; only platforms with an app secret configured (<PLATFORM>_APP_SECRET) have callbacks.',
  schema: { type: 'string', enum: [...PLATFORMS] },
};

const signedRequestBody = {
  required: true,
  content: {
    'application/x-www-form-urlencoded': {
      schema: {
        type: 'object',
        required: ['signed_request'],
        properties: {
          signed_request: {
            type: 'string',
            description:
              "Meta's format: base64url(HMAC-SHA256 of the payload part, keyed with the app secret) . base64url(JSON payload with user_id).",
          },
        },
      },
    },
  },
};

/** The return URL with `params` set in its query (replacing any of the same name). */
function withQuery(returnUrl: string, params: Record<string, string>): string {
  const url = new URL(returnUrl);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
}

/** The cookie that binds a confirmation page to the browser it was shown in. */
const CONFIRMATION_COOKIE = 'connect_confirmation';

/** The dashboard session token this browser holds, if any: a connection started there may skip confirming. */
const dashboardSession = (runtime: Runtime, cookies: unknown): string | undefined => {
  const value = (cookies as Record<string, unknown> | undefined)?.[sessionCookieName(runtime.config)];
  return typeof value === 'string' ? value : undefined;
};

/** The confirmation token this browser holds for the platform's callback, if any. */
const browserConfirmation = (cookies: unknown): string | undefined => {
  const value = (cookies as Record<string, unknown> | undefined)?.[CONFIRMATION_COOKIE];
  return typeof value === 'string' ? value : undefined;
};

/**
 * How a callback outcome is answered: a 303 to the return URL when the connection had one (on
 * success or cancellation), else a small page. Never cached, and never sent on as a Referer: the
 * callback's URL carried a code and a state.
 */
function sendOutcome(runtime: Runtime, res: Response, outcome: ConnectionOutcome): void {
  res.set({
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'Content-Security-Policy': PAGE_SECURITY_POLICY,
  });
  const page = (status: number, title: string, message: string) =>
    void res.status(status).type('html').send(messagePage(title, message));
  switch (outcome.outcome) {
    case 'connected': {
      const { accounts, workspaceName, returnUrl } = outcome;
      const { platform } = accounts[0]!;
      if (returnUrl) {
        // One social_account_id per account connected (several when a login's Pages were chosen).
        const url = new URL(withQuery(returnUrl, { platform }));
        url.searchParams.delete('social_account_id');
        for (const account of accounts) url.searchParams.append('social_account_id', account.id);
        return res.redirect(303, url.toString());
      }
      const handles = accounts.map((account) => accountHandle(account.platform, { username: account.username }));
      return page(
        200,
        'Account connected',
        `Connected ${handles.join(', ')} to ${workspaceName}; you can close this tab.`,
      );
    }
    case 'confirm': {
      // The page must not be framed (a click-jacked confirmation would connect). The cookie is the
      // browser's half of the confirmation: Lax keeps it off posts from other sites, and the path off
      // every other route.
      res.set('X-Frame-Options', 'DENY');
      const action = `/callbacks/${outcome.platform}/oauth`;
      res.cookie(CONFIRMATION_COOKIE, outcome.confirmation, {
        httpOnly: true,
        sameSite: 'lax',
        secure: runtime.config.publicBaseUrl.startsWith('https:'),
        path: action,
        expires: outcome.expiresAt,
      });
      return void res
        .status(200)
        .type('html')
        .send(
          confirmationPage({
            platformName: PLATFORM_NAMES[outcome.platform],
            workspaceName: outcome.workspaceName,
            action,
            fields: { state: outcome.state, confirmation: outcome.confirmation },
            choices: outcome.choices,
          }),
        );
    }
    case 'cancelled': {
      if (outcome.returnUrl) {
        return res.redirect(303, withQuery(outcome.returnUrl, { error: 'access_denied', platform: outcome.platform }));
      }
      const name = PLATFORM_NAMES[outcome.platform];
      return page(
        200,
        'Connection cancelled',
        `The ${name} connection was cancelled; no account was connected. You can close this tab.`,
      );
    }
    case 'refused':
      // The status of the refusal's code, as every REST answer has it (404, 400, 403 or 502).
      return page(
        ERROR_STATUS[outcome.error.code],
        'Connection failed',
        `${outcome.error.message} No account was connected.`,
      );
  }
}

const htmlPage = (description: string) => ({ description, mediaType: 'text/html' });

/**
 * The platform operators' deauthorize and data-deletion callbacks and the deletion status page:
 * unauthenticated (the signature is the authentication), outside /api/v1, no rate-limit bucket (they
 * belong to no workspace).
 */
export const callbackEndpoints = [
  publicEndpoint({
    method: 'get',
    path: '/callbacks/:platform/oauth',
    summary: 'OAuth callback: ask the person to confirm the account',
    description:
      'Where the platform sends the user after the consent page opened from POST /api/v1/social-accounts/connect. ' +
      'Exchanges the code and reads the profile, then answers a confirmation page naming the account and the ' +
      'workspace ("Connect @name to workspace W?"), with a cookie that binds it to this browser; nothing is stored ' +
      'until the page posts back. Reloading the page works in the same browser only. On any failure nothing is stored. ' +
      'A connection started on the dashboard and come back with the same signed-in session connects its one account at once, without the page.',
    handlers: (runtime) => [
      cookieParser(),
      (async (req, res) => {
        sendOutcome(
          runtime,
          res,
          await completeConnection(
            runtime,
            req.params.platform as string,
            req.query as Record<string, unknown>,
            browserConfirmation(req.cookies),
            dashboardSession(runtime, req.cookies),
          ),
        );
      }) satisfies RequestHandler,
    ],
    parameters: [
      {
        name: 'platform',
        in: 'path',
        description: `The platform id: ${platformIdList(OAUTH_PLATFORMS)}.`,
        schema: { type: 'string', enum: [...OAUTH_PLATFORMS] },
      },
      {
        name: 'code',
        in: 'query',
        description: 'The authorization code, from the platform.',
        schema: { type: 'string' },
      },
      { name: 'state', in: 'query', description: 'The state the authorize URL carried.', schema: { type: 'string' } },
      {
        name: 'error',
        in: 'query',
        description:
          'Set by the platform instead of code when the user declined (access_denied, user_cancelled_authorize).',
        schema: { type: 'string' },
      },
    ],
    responses: {
      200: htmlPage(
        'The confirmation page (with "Connect" and "Cancel"; one login managing several accounts gets a checkbox per account), or the user cancelled at the platform.',
      ),
      303: {
        description:
          'To the return_url given at connect, with error=access_denied (and platform), when the user cancelled at the platform.',
      },
      400: htmlPage(
        'The state is missing, unknown, expired or already used, no code came, or the page was reloaded in another browser.',
      ),
      404: htmlPage('The platform has no OAuth connection.'),
      502: htmlPage('The platform refused the authorization or the code, or could not be reached.'),
    },
    errors: [],
  }),
  publicEndpoint({
    method: 'post',
    path: '/callbacks/:platform/oauth',
    summary: 'OAuth callback: connect the accounts confirmed, or cancel',
    description:
      'Where the confirmation page posts: with decision=connect, connects each account given (a reconnect keeps its id), ' +
      'one social account each, and emits social_account.connected; with decision=cancel, stores nothing. The form ' +
      'carries the single-use state and the confirmation token, which must match the cookie the page set: a form ' +
      'posted from another browser or site is refused and changes nothing.',
    handlers: (runtime) => [
      requireBodyType('application/x-www-form-urlencoded', 'Post the chooser form, form-encoded.'),
      express.urlencoded({ extended: false, limit: runtime.config.bodyLimitBytes }),
      formParserErrors,
      cookieParser(),
      (async (req, res) => {
        const body = (req.body ?? {}) as Record<string, unknown>;
        sendOutcome(
          runtime,
          res,
          await completeConfirmation(runtime, req.params.platform as string, body, browserConfirmation(req.cookies)),
        );
      }) satisfies RequestHandler,
    ],
    parameters: [
      {
        name: 'platform',
        in: 'path',
        description: 'The platform id, as in the callback the page came from.',
        schema: { type: 'string', enum: [...OAUTH_PLATFORMS] },
      },
    ],
    requestBody: {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          schema: {
            type: 'object',
            required: ['state', 'confirmation'],
            properties: {
              state: { type: 'string', description: 'The state the confirmation page carried.' },
              confirmation: {
                type: 'string',
                description: 'The confirmation token the page carried; it must match the connect_confirmation cookie.',
              },
              decision: {
                type: 'string',
                enum: ['connect', 'cancel'],
                description: 'Connect (the default) or cancel.',
              },
              account: {
                type: 'array',
                items: { type: 'string' },
                description: 'The ids of the accounts to connect, among those the page listed (repeat the field).',
              },
            },
          },
        },
      },
    },
    responses: {
      200: htmlPage(
        'The accounts are connected ("Connected @handle to <workspace>"), or the connection was cancelled.',
      ),
      303: {
        description:
          'To the return_url given at connect: with one social_account_id per account and platform on success, with error=access_denied (and platform) on cancel.',
      },
      400: htmlPage(
        'The state is missing, unknown, expired or used, the confirmation does not match this browser, or no listed account was chosen.',
      ),
      403: htmlPage("Connecting the accounts would pass the workspace's platforms_limit."),
      404: htmlPage('The platform has no OAuth connection.'),
    },
    errors: ['payload_too_large', 'unsupported_media_type'],
  }),
  publicEndpoint({
    method: 'post',
    path: '/callbacks/:platform/deauthorize',
    summary: 'Platform deauthorize callback',
    description:
      "Called by the platform's operator when a user removes the app: every matching account is marked inactive.",
    handlers: callback('deauthorize'),
    parameters: [platformParameter],
    requestBody: signedRequestBody,
    responses: { 200: { description: 'Taken.', json: DeauthorizeAnswer } },
    errors: ['invalid_body', 'not_found', 'payload_too_large', 'unsupported_media_type'],
  }),
  publicEndpoint({
    method: 'post',
    path: '/callbacks/:platform/data-deletion',
    summary: 'Platform data-deletion callback',
    description:
      "Called by the platform's operator when a user asks for their data to be deleted: the matching account rows are removed.",
    handlers: callback('data-deletion'),
    parameters: [platformParameter],
    requestBody: signedRequestBody,
    responses: {
      200: {
        description: 'Where the user can check the deletion, and its confirmation code.',
        json: DataDeletionAnswer,
      },
    },
    errors: ['invalid_body', 'not_found', 'payload_too_large', 'unsupported_media_type'],
  }),
  publicEndpoint({
    method: 'get',
    path: '/callbacks/:platform/data-deletion/:code',
    summary: 'Data deletion status',
    description: 'The page behind the URL the data-deletion callback answers.',
    handlers: (runtime) => [
      (async (req, res) => {
        res.json(await getDataDeletionRequest(runtime.db, req.params.platform as string, req.params.code as string));
      }) satisfies RequestHandler,
    ],
    parameters: [
      platformParameter,
      { name: 'code', in: 'path', description: 'The confirmation code.', schema: { type: 'string' } },
    ],
    responses: { 200: { description: 'The deletion.', json: DataDeletionStatus } },
    errors: ['not_found'],
  }),
];

export const callbackRoutes = (runtime: Runtime): Router => routerFor(runtime, callbackEndpoints);
