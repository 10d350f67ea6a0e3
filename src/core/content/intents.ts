import { z } from 'zod';
import { savepoint } from '../../../db/client.ts';
import type { ServiceContext } from '../context.ts';
import { assertNotPast, scheduleTimeInput } from '../dates.ts';
import { fieldError, ServiceError } from '../errors.ts';
import { defineOperation } from '../operation.ts';
import { moveToDay, parseLocalInput } from '../time-zones.ts';
import { getContentInWorkspace, publishContent, updateContent } from './operations.ts';
import { assertContentAction, subjectOf, upcoming, type ContentAction } from './policy.ts';
import { ContentResource } from './schemas.ts';
import type { ContentResource as ContentAnswer } from './serialize.ts';

/**
 * What people and assistants mean, as operations: approve (and then schedule at the item's time,
 * publish now, or nothing more), reject with a reason, schedule, publish now, move to another day,
 * and review many at once. Each judges the action through the policy (policy.ts), then writes
 * through the contract's own operations (update, publish), so the same events and history follow.
 * The contract's semantics stay as they are: `PATCH status=approved` still does not queue.
 */

const id = z.string().min(1).describe('The content item id.');

const THEN_ACTIONS = {
  schedule: 'approve_and_schedule',
  publish_now: 'approve_and_publish_now',
  none: 'approve_only',
} as const satisfies Record<string, ContentAction>;

/** What the intents refuse themselves: the policy's codes (its reasons say which rule). */
const INTENT_ERRORS = {
  forbidden: "the person's role does not allow it, or the workspace requires the approver to differ from the author",
  invalid_state: 'the item is not in a state the action applies to',
  no_target_platforms: 'the item has no target_platforms',
  quota_exceeded: "the plan's posts for this month are used up",
} as const;

/** The item, judged for `action`: refused with the policy's code and reason, else returned for the write. */
async function judged(ctx: ServiceContext, itemId: string, action: ContentAction) {
  const row = await getContentInWorkspace(ctx.db, ctx.workspace.id, itemId);
  assertContentAction(subjectOf(ctx), row, action);
  return row;
}

async function approve(ctx: ServiceContext, itemId: string, then: keyof typeof THEN_ACTIONS): Promise<ContentAnswer> {
  const row = await judged(ctx, itemId, THEN_ACTIONS[then]);
  if (then === 'schedule') return publishContent.run(ctx, { id: row.id, scheduled_for: row.scheduledFor! });
  if (then === 'publish_now') return publishContent.run(ctx, { id: row.id });
  return updateContent.run(ctx, { id: row.id, status: 'approved' });
}

/** Approving without saying what next: at its time when it has one still to come, else approving only. */
async function asPlanned(ctx: ServiceContext, itemId: string): Promise<'schedule' | 'none'> {
  const row = await getContentInWorkspace(ctx.db, ctx.workspace.id, itemId);
  return upcoming(row.scheduledFor, ctx.clock.now()) ? 'schedule' : 'none';
}

async function reject(ctx: ServiceContext, itemId: string, reason: string | null | undefined): Promise<ContentAnswer> {
  const row = await judged(ctx, itemId, 'reject');
  return updateContent.run(ctx, { id: row.id, status: 'rejected', review_note: reason ?? null });
}

export const approveContent = defineOperation({
  name: 'approveContent',
  buckets: ['write', 'publish'],
  scope: 'write',
  input: z.object({
    id,
    then: z
      .enum(['schedule', 'publish_now', 'none'])
      .optional()
      .describe(
        'schedule: queue it at its scheduled_for; publish_now: queue it for the next publishing run; none: approve only (it waits for a publish). Omitted: schedule when it has a time still to come, none otherwise.',
      ),
  }),
  output: ContentResource,
  errors: INTENT_ERRORS,
  run: async (ctx, input) => approve(ctx, input.id, input.then ?? (await asPlanned(ctx, input.id))),
});

const reason = z.string().trim().min(1).max(1000).nullable().optional().describe('Why, for the author.');

export const rejectContent = defineOperation({
  name: 'rejectContent',
  buckets: ['write'],
  scope: 'write',
  input: z.object({ id, reason }),
  output: ContentResource,
  errors: INTENT_ERRORS,
  run: async (ctx, input) => reject(ctx, input.id, input.reason),
});

