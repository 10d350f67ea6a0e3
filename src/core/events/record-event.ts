import type { Executor } from '../../../db/client.ts';
import { events } from '../../../db/schema/index.ts';
import { prefixedId } from '../ids.ts';

/** The eleven subscribable names (DECISIONS.md, Events); three are reserved and never emitted. */
export const EVENT_TYPES = [
  'content.created',
  'content.updated',
  'content.approved',
  'content.published',
  'content.publish_failed',
  'content.deleted',
  'campaign.launched',
  'campaign.completed',
  'campaign.paused',
  'social_account.connected',
  'social_account.disconnected',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Writes an event to the outbox. Call it inside the transaction of the change that caused it, so
 * the change and its event commit together or not at all.
 */
export function recordEvent(
  tx: Executor,
  event: { workspaceId: string; type: EventType; data: Record<string, unknown>; at: Date },
): string {
  const id = prefixedId('evt');
  tx.insert(events).values({ id, workspaceId: event.workspaceId, type: event.type, data: event.data, createdAt: event.at }).run();
  return id;
}
