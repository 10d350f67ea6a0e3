import { z } from 'zod';
import { DELIVERY_STATUSES } from '../../../db/schema/index.ts';
import { dateTimeInput, dateTimeOutput } from '../dates.ts';
import { EVENT_TYPES, type EventType } from '../events/record-event.ts';
import { paginationInput } from '../pagination.ts';

export const MAX_URL_LENGTH = 2048;

/**
 * One subscribable event name, from the service's list of event types. `webhook.test` gets its own answer: it is a
 * real event name, but only the test endpoint sends it.
 */
const eventName = z.enum(EVENT_TYPES, {
  error: (issue) => {
    if (typeof issue.input !== 'string') return 'Event names are strings, such as content.published.';
    if (issue.input === 'webhook.test') {
      return 'webhook.test cannot be subscribed to: only POST /webhooks/{id}/test sends it, to that one webhook, whatever its events.';
    }
    return `Unknown event "${issue.input}"; the events are ${EVENT_TYPES.join(', ')}.`;
  },
});

/** The names a webhook may subscribe to: the very list its create and update validate against (doors offer these). */
export const SUBSCRIBABLE_EVENTS: readonly EventType[] = eventName.options;

/** A set of names: a name given twice is subscribed once, in the order first given. */
const events = z
  .array(eventName, { error: 'events must be an array of event names; an empty array subscribes to every event.' })
  .max(100, 'At most 100 entries; there are only eleven event names.')
  .transform((names): EventType[] => [...new Set(names)])
  .describe(
    `Event names to deliver; an empty array means every event, current and future. Names: ${EVENT_TYPES.join(', ')}.`,
  );

const url = z
  .string({ error: 'Give the delivery URL as a string, such as https://example.com/webhooks.' })
  .trim()
  .max(MAX_URL_LENGTH, `The URL is longer than ${MAX_URL_LENGTH} characters.`)
  .pipe(
    z.url({
      protocol: /^https?$/,
      error: 'The URL must be an absolute http(s) URL, such as https://example.com/webhooks.',
    }),
  )
  .describe('Where deliveries are POSTed: an absolute http(s) URL on a public address.');

const webhookId = z.string().min(1).describe('The webhook id (whk_…).');

export const WebhookIdInput = z.object({ id: webhookId });

/** GET /webhooks is not paginated; a limit or cursor sent anyway is ignored (stripped). */
export const ListWebhooksInput = z.object({});

export const CreateWebhookInput = z.object({
  url,
  events: events.default([]),
});

export const UpdateWebhookInput = z.object({
  id: webhookId,
  url: url.optional(),
  events: events.optional(),
  is_enabled: z
    .boolean({ error: 'is_enabled must be true or false.' })
    .optional()
    .describe('false stops deliveries (new events still queue); true resumes them and clears auto_disabled_at.'),
});

export const ListWebhookDeliveriesInput = z.object({
  id: webhookId,
  status: z
    .enum(DELIVERY_STATUSES, {
      error: `status is one of ${DELIVERY_STATUSES.join(', ')}.`,
    })
    .optional()
    .describe('Only attempts with this outcome: delivered, failed (given up) or pending_retry (failed, retry due).'),
  ...paginationInput,
});

/** The longest range one resend-failed call covers: the delivery log keeps 30 days by default. */
export const MAX_RESEND_SPAN_DAYS = 31;

export const ResendDeliveryInput = z.object({
  id: webhookId,
  delivery_id: z.string().min(1).max(64).describe('The delivery attempt to resend (whd_…), from the delivery log.'),
});

export const ResendFailedInput = z
  .object({
    id: webhookId,
    since: dateTimeInput.describe('Start of the range (inclusive): failed attempts made at or after it.'),
    until: dateTimeInput.optional().describe('End of the range (exclusive); now when omitted.'),
  })
  .superRefine((input, ctx) => {
    if (input.until !== undefined && input.since.getTime() >= input.until.getTime()) {
      ctx.addIssue({ code: 'custom', path: ['until'], message: 'until must be later than since.' });
    }
  });

/** What both resend endpoints answer: the events queued again for this webhook, each under its own event id. */
export const WebhookResendResult = z
  .object({
    object: z.literal('webhook_resend'),
    webhook_id: z.string(),
    queued: z.int().min(0).describe('How many deliveries were queued.'),
    events: z
      .array(z.object({ event_id: z.string(), event_type: z.string() }))
      .describe('The events queued again, oldest failure first; each is delivered with its original event id.'),
    has_more: z
      .boolean()
      .describe('resend-failed only: more failed events are in the range than one call queues; call again.'),
  })
  .meta({ id: 'WebhookResendResult' });

/** The webhook resource as the API shows it. */
export const WebhookResource = z
  .object({
    id: z.string().regex(/^whk_/),
    object: z.literal('webhook'),
    url: z.string(),
    events: z.array(z.string()).describe('Subscribed event names; empty means every event.'),
    is_enabled: z.boolean(),
    auto_disabled_at: dateTimeOutput.nullable(),
    created_at: dateTimeOutput,
    signing_secret: z
      .string()
      .regex(/^whsec_/)
      .nullable()
      .describe('Null on every read; the secret itself only in the create and rotate answers.'),
  })
  .meta({ id: 'Webhook' });

/** The create and rotate answers: the one moment the signing secret is shown. */
export const WebhookWithSecret = WebhookResource.extend({
  signing_secret: z
    .string()
    .regex(/^whsec_/)
    .describe('The new signing secret, shown this once; store it.'),
}).meta({ id: 'WebhookWithSecret' });

/** One attempt of the delivery log: every attempt, retries and test deliveries included, is a row with its own id. */
export const WebhookDeliveryResource = z
  .object({
    id: z.string().regex(/^whd_/),
    object: z.literal('webhook_delivery'),
    event_id: z.string().regex(/^evt_/),
    event_type: z.string(),
    attempt: z.int().min(1),
    status: z.enum(DELIVERY_STATUSES),
    status_code: z.int().min(0).describe("The endpoint's HTTP status; 0 when no HTTP response came."),
    response_body: z
      .string()
      .nullable()
      .describe('The first 8,192 bytes, kept on failed attempts; null on delivered ones.'),
    duration_ms: z.int().min(0),
    delivered_at: dateTimeOutput.describe('When the attempt was made.'),
  })
  .meta({ id: 'WebhookDelivery' });

/** What POST /webhooks/{id}/test answers. */
export const WebhookTestResult = z
  .object({
    delivered: z.boolean(),
    status_code: z.int().min(0).describe('0 when no HTTP response came.'),
    duration_ms: z.int().min(0),
  })
  .meta({ id: 'WebhookTestResult' });
