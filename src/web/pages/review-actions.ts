import { Router } from 'express';
import type { Runtime } from '../../core/context.ts';
import { updateContent } from '../../core/content/operations.ts';
import { reviewContent } from '../../core/content/review.ts';
import type { ContentRow } from '../../core/content/serialize.ts';
import { ServiceError } from '../../core/errors.ts';
import { fromLocal, moveToDay, parseLocalInput } from '../../core/time-zones.ts';
import { backOf, withDone } from '../links.ts';
import type { PageKit } from './kit.ts';

/** What a reviewer's forms do: approve, reject, review many at once, reschedule, and move to another day. */
export function reviewActions(_runtime: Runtime, kit: PageKit): Router {
  const router = Router();
  const { act, run } = kit;
  router.post(
    '/content/:id/approve',
    act(async (who, req) => {
      await run(who, updateContent, { id: req.params.id, status: 'approved' });
      return withDone(backOf(req.body, '/app/inbox'), 'approved');
    }),
  );
  router.post(
    '/content/:id/reject',
    act(async (who, req) => {
      const reason = typeof req.body.reason === 'string' && req.body.reason.trim() !== '' ? req.body.reason : null;
      await run(who, updateContent, { id: req.params.id, status: 'rejected', review_note: reason });
      return withDone(backOf(req.body, '/app/inbox'), 'rejected');
    }),
  );
  router.post(
    '/bulk',
    act(async (who, req) => {
      const raw = req.body.ids;
      const ids: string[] = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw])
        .filter((id: unknown) => typeof id === 'string')
        .slice(0, 100);
      const action = req.body.action === 'reject' ? 'rejected' : req.body.action === 'approve' ? 'approved' : null;
      if (!action) throw new ServiceError('invalid_body', 'Choose Approve selected or Reject selected.');
      if (ids.length === 0) throw new ServiceError('invalid_body', 'Select at least one item first.');
      const reason = typeof req.body.reason === 'string' && req.body.reason.trim() !== '' ? req.body.reason : null;
      for (const id of ids) {
        await run(who, updateContent, {
          id,
          status: action,
          ...(action === 'rejected' ? { review_note: reason } : {}),
        });
      }
      return withDone(backOf(req.body, '/app/inbox'), `${action}-${ids.length}`);
    }),
  );
  router.post(
    '/content/:id/reschedule',
    act(async (who, req) => {
      const local = parseLocalInput(String(req.body.scheduled_for ?? ''));
      if (!local) throw new ServiceError('invalid_body', 'Give the date and time as shown, such as 2026-12-17T09:30.');
      const at = fromLocal(local, who.workspace.timezone);
      const { row } = await run<{ row: ContentRow }>(who, reviewContent, { id: req.params.id });
      const status = row.status === 'approved' || row.status === 'scheduled' ? { status: 'scheduled' } : {};
      await run(who, updateContent, { id: row.id, scheduled_for: at.toISOString(), ...status });
      return withDone(`/app/content/${row.id}`, 'rescheduled');
    }),
  );
  router.post(
    '/content/:id/move',
    act(async (who, req) => {
      // A day of the calendar (2026-02-31 is none), read as the time input reads its date.
      const text = String(req.body.day ?? '');
      const day = /^\d{4}-\d{2}-\d{2}$/.test(text) ? parseLocalInput(`${text}T00:00`) : null;
      if (!day) throw new ServiceError('invalid_body', 'Give the day as YYYY-MM-DD, a day of the calendar.');
      const { row } = await run<{ row: ContentRow }>(who, reviewContent, { id: req.params.id });
      if (row.status !== 'scheduled' || !row.scheduledFor) {
        throw new ServiceError(
          'invalid_state',
          'Only scheduled items can be moved; published items stay where they went out.',
        );
      }
      const at = moveToDay(row.scheduledFor, day, who.workspace.timezone);
      await run(who, updateContent, { id: row.id, scheduled_for: at.toISOString() });
      return withDone(backOf(req.body, '/app/calendar'), 'rescheduled');
    }),
  );
  return router;
}
