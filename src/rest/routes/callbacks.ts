import express, { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import type { Runtime } from '../../core/context.ts';
import { ServiceError } from '../../core/errors.ts';
import { getDataDeletionRequest, handlePlatformCallback, type CallbackKind } from '../../core/social-accounts/deauthorization.ts';
import { requireBodyType, route } from '../handle.ts';

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

/**
 * The platform operators' deauthorize and data-deletion callbacks and the deletion status page:
 * unauthenticated (the signature is the authentication), outside /api/v1, no rate-limit bucket (they
 * belong to no workspace).
 */
export function callbackRoutes(runtime: Runtime): Router {
  const router = Router();
  const callback = (kind: CallbackKind) => [
    requireFormBody,
    express.urlencoded({ extended: false, limit: runtime.config.bodyLimitBytes }),
    formParserErrors,
    ((req, res) => {
      const body = req.body as Record<string, unknown> | undefined;
      res.json(handlePlatformCallback(runtime, { platform: req.params.platform as string, kind, signedRequest: body?.signed_request }));
    }) satisfies RequestHandler,
  ];
  route(router, '/callbacks/:platform/deauthorize', { post: callback('deauthorize') });
  route(router, '/callbacks/:platform/data-deletion', { post: callback('data-deletion') });
  route(router, '/callbacks/:platform/data-deletion/:code', {
    get: [
      ((req, res) => {
        res.json(getDataDeletionRequest(runtime.db, req.params.platform as string, req.params.code as string));
      }) satisfies RequestHandler,
    ],
  });
  return router;
}
