import { signWebhook } from './transport.ts';

/** An event as the outbox holds it; `data` is its JSON text, spliced into the body as stored. */
export interface OutboxEvent {
  id: string;
  type: string;
  workspaceId: string;
  data: string;
  createdAt: Date;
}

/**
 * The delivery body: the event, plus which attempt of which delivery
 * this is. Receivers dedupe on `id`, the same on every attempt.
 */
export function envelopeBody(event: OutboxEvent, deliveryId: string, attempt: number): string {
  const head = JSON.stringify({
    id: event.id,
    object: 'event',
    type: event.type,
    created_at: event.createdAt.toISOString(),
    workspace_id: event.workspaceId,
    delivery_id: deliveryId,
    attempt,
  });
  // The stored JSON goes in as it is: parsing and re-serialising it per attempt was measurable.
  return `${head.slice(0, -1)},"data":${event.data}}`;
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
