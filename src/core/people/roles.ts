import { ROLES, type ContentStatus, type Role } from '../../../db/schema/index.ts';
import { ServiceError } from '../errors.ts';
import { requiredScope, type OperationAccess } from '../oauth/scopes.ts';
import type { Principal } from './principal.ts';

/**
 * The one rule for which role an operation needs, for every door (REST, MCP, the dashboard): an
 * explicit `role` on the operation wins (settings need an admin); otherwise its scope says it, as
 * for OAuth tokens: reading needs a viewer, writing an editor, publishing an approver.
 */
export function requiredRole(operation: OperationAccess & { role?: Role }): Role {
  if (operation.role) return operation.role;
  const scope = requiredScope(operation);
  return scope === 'publish' ? 'approver' : scope === 'write' ? 'editor' : 'viewer';
}

/** Whether `role` includes `needed`: each role may do what the ones before it may. */
export const roleIncludes = (role: Role, needed: Role): boolean => ROLES.indexOf(role) >= ROLES.indexOf(needed);

/** True when the principal may run the operation: anyone not limited by a role, or a person whose role suffices. */
export const roleAllows = (principal: Principal, operation: OperationAccess & { role?: Role }): boolean =>
  principal.role === null || roleIncludes(principal.role, requiredRole(operation));

const ROLE_WORDS: Record<Role, string> = {
  viewer: 'a viewer',
  editor: 'an editor',
  approver: 'an approver',
  admin: 'an admin',
};

function refuse(principal: Principal, needed: Role, what: string): never {
  throw new ServiceError(
    'forbidden',
    `${what} needs ${ROLE_WORDS[needed]} or above; you are ${ROLE_WORDS[principal.role ?? 'admin']} in this workspace.`,
  );
}

/** Refuses, with 403 forbidden, a person whose role does not cover the operation. */
export function assertRole(principal: Principal, operation: OperationAccess & { role?: Role }): void {
  if (principal.role === null) return;
  const needed = requiredRole(operation);
  if (!roleIncludes(principal.role, needed)) refuse(principal, needed, 'This action');
}

/**
 * The statuses an editor may give an item: working on it and submitting it for review. Approving,
 * rejecting and scheduling (and so publishing) are an approver's.
 */
const EDITOR_STATUSES: readonly ContentStatus[] = ['draft', 'pending_review', 'archived'];

/**
 * The finer content rules, beyond the operation's role: an editor may create and change items only
 * while they are drafts, in review or rejected, and may only move them to draft or pending_review;
 * (or archive them); an item already approved or scheduled (or its time) is an approver's to change.
 */
export function assertContentChange(
  principal: Principal,
  change: { from: ContentStatus | null; to: ContentStatus; action: string },
): void {
  if (principal.role === null || roleIncludes(principal.role, 'approver')) return;
  if (!EDITOR_STATUSES.includes(change.to) && change.to !== change.from) {
    refuse(principal, 'approver', change.to === 'rejected' ? 'Rejecting an item' : `Moving an item to ${change.to}`);
  }
  if (change.from !== null && !['draft', 'pending_review', 'rejected'].includes(change.from)) {
    refuse(principal, 'approver', `${change.action} an item that is ${change.from}`);
  }
}
