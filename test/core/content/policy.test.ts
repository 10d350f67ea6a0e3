import { beforeEach, describe, expect, it } from 'vitest';
import type { Workspace } from '../../../src/core/accounts/workspace.ts';
import {
  approveContent,
  MAX_REVIEW_ITEMS,
  moveContent,
  rejectContent,
  reviewContentMany,
} from '../../../src/core/content/intents.ts';
import { getContent } from '../../../src/core/content/operations.ts';
import {
  type ContentAction,
  contentPolicy,
  judgeContentAction,
  type PolicyRow,
  type PolicySubject,
} from '../../../src/core/content/policy.ts';
import { actionLabel, statusWord } from '../../../src/core/content/words.ts';
import { contextFor } from '../../../src/core/context.ts';
import { runOperation } from '../../../src/core/operation.ts';
import { personPrincipal, SERVICE_PRINCIPAL, type Principal } from '../../../src/core/people/principal.ts';
import { localParts } from '../../../src/core/time-zones.ts';
import { makeContent, makeWorkspace, type TestWorkspace } from '../../helpers/factories.ts';
import { testRuntime, type TestRuntime } from '../../helpers/runtime.ts';
import { sql } from 'drizzle-orm';

const NOW = new Date('2026-12-02T10:00:00.000Z');
const FRIDAY_15_PARIS = new Date('2026-12-04T14:00:00.000Z');
const author = personPrincipal({ id: 'user-author', email: 'author@example.com' }, 'approver');
const colleague = personPrincipal({ id: 'user-other', email: 'other@example.com' }, 'approver');

const pending: PolicyRow = {
  status: 'pending_review',
  publishQueued: false,
  scheduledFor: FRIDAY_15_PARIS,
  targetPlatforms: ['twitter'],
  createdByType: 'user',
  createdById: author.id,
};

/** The workspace fields the content policy does not read, filled in as a real workspace has them. */
const WORKSPACE: Workspace = {
  id: 'ws_policy',
  orgId: 'org_policy',
  name: 'Policy test',
  plan: 'pro',
  planStatus: 'active',
  timezone: 'UTC',
  approverMustDiffer: false,
  defaultLanguage: null,
  createdAt: NOW,
} as Workspace;

const subject = (
  overrides: Partial<PolicySubject> & { differ?: boolean; planStatus?: string } = {},
): PolicySubject => ({
  principal: overrides.principal ?? colleague,
  scopes: overrides.scopes ?? ['read', 'write', 'publish'],
  workspace: {
    ...WORKSPACE,
    approverMustDiffer: overrides.differ ?? false,
    planStatus: (overrides.planStatus ?? 'active') as Workspace['planStatus'],
  },
  now: NOW,
});

const verdict = (s: PolicySubject, row: PolicyRow, action: ContentAction) => judgeContentAction(s, row, action);

