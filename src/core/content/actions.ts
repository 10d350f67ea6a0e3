import type { Verdict } from '../verdicts.ts';

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

export type ActionVerdict = Verdict<ContentAction>;

export { allows, verdictOf } from '../verdicts.ts';
