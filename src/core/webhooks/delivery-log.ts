import { insertRow, type Db } from '../../../db/client.ts';
import { webhookDeliveries, type DeliveryStatus } from '../../../db/schema/index.ts';
import { prefixedId } from '../ids.ts';
import type { AttemptResult } from './transport.ts';

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export interface DeliveryAttempt {
  webhookId: string;
  jobId: string | null;
  eventId: string;
  eventType: string;
  attempt: number;
  status: DeliveryStatus;
  result: AttemptResult;
  at: Date;
  isTest: boolean;
}

/** A new delivery id: each attempt, retries included, has its own, and the envelope carries it. */
export const newDeliveryId = (): string => prefixedId('whd');

/**
 * Writes one row of the delivery log. The response body is kept on failed attempts only (the first
 * 8,192 bytes; the transport never reads more); a delivered attempt logs null.
 */
export async function recordDeliveryAttempt(db: Db, id: string, attempt: DeliveryAttempt): Promise<void> {
  // A raw insert: one per attempt, thousands a second (see insertRow).
  await insertRow(db, webhookDeliveries, {
    id,
    webhookId: attempt.webhookId,
    jobId: attempt.jobId,
    eventId: attempt.eventId,
    eventType: attempt.eventType,
    attempt: attempt.attempt,
    status: attempt.status,
    statusCode: attempt.result.statusCode,
    responseBody: attempt.status === 'delivered' ? null : (attempt.result.responseBody ?? attempt.result.error),
    durationMs: Math.round(attempt.result.durationMs),
    deliveredAt: attempt.at,
    isTest: attempt.isTest,
  });
}

/** The `webhook_delivery` resource: one attempt of the log as the API shows it. */
export function toDeliveryResource(row: DeliveryRow) {
  return {
    id: row.id,
    object: 'webhook_delivery' as const,
    event_id: row.eventId,
    event_type: row.eventType,
    attempt: row.attempt,
    status: row.status,
    status_code: row.statusCode,
    response_body: row.responseBody,
    duration_ms: row.durationMs,
    delivered_at: row.deliveredAt.toISOString(),
  };
}
