import express, { type ErrorRequestHandler, type RequestHandler, type Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import { ServiceError } from '../../core/errors.ts';
import {
  getDataDeletionRequest,
  handlePlatformCallback,
  type CallbackKind,
} from '../../core/social-accounts/deauthorization.ts';
import { DataDeletionAnswer, DataDeletionStatus, DeauthorizeAnswer } from '../../core/social-accounts/schemas.ts';
import { publicEndpoint, routerFor } from '../endpoints.ts';
import { requireBodyType } from '../handle.ts';

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
  ((req, res) => {
    const body = req.body as Record<string, unknown> | undefined;
    res.json(
      handlePlatformCallback(runtime, {
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
  schema: { type: 'string' },
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

/**
 * The platform operators' deauthorize and data-deletion callbacks and the deletion status page:
 * unauthenticated (the signature is the authentication), outside /api/v1, no rate-limit bucket (they
 * belong to no workspace).
 */
export const callbackEndpoints = [
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
      ((req, res) => {
        res.json(getDataDeletionRequest(runtime.db, req.params.platform as string, req.params.code as string));
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
