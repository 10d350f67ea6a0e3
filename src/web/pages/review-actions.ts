import { Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import {
  approveContent,
  moveContent,
  publishContentNow,
  rejectContent,
  reviewContentMany,
  scheduleContent,
} from '../../core/content/intents.ts';
import { ServiceError } from '../../core/errors.ts';
import { fromLocal, parseLocalInput } from '../../core/time-zones.ts';
import { backOf, withDone } from '../links.ts';
import type { PageKit } from './kit.ts';

/**
 * What a reviewer's forms do, each one content intent called as it is (core/content/intents.ts):
 * approve (then schedule, publish now or nothing more), reject, schedule, publish now, move to
 * another day, and review many at once. The intents judge everything through the content policy;
 * a form only reads its fields.
 */
export function reviewActions(_runtime: Runtime, kit: PageKit): Router {
  const router = Router();
  const { act, run } = kit;
  const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);
  router.post(
    '/content/:id/approve',
    act(async (who, req) => {
      const done = await run<{ status: string; publish_queued: boolean }>(who, approveContent, {
        id: req.params.id,
        then: text(req.body.then) ?? undefined,
      });
      const shown = done.status === 'scheduled' ? 'scheduled' : done.publish_queued ? 'queued' : 'approved';
      return withDone(backOf(req.body, '/app/inbox'), shown);
    }),
  );
  router.post(
    '/content/:id/reject',
    act(async (who, req) => {
      await run(who, rejectContent, { id: req.params.id, reason: text(req.body.reason) });
      return withDone(backOf(req.body, '/app/inbox'), 'rejected');
    }),
  );
  router.post(
    '/bulk',
    act(async (who, req) => {
      const raw = req.body.ids;
      const ids = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter(
        (id: unknown) => typeof id === 'string',
      );
      const decision = req.body.action === 'reject' ? 'reject' : req.body.action === 'approve' ? 'approve' : null;
      if (!decision) throw new ServiceError('invalid_body', 'Choose Approve selected or Reject selected.');
      const { data } = await run<{ data: Array<{ ok: boolean; error?: { code: string; message: string } }> }>(
        who,
        reviewContentMany,
        { ids, decision, reason: text(req.body.reason) },
      );
      const done = data.filter((outcome) => outcome.ok).length;
      const refused = data.find((outcome) => !outcome.ok);
      // Nothing done: the first refusal is the page's answer. Some done: the notice says how many.
      if (done === 0 && refused?.error) throw new ServiceError(refused.error.code as never, refused.error.message);
      return withDone(backOf(req.body, '/app/inbox'), `${decision === 'approve' ? 'approved' : 'rejected'}-${done}`);
    }),
  );
  router.post(
    '/content/:id/schedule',
    act(async (who, req) => {
      const given = text(req.body.scheduled_for);
      const local = given === null ? null : parseLocalInput(given);
      if (given !== null && !local) {
        throw new ServiceError('invalid_body', 'Give the date and time as shown, such as 2026-12-17T09:30.');
      }
      await run(who, scheduleContent, {
        id: req.params.id,
        ...(local ? { scheduled_for: fromLocal(local, who.workspace.timezone).toISOString() } : {}),
      });
      return withDone(backOf(req.body, `/app/content/${req.params.id}`), 'scheduled');
    }),
  );
  router.post(
    '/content/:id/publish-now',
    act(async (who, req) => {
      await run(who, publishContentNow, { id: req.params.id });
      return withDone(backOf(req.body, `/app/content/${req.params.id}`), 'queued');
    }),
  );
  router.post(
    '/content/:id/move',
    act(async (who, req) => {
      await run(who, moveContent, { id: req.params.id, day: String(req.body.day ?? '') });
      return withDone(backOf(req.body, '/app/calendar'), 'rescheduled');
    }),
  );
  return router;
}
