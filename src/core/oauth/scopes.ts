import { ServiceError } from '../errors.ts';
import type { OAuthScope } from './metadata.ts';

/**
 * What an operation says about the access it needs: its own fields, typed here rather than taken
 * from operation.ts, which asks these rules (an import back would make a circle).
 */
export interface OperationAccess {
  /** Declared on every operation; never derived from its rate-limit buckets, which only meter it. */
  scope: OAuthScope;
}

/**
 * The one rule for which scope an operation needs, for REST routes and MCP tools alike: the scope it
 * declares. Reading needs `read`; changing anything `write`; what publishes or leads to posts going
 * out (publishing, launching a campaign) `publish`.
 */
export const requiredScope = (operation: OperationAccess): OAuthScope => operation.scope;

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
