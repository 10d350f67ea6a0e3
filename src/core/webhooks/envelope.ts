import { signWebhook } from './transport.ts';

/** An event as the outbox holds it. */
export interface OutboxEvent {
  id: string;
  type: string;
  workspaceId: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

/**
 * The delivery body (DECISIONS.md, Event envelope): the event, plus which attempt of which delivery
 * this is. Receivers dedupe on `id`, the same on every attempt.
 */
export function envelopeBody(event: OutboxEvent, deliveryId: string, attempt: number): string {
  return JSON.stringify({
    id: event.id,
    object: 'event',
    type: event.type,
    created_at: event.createdAt.toISOString(),
    workspace_id: event.workspaceId,
    delivery_id: deliveryId,
    attempt,
    data: event.data,
  });
}

/** The three Standard Webhooks headers; each attempt is signed afresh at its own time. */
export function signedHeaders(secret: string, eventId: string, body: string, at: Date): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(secret, eventId, timestamp, body),
  };
}
