import type { ErrorCode } from '../errors.ts';

/**
 * The names of what people and assistants do with a content item, and the verdicts the policy
 * (policy.ts) gives on them: plain data, so the MCP App views import it as well as the server.
 */
export const CONTENT_ACTIONS = [
  'approve_and_schedule',
  'approve_and_publish_now',
  'approve_only',
  'reject',
  'schedule',
  'publish_now',
  'move',
] as const;
export type ContentAction = (typeof CONTENT_ACTIONS)[number];

export type ActionVerdict =
  { action: ContentAction; allowed: true } | { action: ContentAction; allowed: false; code: ErrorCode; reason: string };

/** The verdict on `action` among `verdicts` (as reads give them back). */
export const verdictOf = (verdicts: readonly ActionVerdict[], action: ContentAction): ActionVerdict | undefined =>
  verdicts.find((verdict) => verdict.action === action);

/** Whether `verdicts` allow `action`: what a door asks before it shows the action's button. */
export const allows = (verdicts: readonly ActionVerdict[] | undefined, action: ContentAction): boolean =>
  verdicts?.some((verdict) => verdict.action === action && verdict.allowed) ?? false;
