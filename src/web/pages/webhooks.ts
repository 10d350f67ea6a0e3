import { Router, type Request } from 'express';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../../db/schema/index.ts';
import type { Runtime } from '../../core/context.ts';
import { ServiceError } from '../../core/errors.ts';
import type { ListEnvelope } from '../../core/pagination.ts';
import type { SignedIn } from '../../core/people/sessions.ts';
import { allows, type Verdict } from '../../core/policy.ts';
import { fromLocal, parseLocalInput, toLocalInput } from '../../core/time-zones.ts';
import type { toDeliveryResource } from '../../core/webhooks/delivery-log.ts';
import { AUTO_DISABLE_FAILURES } from '../../core/webhooks/delivery/policy.ts';
import {
  createWebhook,
  listWebhookDeliveries,
  reenableWebhook,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
  type TestDeliveryResult,
} from '../../core/webhooks/operations.ts';
import { listWebhookDeliveriesWithActions, listWebhooksWithActions } from '../../core/webhooks/views.ts';
import { resendDelivery, resendFailedDeliveries } from '../../core/webhooks/resend.ts';
import { SUBSCRIBABLE_EVENTS } from '../../core/webhooks/schemas.ts';
import type { WebhookResource } from '../../core/webhooks/serialize.ts';
import { adminOf, field, flash, foundOr404, takeFlash, type PageKit } from './kit.ts';

type Delivery = ReturnType<typeof toDeliveryResource>;
type Acted<T> = T & { allowed_actions: Verdict[] };

/** What the pages show of a response body: its first kilobyte. */
const BODY_SHOWN_BYTES = 1024;
const firstKilobyte = (body: string | null): string | null => {
  if (body === null) return null;
  const bytes = Buffer.from(body, 'utf8');
  return bytes.length <= BODY_SHOWN_BYTES ? body : `${bytes.subarray(0, BODY_SHOWN_BYTES).toString('utf8')}…`;
};

const OUTCOME_LABELS: Record<DeliveryStatus, string> = {
  delivered: 'Delivered',
  failed: 'Failed (gave up)',
  pending_retry: 'Failed (will retry)',
};

const NOTICES: Record<string, string> = {
  events: 'Events saved.',
  enabled: 'Webhook enabled: queued deliveries are being sent, oldest first.',
  disabled: 'Webhook disabled: events keep queueing until it is enabled.',
  resent: 'Queued again: it will be delivered in a moment.',
};