describe('the content policy: one verdict per action, with a code and a reason when refused', () => {
  it('offers a pending item with a time only "approve and schedule" (and reject)', () => {
    const allowed = contentPolicy(subject(), pending)
      .filter((v) => v.allowed)
      .map((v) => v.action);
    expect(allowed).toEqual(['approve_and_schedule', 'reject']);
  });

  it('offers a pending item without a time "approve and publish now" and "approve only"', () => {
    const allowed = contentPolicy(subject(), { ...pending, scheduledFor: null })
      .filter((v) => v.allowed)
      .map((v) => v.action);
    expect(allowed).toEqual(['approve_and_publish_now', 'approve_only', 'reject']);
  });

  it('offers an approved item that is not queued "schedule" and "publish now"; a scheduled one a new time or day', () => {
    const approved = { ...pending, status: 'approved' as const };
    expect(
      contentPolicy(subject(), approved)
        .filter((v) => v.allowed)
        .map((v) => v.action),
    ).toEqual(['schedule', 'publish_now']);
    const scheduled = { ...pending, status: 'scheduled' as const, publishQueued: true };
    expect(
      contentPolicy(subject(), scheduled)
        .filter((v) => v.allowed)
        .map((v) => v.action),
    ).toEqual(['schedule', 'move']);
  });

  it('refuses with forbidden: a viewer, an editor approving, and the author under approver_must_differ', () => {
    const viewer = personPrincipal({ id: 'v', email: 'v@example.com' }, 'viewer');
    const editor = personPrincipal({ id: 'e', email: 'e@example.com' }, 'editor');
    expect(verdict(subject({ principal: viewer }), pending, 'reject')).toMatchObject({
      allowed: false,
      code: 'forbidden',
    });
    expect(verdict(subject({ principal: editor }), pending, 'approve_and_schedule')).toMatchObject({
      allowed: false,
      code: 'forbidden',
      reason: expect.stringMatching(/approver/),
    });
    const own = verdict(subject({ principal: author, differ: true }), pending, 'approve_and_schedule');
    expect(own).toMatchObject({
      allowed: false,
      code: 'forbidden',
      reason: expect.stringMatching(/differ from the author/),
    });
    // The rule is about approving: the author may still reject, and anyone else may approve.
    expect(verdict(subject({ principal: author, differ: true }), pending, 'reject').allowed).toBe(true);
    expect(verdict(subject({ differ: true }), pending, 'approve_and_schedule').allowed).toBe(true);
    // Keys, clients and the service are not people: the rule does not apply to them.
    const key: Principal = { ...SERVICE_PRINCIPAL, type: 'api_key', id: 'key-1', label: 'API key' };
    expect(verdict(subject({ principal: key, differ: true }), pending, 'approve_and_schedule').allowed).toBe(true);
  });

  it('refuses with insufficient_scope an action the token does not cover', () => {
    expect(verdict(subject({ scopes: ['read'] }), pending, 'reject')).toMatchObject({
      allowed: false,
      code: 'insufficient_scope',
    });
    // Queueing a post needs publish; approving only needs write.
    expect(verdict(subject({ scopes: ['read', 'write'] }), pending, 'approve_and_schedule')).toMatchObject({
      code: 'insufficient_scope',
    });
    expect(
      verdict(subject({ scopes: ['read', 'write'] }), { ...pending, scheduledFor: null }, 'approve_only').allowed,
    ).toBe(true);
  });

  it('refuses with payment_required every action of a workspace whose subscription is inactive', () => {
    for (const v of contentPolicy(subject({ planStatus: 'past_due' }), pending)) {
      expect(v).toMatchObject({ allowed: false, code: 'payment_required' });
    }
  });

  it('refuses with invalid_state what the item state does not allow, saying why', () => {
    expect(verdict(subject(), { ...pending, status: 'approved' }, 'move')).toMatchObject({
      code: 'invalid_state',
      reason: 'Only scheduled items can be moved; this one is approved.',
    });
    expect(verdict(subject(), { ...pending, status: 'archived' }, 'reject')).toMatchObject({ code: 'invalid_state' });
    expect(verdict(subject(), { ...pending, status: 'publishing' }, 'publish_now')).toMatchObject({
      code: 'invalid_state',
    });
    expect(verdict(subject(), { ...pending, scheduledFor: null }, 'approve_and_schedule')).toMatchObject({
      code: 'invalid_state',
      reason: expect.stringMatching(/no time/),
    });
    expect(verdict(subject(), { ...pending, status: 'scheduled', publishQueued: true }, 'publish_now')).toMatchObject({
      code: 'invalid_state',
      reason: 'It is already queued for publishing.',
    });
  });

  it('refuses with no_target_platforms an action that queues an item without platforms', () => {
    expect(verdict(subject(), { ...pending, targetPlatforms: [] }, 'approve_and_schedule')).toMatchObject({
      code: 'no_target_platforms',
    });
    expect(verdict(subject(), { ...pending, targetPlatforms: [], scheduledFor: null }, 'approve_only').allowed).toBe(
      true,
    );
  });
});

describe('the words people read', () => {
  it('names the time in the workspace zone, and an approved item that is not queued as such', () => {
    expect(actionLabel('approve_and_schedule', { scheduledFor: FRIDAY_15_PARIS }, 'Europe/Paris')).toBe(
      'Approve and schedule for Fri 4 Dec, 15:00 (Europe/Paris)',
    );
    expect(statusWord('approved', false)).toBe('Approved, not scheduled');
    expect(statusWord('scheduled', true)).toBe('Scheduled');
  });
});

