import type { ContentActorType, Role } from '../../../db/schema/index.ts';

/**
 * Who an operation acts for. `role` is a person's role in the workspace; null means no person's
 * limits apply: an API key (full workspace access), an OAuth grant made with an API key (its scopes
 * limit it), or the service itself (jobs, the admin CLI).
 */
export interface Principal {
  type: ContentActorType;
  /** The user, key or client id; null for the service. */
  id: string | null;
  /** How the history shows it: an email, "API key np_live_AbCd…", a client's name. */
  label: string;
  role: Role | null;
}

export const SERVICE_PRINCIPAL: Principal = { type: 'service', id: null, label: 'the service', role: null };

export const personPrincipal = (user: { id: string; email: string }, role: Role): Principal => ({
  type: 'user',
  id: user.id,
  label: user.email,
  role,
});