/** /app/webhooks and each webhook's delivery log (/app/webhooks/{id}). */
export function webhookPages(runtime: Runtime, kit: PageKit): Router {
  const router = Router();

  /** Why an auto-disabled webhook stopped, from its latest attempt. */
  const disabledReason = async (who: SignedIn, hook: WebhookResource) => {
    if (!hook.auto_disabled_at) return null;
    const recent = await kit.run<ListEnvelope<Delivery>>(who, listWebhookDeliveries, { id: hook.id, limit: 10 });
    const last = recent.data.find((d) => d.event_type !== 'webhook.test' && d.status !== 'delivered');
    const answer = last ? (last.status_code === 0 ? 'no answer came' : `it answered ${last.status_code}`) : null;
    return `${AUTO_DISABLE_FAILURES} deliveries failed within an hour${answer ? `; the last time ${answer}` : ''}.`;
  };
  // Each button shows exactly when the webhook policy allows its action.
  const hookView = async (who: SignedIn, hook: Acted<WebhookResource>) => ({
    id: hook.id,
    url: hook.url,
    events: hook.events,
    enabled: hook.is_enabled,
    created: kit.fmt(who, new Date(hook.created_at)),
    autoDisabled: hook.auto_disabled_at ? kit.fmt(who, new Date(hook.auto_disabled_at)) : null,
    reason: await disabledReason(who, hook),
    canEnable: allows(hook.allowed_actions, 'enable'),
    canDisable: allows(hook.allowed_actions, 'disable'),
    canReenable: allows(hook.allowed_actions, 'reenable'),
    canResendFailed: allows(hook.allowed_actions, 'resend_failed'),
  });
  const eventsOf = (req: Request) =>
    [req.body?.events ?? []].flat().filter((name: unknown): name is string => typeof name === 'string');

  router.get('/webhooks', async (req, res) => {
    const who = await adminOf(kit, req, res, 'Webhooks');
    if (!who) return;
    const hooks = (await kit.run<ListEnvelope<Acted<WebhookResource>>>(who, listWebhooksWithActions, {})).data;
    const fresh = takeFlash(runtime, req, res, who, 'webhook-secret');
    const secret = fresh ? (JSON.parse(fresh) as { url: string; value: string }) : null;
    const test = typeof req.query.test === 'string' ? req.query.test : null;
    await kit.page(
      res,
      'Webhooks',
      'pages/webhooks',
      {
        secret,
        // The list createWebhook and updateWebhook validate against, so the page offers every name REST takes.
        eventTypes: SUBSCRIBABLE_EVENTS,
        hooks: await Promise.all(hooks.map((hook) => hookView(who, hook))),
        notice: secret
          ? 'Webhook ready. Copy its signing secret now.'
          : test
            ? test === '0'
              ? 'Test sent: no answer came.'
              : `Test sent: the endpoint answered ${test}.`
            : NOTICES[String(req.query.done)],
      },
      'webhooks',
    );
  });

  router.post('/webhooks', (req, res, next) =>
    kit.act(async (who) => {
      const made = await kit.run<WebhookResource>(who, createWebhook, {
        url: field(req.body, 'url'),
        events: eventsOf(req),
      });
      flash(runtime, res, who, 'webhook-secret', JSON.stringify({ url: made.url, value: made.signing_secret }));
      return '/app/webhooks';
    })(req, res, next),
  );
  router.post('/webhooks/:id/rotate', (req, res, next) =>
    kit.act(async (who) => {
      const made = await kit.run<WebhookResource>(who, rotateWebhookSecret, { id: req.params.id });
      flash(runtime, res, who, 'webhook-secret', JSON.stringify({ url: made.url, value: made.signing_secret }));
      return '/app/webhooks';
    })(req, res, next),
  );
  router.post(
    '/webhooks/:id/events',
    kit.act(async (who, req) => {
      await kit.run(who, updateWebhook, { id: req.params.id, events: eventsOf(req) });
      return '/app/webhooks?done=events';
    }),
  );
  const backTo = (req: Request, id: string) =>
    field(req.body, 'back') === `/app/webhooks/${id}` ? `/app/webhooks/${id}` : '/app/webhooks';
  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    router.post(
      `/webhooks/:id/${action}`,
      kit.act(async (who, req) => {
        const id = req.params.id as string;
        await kit.run(who, updateWebhook, { id, is_enabled: enabled });
        return `${backTo(req, id)}?done=${action}d`;
      }),
    );
  }
  router.post(
    '/webhooks/:id/reenable',
    kit.act(async (who, req) => {
      const id = req.params.id as string;
      await kit.run(who, reenableWebhook, { id });
      return `${backTo(req, id)}?done=enabled`;
    }),
  );
  router.post(
    '/webhooks/:id/test',
    kit.act(async (who, req) => {
      const result = await kit.run<TestDeliveryResult>(who, testWebhook, { id: req.params.id });
      return `/app/webhooks?test=${result.status_code}`;
    }),
  );

  router.get('/webhooks/:id', async (req, res) => {
    const who = await adminOf(kit, req, res, 'Webhooks');
    if (!who) return;
    const status = DELIVERY_STATUSES.find((s) => s === req.query.status);
    const cursor = typeof req.query.cursor === 'string' ? req.query.cursor : undefined;
    const log = await foundOr404(
      kit,
      res,
      () =>
        kit.run<ListEnvelope<Acted<Delivery>> & { webhook: Acted<WebhookResource> }>(
          who,
          listWebhookDeliveriesWithActions,
          { id: req.params.id, status, cursor, limit: 50 },
        ),
      {
        message: 'There is no such webhook in this workspace.',
        back: { href: '/app/webhooks', text: 'Back to webhooks' },
      },
    );
    if (!log) return;
    const hook = log.webhook;
    const view = await hookView(who, hook);
    const tz = who.workspace.timezone;
    const dayAgo = new Date(runtime.clock.now().getTime() - 86_400_000);
    const query = (extra: Record<string, string>) =>
      new URLSearchParams({ ...(status && { status }), ...extra }).toString();
    await kit.page(
      res,
      `Delivery log: ${hook.url}`,
      'pages/deliveries',
      {
        hook: view,
        reason: view.reason,
        status,
        timezone: tz,
        sinceDefault: toLocalInput(dayAgo, tz),
        outcomes: DELIVERY_STATUSES.map((id) => ({ id, label: OUTCOME_LABELS[id] })),
        rows: log.data.map((d) => ({
          id: d.id,
          iso: d.delivered_at,
          when: kit.fmt(who, new Date(d.delivered_at)),
          eventType: d.event_type,
          eventId: d.event_id,
          attempt: d.attempt,
          outcome: OUTCOME_LABELS[d.status],
          statusCode: d.status_code,
          duration: d.duration_ms,
          body: firstKilobyte(d.response_body),
          resendable: allows(d.allowed_actions, 'resend'),
        })),
        next: log.next_cursor ? `/app/webhooks/${hook.id}?${query({ cursor: log.next_cursor })}` : null,
        notice:
          typeof req.query.queued === 'string'
            ? `Queued ${req.query.queued} failed event${req.query.queued === '1' ? '' : 's'} again.`
            : NOTICES[String(req.query.done)],
      },
      'webhooks',
    );
  });

  router.post(
    '/webhooks/:id/deliveries/:deliveryId/resend',
    kit.act(async (who, req) => {
      await kit.run(who, resendDelivery, { id: req.params.id, delivery_id: req.params.deliveryId });
      return `/app/webhooks/${req.params.id as string}?done=resent`;
    }),
  );
  router.post(
    '/webhooks/:id/resend-failed',
    kit.act(async (who, req) => {
      const tz = who.workspace.timezone;
      const at = (name: string, required: boolean) => {
        const text = field(req.body, name);
        if (text === '' && !required) return undefined;
        const local = parseLocalInput(text);
        if (!local)
          throw new ServiceError('invalid_body', `Give “${name}” as a date and time, such as 2026-12-17T09:30.`);
        return fromLocal(local, tz).toISOString();
      };
      const since = at('since', true);
      const until = at('until', false);
      const result = await kit.run<{ queued: number }>(who, resendFailedDeliveries, {
        id: req.params.id,
        since,
        ...(until && { until }),
      });
      return `/app/webhooks/${req.params.id as string}?queued=${result.queued}`;
    }),
  );
  return router;
}
