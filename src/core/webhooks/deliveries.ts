import { sql } from 'drizzle-orm';
import { preparedStatements, type Db } from '../../../db/client.ts';
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

/** A new delivery id: each attempt has its own (DECISIONS.md, Delivery), and the envelope carries it. */
export const newDeliveryId = (): string => prefixedId('whd');

/**
 * Writes one row of the delivery log. The response body is kept on failed attempts only (the first
 * 8,192 bytes; the transport never reads more); a delivered attempt logs null.
 */
export function recordDeliveryAttempt(db: Db, id: string, attempt: DeliveryAttempt): void {
  statements(db).insert.run({
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
    deliveredAt: attempt.at.getTime(),
    isTest: attempt.isTest ? 1 : 0,
  });
}

/** The `webhook_delivery` resource (SPEC.md, Webhook delivery). */
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

const statements = preparedStatements((db) => ({
  insert: db
    .insert(webhookDeliveries)
    .values({
      id: sql.placeholder('id'),
      webhookId: sql.placeholder('webhookId'),
      jobId: sql.placeholder('jobId'),
      eventId: sql.placeholder('eventId'),
      eventType: sql.placeholder('eventType'),
      attempt: sql.placeholder('attempt'),
      status: sql.placeholder('status'),
      statusCode: sql.placeholder('statusCode'),
      responseBody: sql.placeholder('responseBody'),
      durationMs: sql.placeholder('durationMs'),
      deliveredAt: sql`${sql.placeholder('deliveredAt')}`,
      isTest: sql`${sql.placeholder('isTest')}`,
    })
    .prepare(),
}));
