import { ServiceError } from '../errors.ts';
import type { Bucket } from '../config.ts';
import type { OAuthScope } from './metadata.ts';

/**
 * What an operation says about the access it needs: its own fields, typed here rather than taken
 * from operation.ts, which asks these rules (an import back would make a circle).
 */
export interface OperationAccess {
  buckets: readonly Bucket[];
  scope?: OAuthScope;
}

/**
 * The one rule for which scope an operation needs, for REST routes and MCP tools alike: an explicit
 * `scope` on the operation wins (launching a campaign publishes, though it takes only from the write
 * bucket); otherwise its rate-limit buckets say it: the publish bucket needs `publish`, the write
 * bucket `write`, and anything else only reads.
 */
export function requiredScope(operation: OperationAccess): OAuthScope {
  if (operation.scope) return operation.scope;
  if (operation.buckets.includes('publish')) return 'publish';
  if (operation.buckets.includes('write')) return 'write';
  return 'read';
}

export const scopeAllows = (scopes: readonly OAuthScope[], operation: OperationAccess): boolean =>
  scopes.includes(requiredScope(operation));

/** Refuses, with 403 insufficient_scope, a credential whose scopes do not cover the operation. */
export function assertScope(scopes: readonly OAuthScope[], operation: OperationAccess): void {
  const needed = requiredScope(operation);
  if (!scopes.includes(needed)) {
    throw new ServiceError(
      'insufficient_scope',
      `This token lacks the ${needed} scope this action needs (it holds ${scopes.join(' ') || 'none'}); authorize again asking for ${needed}.`,
    );
  }
}
