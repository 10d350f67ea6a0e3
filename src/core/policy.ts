import { z } from 'zod';
import { isActiveStatus, type Workspace } from './accounts/workspace.ts';
import { ERROR_CODES, ServiceError, type ErrorCode } from './errors.ts';
import { OAUTH_SCOPES, type OAuthScope } from './oauth/metadata.ts';
import { assertScope, type OperationAccess } from './oauth/scopes.ts';
import type { Principal } from './people/principal.ts';
import { assertRole } from './people/roles.ts';
import type { Role } from '../../db/schema/index.ts';
import type { Verdict } from './verdicts.ts';

/**
 * What every resource's policy (campaigns/policy.ts, webhooks/policy.ts, social-accounts/policy.ts)
 * answers: for a principal, a workspace and a row, each action allowed or refused with a code and a
 * plain reason. The operations enforce through it (enforce), and reads give it back as
 * `allowed_actions`, so a door shows an action exactly when the operation would accept it.
 */
export { allows, verdictOf, type Verdict } from './verdicts.ts';

/** Who asks, where, and when. `scopes` are the credential's (every scope when it is not an OAuth token). */
export interface PolicySubject {
  principal: Principal;
  scopes?: readonly OAuthScope[];
  workspace: Workspace;
  now: Date;
}

/** The subject of a request: its principal, its credential's scopes (once the context carries them) and its workspace. */
export const subjectOf = (ctx: {
  principal: Principal;
  workspace: Workspace;
  clock: { now(): Date };
  scopes?: readonly OAuthScope[];
}): PolicySubject => ({
  principal: ctx.principal,
  scopes: ctx.scopes ?? OAUTH_SCOPES,
  workspace: ctx.workspace,
  now: ctx.clock.now(),
});

export type Refusal = { code: ErrorCode; reason: string };

/** The refusal a rule throws, as data; null when the rule lets it through. */
export function refusalOf(check: () => void): Refusal | null {
  try {
    check();
    return null;
  } catch (error) {
    if (error instanceof ServiceError) return { code: error.code, reason: error.message };
    throw error;
  }
}

/**
 * What every action asks first, in this order: an active plan, the credential's scope for the
 * operation behind the action, and the person's role for it (both as the operation declares them).
 */
export function accessRefusal(subject: PolicySubject, operation: OperationAccess & { role?: Role }): Refusal | null {
  const { planStatus } = subject.workspace;
  if (!isActiveStatus(planStatus)) {
    return {
      code: 'payment_required',
      reason: `The workspace subscription is ${planStatus}; update billing to continue.`,
    };
  }
  return (
    refusalOf(() => assertScope(subject.scopes ?? OAUTH_SCOPES, operation)) ??
    refusalOf(() => assertRole(subject.principal, operation))
  );
}

/** The verdict of the first refusal among `checks` (each asked only if the ones before let it through). */
export function verdict<A extends string>(action: A, ...checks: (() => Refusal | null)[]): Verdict<A> {
  for (const check of checks) {
    const refusal = check();
    if (refusal) return { action, allowed: false, ...refusal };
  }
  return { action, allowed: true };
}

/** Refuses, with the verdict's code and reason, an action the policy does not allow. */
export function enforce(verdict: Verdict): void {
  if (!verdict.allowed) throw new ServiceError(verdict.code, verdict.reason);
}

/** `allowed_actions` as an output schema: one verdict per action name. */
export const allowedActionsSchema = <A extends string>(actions: readonly [A, ...A[]]) => {
  const action = z.enum(actions);
  return z.array(
    z.discriminatedUnion('allowed', [
      z.strictObject({ action, allowed: z.literal(true) }),
      z.strictObject({
        action,
        allowed: z.literal(false),
        code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]),
        reason: z.string().min(1),
      }),
    ]),
  );
};