describe('the content intents', () => {
  let runtime: TestRuntime;
  let ws: TestWorkspace;
  let workspace: Workspace;
  beforeEach(async () => {
    runtime = await testRuntime({ start: '2026-03-20T09:00:00.000Z' });
    ws = await makeWorkspace(runtime);
    workspace = { ...ws.workspace, timezone: 'Europe/Paris' };
  });
  const as = (principal: Principal, overrides: Partial<Workspace> = {}) =>
    contextFor(runtime, { ...workspace, ...overrides }, 'web', principal);

  it('moves a scheduled item across the spring clock change keeping its local time of day', async () => {
    // Friday 27 March 2026, 15:00 in Paris is 14:00Z (winter time); Monday 30 March is summer time.
    const item = await makeContent(runtime, workspace, {
      status: 'scheduled',
      scheduled_for: '2026-03-27T14:00:00.000Z',
      target_platforms: ['twitter'],
    });
    const moved = await runOperation(moveContent, as(SERVICE_PRINCIPAL), { id: item.id, day: '2026-03-30' });
    expect(moved.scheduled_for).toBe('2026-03-30T13:00:00.000Z');
    expect(localParts(new Date(moved.scheduled_for!), 'Europe/Paris')).toMatchObject({ day: 30, hour: 15, minute: 0 });
    expect(moved.status).toBe('scheduled');
    expect(moved.publish_queued).toBe(true);
  });

  it('refuses to move an approved item that is not scheduled, with the policy reason', async () => {
    const item = await makeContent(runtime, workspace, {
      status: 'approved',
      scheduled_for: '2026-03-27T14:00:00.000Z',
    });
    await expect(runOperation(moveContent, as(SERVICE_PRINCIPAL), { id: item.id, day: '2026-03-30' })).rejects.toThrow(
      'Only scheduled items can be moved; this one is approved.',
    );
    await expect(runOperation(moveContent, as(SERVICE_PRINCIPAL), { id: item.id, day: '2026-02-31' })).rejects.toThrow(
      /day of the calendar/,
    );
  });

  it('approves and schedules at the item time: queued, scheduled, and PATCH semantics untouched', async () => {
    const item = await makeContent(runtime, workspace, {
      status: 'pending_review',
      scheduled_for: '2026-03-27T14:00:00.000Z',
      target_platforms: ['twitter'],
    });
    const done = await runOperation(approveContent, as(SERVICE_PRINCIPAL), { id: item.id, then: 'schedule' });
    expect(done).toMatchObject({
      status: 'scheduled',
      publish_queued: true,
      scheduled_for: '2026-03-27T14:00:00.000Z',
    });
    const other = await makeContent(runtime, workspace, { status: 'pending_review', target_platforms: ['twitter'] });
    expect(await runOperation(approveContent, as(SERVICE_PRINCIPAL), { id: other.id, then: 'none' })).toMatchObject({
      status: 'approved',
      publish_queued: false,
    });
  });

  it('refuses the author under approver_must_differ with forbidden and the rule as its reason', async () => {
    const me = personPrincipal({ id: 'user-1', email: 'me@example.com' }, 'approver');
    const authored = await makeContent(runtime, workspace, { status: 'pending_review', target_platforms: ['twitter'] });
    await runtime.db.run(
      sql`update content set created_by_type = 'user', created_by_id = ${me.id} where id = ${authored.id}`,
    );
    await expect(
      runOperation(approveContent, as(me, { approverMustDiffer: true }), { id: authored.id, then: 'publish_now' }),
    ).rejects.toThrow(/differ from the author/);
    // Rejecting is not approving: the author may reject, with a reason the item keeps.
    const rejected = await runOperation(rejectContent, as(me, { approverMustDiffer: true }), {
      id: authored.id,
      reason: 'Wrong launch date',
    });
    expect(rejected).toMatchObject({ status: 'rejected', review_note: 'Wrong launch date' });
  });

  it('reviews many: at most the limit, each item answered on its own, one refusal undoing nothing', async () => {
    const ctx = as(SERVICE_PRINCIPAL);
    const tooMany = Array.from({ length: MAX_REVIEW_ITEMS + 1 }, (_, i) => `id-${i}`);
    await expect(runOperation(reviewContentMany, ctx, { ids: tooMany, decision: 'approve' })).rejects.toThrow(
      `Review at most ${MAX_REVIEW_ITEMS} items at once`,
    );
    await expect(runOperation(reviewContentMany, ctx, { ids: [], decision: 'approve' })).rejects.toThrow(
      /at least one/,
    );
    const timed = await makeContent(runtime, workspace, {
      status: 'pending_review',
      scheduled_for: '2026-03-27T14:00:00.000Z',
      target_platforms: ['twitter'],
    });
    const untimed = await makeContent(runtime, workspace, { status: 'pending_review', target_platforms: ['twitter'] });
    const draft = await makeContent(runtime, workspace, { status: 'draft' });
    const answer = await runOperation(reviewContentMany, ctx, {
      ids: [timed.id, draft.id, untimed.id, 'no-such-item'],
      decision: 'approve',
    });
    expect(answer.data.map((outcome) => [outcome.id, outcome.ok])).toEqual([
      [timed.id, true],
      [draft.id, false],
      [untimed.id, true],
      ['no-such-item', false],
    ]);
    expect(answer.data[1]).toMatchObject({ ok: false, error: { code: 'invalid_state' } });
    expect(answer.data[3]).toMatchObject({ ok: false, error: { code: 'not_found' } });
    const read = async (id: string) => runOperation(getContent, ctx, { id });
    expect(await read(timed.id)).toMatchObject({ status: 'scheduled', publish_queued: true });
    expect(await read(untimed.id)).toMatchObject({ status: 'approved', publish_queued: false });
    expect((await read(draft.id)).status).toBe('draft');
  });
});