/** Queues an approved item that is not queued, at its own time or a new one. */
export const scheduleContent = defineOperation({
  name: 'scheduleContent',
  buckets: ['write', 'publish'],
  scope: 'write',
  input: z.object({
    id,
    scheduled_for: scheduleTimeInput.optional().describe('A new time to publish at; omitted, the item keeps its own.'),
  }),
  output: ContentResource,
  errors: INTENT_ERRORS,
  async run(ctx, input) {
    const row = await judged(ctx, input.id, 'schedule');
    const at = input.scheduled_for ?? row.scheduledFor;
    if (!at) throw fieldError('scheduled_for', 'The item has no time yet: give the time to publish at.');
    assertNotPast('scheduled_for', at, ctx.clock.now());
    return publishContent.run(ctx, { id: row.id, scheduled_for: at });
  },
});

/** Queues an approved item that is not queued for the next publishing run, as `POST /content/:id/publish` does. */
export const publishContentNow = defineOperation({
  name: 'publishContentNow',
  buckets: ['write', 'publish'],
  scope: 'write',
  input: z.object({ id }),
  output: ContentResource,
  errors: INTENT_ERRORS,
  async run(ctx, input) {
    const row = await judged(ctx, input.id, 'publish_now');
    return publishContent.run(ctx, { id: row.id });
  },
});

/** `YYYY-MM-DD`, a day of the calendar (2026-02-31 is none). */
const calendarDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Give the day as YYYY-MM-DD.')
  .refine((text) => parseLocalInput(`${text}T00:00`) !== null, 'Give a day of the calendar.')
  .transform((text) => parseLocalInput(`${text}T00:00`)!);

/** Moves a scheduled item to another day in the workspace's time zone, keeping its time of day. */
export const moveContent = defineOperation({
  name: 'moveContent',
  buckets: ['write'],
  scope: 'write',
  input: z.object({ id, day: calendarDay.describe('The new day, YYYY-MM-DD, in the workspace time zone.') }),
  output: ContentResource,
  errors: INTENT_ERRORS,
  async run(ctx, input) {
    const row = await judged(ctx, input.id, 'move');
    const at = moveToDay(row.scheduledFor!, input.day, ctx.workspace.timezone);
    return updateContent.run(ctx, { id: row.id, scheduled_for: at });
  },
});

/** The most items one review-many call takes. */
export const MAX_REVIEW_ITEMS = 100;

const ReviewOutcome = z.union([
  z.object({ id: z.string(), ok: z.literal(true), content: ContentResource }),
  z.object({
    id: z.string(),
    ok: z.literal(false),
    error: z.object({ code: z.string(), message: z.string() }),
  }),
]);
type ReviewOutcome =
  | { id: string; ok: true; content: ContentAnswer }
  | { id: string; ok: false; error: { code: string; message: string } };

/**
 * Approves or rejects several items at once, each on its own: one refusal does not undo the others,
 * and each item's outcome is answered. Approving many schedules each item at its time when it has one
 * still to come, and approves only the others (they then read "Approved, not scheduled").
 */
export const reviewContentMany = defineOperation({
  name: 'reviewContentMany',
  buckets: ['write', 'publish'],
  scope: 'write',
  input: z.object({
    ids: z
      .array(z.string().min(1))
      .min(1, 'Select at least one item.')
      .max(MAX_REVIEW_ITEMS, `Review at most ${MAX_REVIEW_ITEMS} items at once.`),
    decision: z.enum(['approve', 'reject']),
    reason,
  }),
  output: z.object({ object: z.literal('review_outcomes'), data: z.array(ReviewOutcome) }),
  errors: INTENT_ERRORS,
  async run(ctx, input) {
    const data: ReviewOutcome[] = [];
    for (const itemId of new Set(input.ids)) {
      try {
        const content = await savepoint(ctx.db, async () =>
          input.decision === 'reject'
            ? await reject(ctx, itemId, input.reason)
            : await approve(ctx, itemId, await asPlanned(ctx, itemId)),
        );
        data.push({ id: itemId, ok: true as const, content });
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        data.push({ id: itemId, ok: false as const, error: { code: error.code, message: error.message } });
      }
    }
    return { object: 'review_outcomes' as const, data };
  },
});

/** Every content intent, by name: what the doors offer. */
export const CONTENT_INTENTS = {
  approveContent,
  rejectContent,
  scheduleContent,
  publishContentNow,
  moveContent,
  reviewContentMany,
} as const;
