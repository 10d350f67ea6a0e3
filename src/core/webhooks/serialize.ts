import type { z } from 'zod';
import type { webhooks } from '../../../db/schema/index.ts';
import type { WebhookResource as WebhookResourceSchema } from './schemas.ts';

/** The resource as its schema describes it: the serializer must produce exactly this. */
export type WebhookResource = z.output<typeof WebhookResourceSchema>;

export type WebhookRow = typeof webhooks.$inferSelect;

/**
 * The webhook resource as the API shows it. `signing_secret` is the plaintext only in the answers
 * to create and rotate, the two moments a secret is made; every other answer carries null.
 */
export function toWebhookResource(row: WebhookRow, signingSecret: string | null = null): WebhookResource {
  return {
    id: row.id,
    object: 'webhook' as const,
    url: row.url,
    events: row.events,
    is_enabled: row.isEnabled,
    auto_disabled_at: row.autoDisabledAt ? row.autoDisabledAt.toISOString() : null,
    created_at: row.createdAt.toISOString(),
    signing_secret: signingSecret,
  };
}
