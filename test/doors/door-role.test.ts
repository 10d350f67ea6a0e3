import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { events, socialAccounts, webhookDeliveries, webhooks } from '../../db/schema/index.ts';
import { TOOLS } from '../../tools/index.ts';
import type { ContentAction } from '../../src/core/content/actions.ts';
import type { ContentResource } from '../../src/core/content/serialize.ts';
import { contextFor } from '../../src/core/context.ts';
import { newId } from '../../src/core/ids.ts';
import { runOperation, type Operation } from '../../src/core/operation.ts';
import { invitePerson } from '../../src/core/people/invitations.ts';
import { personPrincipal, type Principal } from '../../src/core/people/principal.ts';
import { connectSocialAccount } from '../../src/core/social-accounts/operations.ts';
import { APP_TOOLS } from '../../src/mcp/apps/app-tools.ts';
import { API_SURFACE } from '../../src/rest/openapi.ts';
import type { OperationEndpoint } from '../../src/rest/endpoints.ts';
import { png } from '../fixtures/media/files.ts';
import { makeCampaign, makeKey, makeMedia, makeWebhook, makeWorkspace } from '../helpers/factories.ts';
import type { TestWorkspace } from '../helpers/factories.ts';
import { Browser } from '../helpers/form-browser.ts';
import { readReply, startTestServer, type RestTestbed, type TestServer } from '../helpers/http.ts';
import { issueTestToken } from '../helpers/oauth-tokens.ts';
import { makePerson } from '../helpers/people.ts';
import { testRuntime, type TestRuntime } from '../helpers/runtime.ts';

/*
 * The door × role test. Every action (an operation with one meaning of its input: "approve only" is
 * approveContent with then none) runs through every door that offers it, as every principal,
 * each time on a fresh row of the state the action is meant for. A door that shows actions (the
 * dashboard's pages, the MCP App's views) must show an action exactly when the door accepts it; and
 * every door that offers an action must accept and refuse the same principals.
 *
 * REST routes come from the route table (API_SURFACE), MCP tools from TOOLS: an operation gains its
 * doors there, and the coverage checks below fail until every served operation has an action here.
 * The dashboard's forms and the MCP App's buttons have no registry: DASHBOARD_FORMS and MCP_APP_ACTIONS
 * map them by hand; the dashboard's coverage check reads every <form action> the pages render, and the
 * MCP App's checks that every view-only tool (APP_TOOLS) is called for the operation it serves. Both
 * showing doors judge "shown" from what the policy put on the page or in `allowed_actions`.
 */

// ---------------------------------------------------------------------------------------------------
// The hand-written door tables. After a merge renames a form, a route or a button, adjust them here.
// ---------------------------------------------------------------------------------------------------

/** A row an action runs on, made fresh for each case (see makeRow). */
type RowKind =
  | 'none'
  | 'draft item'
  | 'pending item'
  | 'pending item with a time'
  | 'approved, not queued item'
  | 'scheduled item'
  | 'draft campaign'
  | 'paused campaign'
  | 'enabled webhook'
  | 'disabled webhook'
  | 'auto-disabled webhook'
  | 'failed delivery'
  | 'media asset'
  | 'social account'
  | 'account to reconnect'
  | 'api key'
  | 'member'
  | 'invitation';

interface Row {
  kind: RowKind;
  id: string;
  /** The webhook of a delivery. */
  webhookId?: string;
  /** A content item's scheduled time. */
  scheduledFor?: Date;
}

/** A form on a dashboard page: where it posts, what it sends, and how the page that offers it shows it. */
interface DashboardForm {
  /** The page that offers the action for this row. */
  page: (row: Row) => string;
  /** Whether that page, as rendered for the principal, offers it (a form, a link to its confirmation, a draggable entry). */
  shows: (html: string, row: Row) => boolean;
  post: (row: Row) => string;
  fields: (row: Row) => Record<string, string | string[]>;
}

const has = (needle: string) => (html: string) => html.includes(needle);
/** The HTML of the form posting to `action`, or '' when the page has none. */
const formOf = (html: string, action: string): string => {
  const start = html.indexOf(`action="${action}"`);
  if (start < 0) return '';
  const end = html.indexOf('</form>', start);
  return html.slice(start, end < 0 ? undefined : end);
};
const localInput = (at: Date) => at.toISOString().slice(0, 16);
/** The item's approve forms (one per way of approving the policy allows), joined. */
const approveFormsOf = (html: string, id: string): string =>
  html
    .split(`action="/app/content/${id}/approve"`)
    .slice(1)
    .map((tail) => tail.slice(0, tail.indexOf('</form>')))
    .join('\n');
/** The decisions an item's bulk checkbox says it can be selected for ('' when it has no checkbox). */
const bulkDecisionsOf = (html: string, id: string): string[] =>
  (new RegExp(`name="ids" value="${id}" form="bulk" data-decisions="([^"]*)"`).exec(html)?.[1] ?? '')
    .split(' ')
    .filter(Boolean);

/**
 * The dashboard's forms, by action. A page for admins only answers 403 to anyone else, which shows
 * nothing; anonymous visitors are sent to sign in.
 */
const DASHBOARD_FORMS: Partial<Record<ActionName, DashboardForm>> = {
  'content.approve and schedule': {
    page: (row) => `/app/content/${row.id}`,
    shows: (html, row) => approveFormsOf(html, row.id).includes('name="then" value="schedule"'),
    post: (row) => `/app/content/${row.id}/approve`,
    fields: (row) => ({ back: `/app/content/${row.id}`, then: 'schedule' }),
  },
  'content.approve and publish now': {
    page: (row) => `/app/content/${row.id}`,
    shows: (html, row) => approveFormsOf(html, row.id).includes('name="then" value="publish_now"'),
    post: (row) => `/app/content/${row.id}/approve`,
    fields: (row) => ({ back: `/app/content/${row.id}`, then: 'publish_now' }),
  },
  'content.approve only': {
    page: (row) => `/app/content/${row.id}`,
    shows: (html, row) => approveFormsOf(html, row.id).includes('name="then" value="none"'),
    post: (row) => `/app/content/${row.id}/approve`,
    fields: (row) => ({ back: `/app/content/${row.id}`, then: 'none' }),
  },
  'content.reject': {
    page: (row) => `/app/content/${row.id}`,
    shows: (html, row) => html.includes(`action="/app/content/${row.id}/reject"`),
    post: (row) => `/app/content/${row.id}/reject`,
    fields: (row) => ({ back: `/app/content/${row.id}`, reason: 'Not this week' }),
  },
  'content.bulk approve': {
    // Newest first: the fresh row is on the inbox's first page. Shown: the item can be selected for
    // approving (its checkbox says which decisions the policy allows on it) and the bar has the button.
    page: () => '/app/inbox?limit=5',
    shows: (html, row) =>
      bulkDecisionsOf(html, row.id).includes('approve') && html.includes('value="approve">Approve selected'),
    post: () => '/app/bulk',
    fields: (row) => ({ ids: row.id, action: 'approve', back: '/app/inbox' }),
  },
  'content.bulk reject': {
    page: () => '/app/inbox?limit=5',
    shows: (html, row) =>
      bulkDecisionsOf(html, row.id).includes('reject') &&
      html.includes('value="reject" class="secondary">Reject selected'),
    post: () => '/app/bulk',
    fields: (row) => ({ ids: row.id, action: 'reject', reason: 'Not this week', back: '/app/inbox' }),
  },
  'content.schedule': {
    page: (row) => `/app/content/${row.id}`,
    shows: (html, row) => html.includes(`action="/app/content/${row.id}/schedule"`),
    post: (row) => `/app/content/${row.id}/schedule`,
    fields: (row) => ({ back: `/app/content/${row.id}`, scheduled_for: localInput(LATER) }),
  },
  'content.schedule at a new time': {
    page: (row) => `/app/content/${row.id}`,
    shows: (html, row) => html.includes(`action="/app/content/${row.id}/schedule"`),
    post: (row) => `/app/content/${row.id}/schedule`,
    fields: (row) => ({
      back: `/app/content/${row.id}`,
      scheduled_for: localInput(new Date(row.scheduledFor!.getTime() + 3_600_000)),
    }),
  },
  'content.publish now': {
    page: (row) => `/app/content/${row.id}`,
    shows: (html, row) => html.includes(`action="/app/content/${row.id}/publish-now"`),
    post: (row) => `/app/content/${row.id}/publish-now`,
    fields: (row) => ({ back: `/app/content/${row.id}` }),
  },
  'content.move to a day': {
    page: (row) => `/app/content/${row.id}`,
    shows: (html, row) => html.includes(`action="/app/content/${row.id}/move"`),
    post: (row) => `/app/content/${row.id}/move`,
    fields: (row) => ({ day: nextDay(row.scheduledFor!).toISOString().slice(0, 10), back: `/app/content/${row.id}` }),
  },
  'content.drag to a day': {
    page: (row) => `/app/calendar?month=${row.scheduledFor!.toISOString().slice(0, 7)}`,
    shows: (html, row) => html.includes(`draggable="true" data-id="${row.id}"`),
    post: (row) => `/app/content/${row.id}/move`,
    fields: (row) => ({ day: nextDay(row.scheduledFor!).toISOString().slice(0, 10), back: '/app/calendar' }),
  },
  'campaign.launch': {
    page: () => '/app/campaigns',
    shows: (html, row) => html.includes(`href="/app/campaigns/${row.id}/launch"`),
    post: (row) => `/app/campaigns/${row.id}/launch`,
    fields: () => ({}),
  },
  'account.update settings': {
    page: () => '/app/settings',
    shows: has('action="/app/settings"'),
    post: () => '/app/settings',
    // What the form sends unchanged: the workspace keeps approver_must_differ on.
    fields: () => ({ timezone: 'UTC', approver_must_differ: 'on', default_language: '' }),
  },
  'webhook.create': {
    page: () => '/app/webhooks',
    shows: (html) => formOf(html, '/app/webhooks').includes('value="content.published"'),
    post: () => '/app/webhooks',
    fields: () => ({ url: HOOK_URL, events: 'content.published' }),
  },
  'webhook.create for campaign.paused': {
    page: () => '/app/webhooks',
    shows: (html) => formOf(html, '/app/webhooks').includes('value="campaign.paused"'),
    post: () => '/app/webhooks',
    fields: () => ({ url: HOOK_URL, events: 'campaign.paused' }),
  },
  'webhook.subscribe to content.published': {
    page: () => '/app/webhooks',
    shows: (html, row) => formOf(html, `/app/webhooks/${row.id}/events`).includes('value="content.published"'),
    post: (row) => `/app/webhooks/${row.id}/events`,
    fields: () => ({ events: 'content.published' }),
  },
  'webhook.subscribe to campaign.paused': {
    page: () => '/app/webhooks',
    shows: (html, row) => formOf(html, `/app/webhooks/${row.id}/events`).includes('value="campaign.paused"'),
    post: (row) => `/app/webhooks/${row.id}/events`,
    fields: () => ({ events: 'campaign.paused' }),
  },
  'webhook.enable': {
    page: () => '/app/webhooks',
    shows: (html, row) => html.includes(`action="/app/webhooks/${row.id}/enable"`),
    post: (row) => `/app/webhooks/${row.id}/enable`,
    fields: () => ({ back: '/app/webhooks' }),
  },
  'webhook.disable': {
    page: () => '/app/webhooks',
    shows: (html, row) => html.includes(`action="/app/webhooks/${row.id}/disable"`),
    post: (row) => `/app/webhooks/${row.id}/disable`,
    fields: () => ({ back: '/app/webhooks' }),
  },
  'webhook.reenable': {
    page: () => '/app/webhooks',
    shows: (html, row) => html.includes(`action="/app/webhooks/${row.id}/reenable"`),
    post: (row) => `/app/webhooks/${row.id}/reenable`,
    fields: () => ({ back: '/app/webhooks' }),
  },
  'webhook.rotate secret': {
    page: () => '/app/webhooks',
    shows: (html, row) => html.includes(`action="/app/webhooks/${row.id}/rotate"`),
    post: (row) => `/app/webhooks/${row.id}/rotate`,
    fields: () => ({}),
  },
  'webhook.send test': {
    page: () => '/app/webhooks',
    shows: (html, row) => html.includes(`action="/app/webhooks/${row.id}/test"`),
    post: (row) => `/app/webhooks/${row.id}/test`,
    fields: () => ({}),
  },
  'webhook.resend delivery': {
    page: (row) => `/app/webhooks/${row.webhookId}`,
    shows: (html, row) => html.includes(`action="/app/webhooks/${row.webhookId}/deliveries/${row.id}/resend"`),
    post: (row) => `/app/webhooks/${row.webhookId}/deliveries/${row.id}/resend`,
    fields: () => ({}),
  },
  'webhook.resend failed': {
    page: (row) => `/app/webhooks/${row.id}`,
    shows: (html, row) => html.includes(`action="/app/webhooks/${row.id}/resend-failed"`),
    post: (row) => `/app/webhooks/${row.id}/resend-failed`,
    fields: () => ({ since: localInput(new Date(START.getTime() - 86_400_000)) }),
  },
  'social account.connect': {
    // The dashboard's connect runs startSessionConnection (bound to the session), REST's startAccountConnection.
    page: () => '/app/accounts',
    shows: (html) => /action="\/app\/accounts\/connect"[^>]*>.*?name="platform" value="twitter"/s.test(html),
    post: () => '/app/accounts/connect',
    fields: () => ({ platform: 'twitter' }),
  },
  'social account.reconnect': {
    page: () => '/app/accounts',
    shows: (html, row) => html.includes(`action="/app/accounts/${row.id}/reconnect"`),
    post: (row) => `/app/accounts/${row.id}/reconnect`,
    fields: () => ({}),
  },
  'social account.disconnect': {
    page: () => '/app/accounts',
    shows: (html, row) => html.includes(`href="/app/accounts/${row.id}/disconnect"`),
    post: (row) => `/app/accounts/${row.id}/disconnect`,
    fields: () => ({}),
  },
  'media.delete': {
    page: () => '/app/media',
    shows: (html, row) => html.includes(`href="/app/media/${row.id}/delete"`),
    post: (row) => `/app/media/${row.id}/delete`,
    fields: () => ({}),
  },
  'key.create': {
    page: () => '/app/keys',
    shows: has('action="/app/keys"'),
    post: () => '/app/keys',
    fields: () => ({ name: 'Door test key' }),
  },
  'key.revoke': {
    page: () => '/app/keys',
    shows: (html, row) => html.includes(`href="/app/keys/${row.id}/revoke"`),
    post: (row) => `/app/keys/${row.id}/revoke`,
    fields: () => ({}),
  },
  'member.invite': {
    page: () => '/app/members',
    shows: has('action="/app/members/invite"'),
    post: () => '/app/members/invite',
    fields: () => ({ email: `invited-${newId()}@example.com`, role: 'editor' }),
  },
  'member.change role': {
    page: () => '/app/members',
    shows: (html, row) => html.includes(`action="/app/members/${row.id}/role"`),
    post: (row) => `/app/members/${row.id}/role`,
    fields: () => ({ role: 'approver' }),
  },
  'member.remove': {
    page: () => '/app/members',
    shows: (html, row) => html.includes(`href="/app/members/${row.id}/remove"`),
    post: (row) => `/app/members/${row.id}/remove`,
    fields: () => ({}),
  },
  'member.withdraw invitation': {
    page: () => '/app/members',
    shows: (html, row) => html.includes(`action="/app/members/${row.id}/withdraw"`),
    post: (row) => `/app/members/${row.id}/withdraw`,
    fields: () => ({}),
  },
};

/**
 * Dashboard forms that run no operation of this table, and why: the coverage check accepts them.
 * Every other form a page renders must be in DASHBOARD_FORMS.
 */
const FORMS_OUTSIDE_OPERATIONS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^\/app\/logout$/, 'signing out ends the session; no operation'],
  [/^\/app\/workspace$/, 'choosing a workspace changes the session; no operation'],
  [/^\/app\/security\/grants\/:id\/revoke$/, "a person's own OAuth grants, revoked outside the operations"],
  [
    /^\/app\/accounts\/connect-credentials$/,
    'needs a running credentials platform (Bluesky); connect is covered over OAuth',
  ],
];

/** One verdict of a content policy, as the view data gives it back per item (`allowed_actions`). */
interface ActionVerdict {
  action: string;
  allowed: boolean;
  code?: string;
  reason?: string;
}

/** The view data of an MCP App view, as the tool result's `_meta.ui` carries it (src/mcp/apps/view-data.ts). */
type ViewData = { allowed_actions?: Record<string, ActionVerdict[]> } & Record<string, unknown>;

/** A call a view makes: a tool and its arguments. */
type ToolCall = { tool: string; args: Record<string, unknown> };

/**
 * A button of an MCP App view: the tool call that opens the view, the policy's actions whose verdict
 * on the row's item (`_meta.ui.allowed_actions[itemId]`, any of them allowed) makes the view show the
 * button (src/mcp/apps/view/actions.ts and list.ts), and the view-only tool call the button makes
 * (src/mcp/apps/app-tools.ts).
 */
interface McpAppAction {
  opens: (row: Row) => ToolCall;
  shownFor: readonly ContentAction[];
  call: (row: Row) => ToolCall;
}

const openItem = (row: Row): ToolCall => ({ tool: 'service_get_content', args: { id: row.id } });
const MCP_APP_ACTIONS: Partial<Record<ActionName, McpAppAction>> = {
  'content.approve and schedule': {
    opens: openItem,
    shownFor: ['approve_and_schedule'],
    call: (row) => ({ tool: 'app_approve_content', args: { id: row.id, then: 'schedule' } }),
  },
  'content.approve and publish now': {
    opens: openItem,
    shownFor: ['approve_and_publish_now'],
    call: (row) => ({ tool: 'app_approve_content', args: { id: row.id, then: 'publish_now' } }),
  },
  'content.approve only': {
    opens: openItem,
    shownFor: ['approve_only'],
    call: (row) => ({ tool: 'app_approve_content', args: { id: row.id, then: 'none' } }),
  },
  'content.reject': {
    opens: openItem,
    shownFor: ['reject'],
    call: (row) => ({ tool: 'app_reject_content', args: { id: row.id, reason: 'Not this week' } }),
  },
  'content.bulk approve': {
    opens: () => ({ tool: 'service_list_content', args: { status: 'pending_review', limit: 5 } }),
    // The queue lets an item be selected for "Approve selected" when the policy allows approving it in some way.
    shownFor: ['approve_and_schedule', 'approve_and_publish_now', 'approve_only'],
    call: (row) => ({ tool: 'app_review_content_many', args: { ids: [row.id], decision: 'approve' } }),
  },
  'content.schedule': {
    opens: openItem,
    shownFor: ['schedule'],
    call: (row) => ({ tool: 'app_schedule_content', args: { id: row.id, scheduled_for: LATER.toISOString() } }),
  },
  'content.schedule at a new time': {
    opens: openItem,
    shownFor: ['schedule'],
    call: (row) => ({
      tool: 'app_schedule_content',
      args: { id: row.id, scheduled_for: new Date(row.scheduledFor!.getTime() + 3_600_000).toISOString() },
    }),
  },
  'content.publish now': {
    opens: openItem,
    shownFor: ['publish_now'],
    call: (row) => ({ tool: 'app_publish_content_now', args: { id: row.id } }),
  },
  'content.drag to a day': {
    opens: (row) => ({
      tool: 'service_list_content',
      args: {
        scheduled_from: row.scheduledFor!.toISOString(),
        scheduled_to: new Date(row.scheduledFor!.getTime() + 1000).toISOString(),
      },
    }),
    shownFor: ['move'],
    call: (row) => ({
      tool: 'app_move_content',
      args: { id: row.id, day: nextDay(row.scheduledFor!).toISOString().slice(0, 10) },
    }),
  },
};

// ---------------------------------------------------------------------------------------------------
// The actions: an operation and the input that gives it one meaning, on the row it is meant for.
// ---------------------------------------------------------------------------------------------------

const START = new Date('2026-03-10T12:00:30.000Z');
const HOOK_URL = 'http://127.0.0.1:9/door-test-hook';
const nextDay = (at: Date) => new Date(at.getTime() + 86_400_000);
/** A time to schedule at, well after every row's. */
const LATER = new Date('2026-04-20T10:00:00.000Z');

interface Action {
  name: string;
  /** The operation's name (Operation.name): the route table and the tools are searched by it. */
  operation: string;
  row: RowKind;
  input: (row: Row) => Record<string, unknown>;
  /** A REST request of its own (the multipart upload), instead of the route table's JSON one. */
  restRequest?: (row: Row) => { method: string; path: string; init: RequestInit };
}

const action = (
  name: string,
  operation: string,
  row: RowKind,
  input: (row: Row) => Record<string, unknown> = (r) => ({ id: r.id }),
  extra: Partial<Action> = {},
): Action => ({ name, operation, row, input, ...extra });

const ACTIONS = [
  // content
  action('content.list', 'listContent', 'none', () => ({ limit: 1 })),
  action('content.get', 'getContent', 'pending item'),
  action('content.create', 'createContent', 'none', () => ({ caption: 'A new draft' })),
  action('content.edit caption', 'updateContent', 'draft item', (r) => ({ id: r.id, caption: 'Edited' })),
  action('content.submit for review', 'updateContent', 'draft item', (r) => ({ id: r.id, status: 'pending_review' })),
  // The contract's own status changes (REST and MCP): PATCH status=approved approves and does not queue.
  action('content.set status approved', 'updateContent', 'pending item', (r) => ({ id: r.id, status: 'approved' })),
  action('content.set status rejected', 'updateContent', 'pending item', (r) => ({
    id: r.id,
    status: 'rejected',
    review_note: 'Not this week',
  })),
  action('content.change time', 'updateContent', 'scheduled item', (r) => ({
    id: r.id,
    scheduled_for: nextDay(r.scheduledFor!).toISOString(),
  })),
  // The intents (the dashboard's forms, the MCP App's buttons).
  action('content.approve and schedule', 'approveContent', 'pending item with a time', (r) => ({
    id: r.id,
    then: 'schedule',
  })),
  action('content.approve and publish now', 'approveContent', 'pending item', (r) => ({
    id: r.id,
    then: 'publish_now',
  })),
  action('content.approve only', 'approveContent', 'pending item', (r) => ({ id: r.id, then: 'none' })),
  action('content.reject', 'rejectContent', 'pending item', (r) => ({ id: r.id, reason: 'Not this week' })),
  action('content.bulk approve', 'reviewContentMany', 'pending item', (r) => ({ ids: [r.id], decision: 'approve' })),
  action('content.bulk reject', 'reviewContentMany', 'pending item', (r) => ({
    ids: [r.id],
    decision: 'reject',
    reason: 'Not this week',
  })),
  action('content.schedule', 'scheduleContent', 'approved, not queued item', (r) => ({
    id: r.id,
    scheduled_for: LATER.toISOString(),
  })),
  action('content.schedule at a new time', 'scheduleContent', 'scheduled item', (r) => ({
    id: r.id,
    scheduled_for: new Date(r.scheduledFor!.getTime() + 3_600_000).toISOString(),
  })),
  action('content.publish now', 'publishContentNow', 'approved, not queued item'),
  action('content.move to a day', 'moveContent', 'scheduled item', (r) => ({
    id: r.id,
    day: nextDay(r.scheduledFor!).toISOString().slice(0, 10),
  })),
  action('content.drag to a day', 'moveContent', 'scheduled item', (r) => ({
    id: r.id,
    day: nextDay(r.scheduledFor!).toISOString().slice(0, 10),
  })),
  action('content.delete', 'deleteContent', 'draft item'),
  action('content.publish', 'publishContent', 'approved, not queued item'),
  action('content.preview publishing', 'publishContent', 'approved, not queued item', (r) => ({
    id: r.id,
    dry_run: true,
  })),
  // campaigns
  action('campaign.list', 'listCampaigns', 'none', () => ({ limit: 1 })),
  action('campaign.get', 'getCampaign', 'draft campaign'),
  action('campaign.create', 'createCampaign', 'none', () => ({ name: 'A new campaign' })),
  action('campaign.rename', 'updateCampaign', 'draft campaign', (r) => ({ id: r.id, name: 'Renamed' })),
  action('campaign.delete', 'deleteCampaign', 'draft campaign'),
  action('campaign.launch', 'launchCampaign', 'draft campaign'),
  action('campaign.launch again', 'launchCampaign', 'paused campaign'),
  // the workspace
  action('account.get', 'getAccount', 'none', () => ({})),
  action('account.update settings', 'updateAccount', 'none', () => ({ timezone: 'UTC' })),
  action('brand profile.get', 'getBrandProfile', 'none', () => ({})),
  action('brand profile.update', 'updateBrandProfile', 'none', () => ({ voice: 'Warm and brief' })),
  action('analytics.overview', 'getAnalyticsOverview', 'none', () => ({})),
  action('templates.list', 'listTemplates', 'none', () => ({})),
  // social accounts
  action('social account.list', 'listSocialAccounts', 'none', () => ({})),
  action('social account.connect', 'startAccountConnection', 'none', () => ({ platform: 'twitter' })),
  action('social account.reconnect', 'reconnectSocialAccount', 'account to reconnect'),
  action('social account.disconnect', 'disconnectAccount', 'social account'),
  // media
  action('media.list', 'listMedia', 'none', () => ({ limit: 1 })),
  action('media.upload', 'createMediaAsset', 'none', () => ({}), {
    restRequest: () => {
      const form = new FormData();
      form.append('file', new Blob([png(2, 2)], { type: 'image/png' }), 'door.png');
      return { method: 'POST', path: '/api/v1/media_assets', init: { body: form } };
    },
  }),
  action('media.describe', 'updateMediaAsset', 'media asset', (r) => ({ id: r.id, alt_text: 'A small square' })),
  action('media.delete', 'deleteMediaAsset', 'media asset'),
  // webhooks
  action('webhook.list', 'listWebhooks', 'none', () => ({})),
  action('webhook.get', 'getWebhook', 'enabled webhook'),
  action('webhook.create', 'createWebhook', 'none', () => ({ url: HOOK_URL, events: ['content.published'] })),
  action('webhook.create for campaign.paused', 'createWebhook', 'none', () => ({
    url: HOOK_URL,
    events: ['campaign.paused'],
  })),
  action('webhook.subscribe to content.published', 'updateWebhook', 'enabled webhook', (r) => ({
    id: r.id,
    events: ['content.published'],
  })),
  action('webhook.subscribe to campaign.paused', 'updateWebhook', 'enabled webhook', (r) => ({
    id: r.id,
    events: ['campaign.paused'],
  })),
  action('webhook.enable', 'updateWebhook', 'disabled webhook', (r) => ({ id: r.id, is_enabled: true })),
  action('webhook.disable', 'updateWebhook', 'enabled webhook', (r) => ({ id: r.id, is_enabled: false })),
  action('webhook.reenable', 'reenableWebhook', 'auto-disabled webhook'),
  action('webhook.delete', 'deleteWebhook', 'enabled webhook'),
  action('webhook.rotate secret', 'rotateWebhookSecret', 'enabled webhook'),
  action('webhook.send test', 'testWebhook', 'enabled webhook'),
  action('webhook.list deliveries', 'listWebhookDeliveries', 'enabled webhook', (r) => ({ id: r.id, limit: 1 })),
  action('webhook.resend delivery', 'resendDelivery', 'failed delivery', (r) => ({
    id: r.webhookId,
    delivery_id: r.id,
  })),
  action('webhook.resend failed', 'resendFailedDeliveries', 'enabled webhook', (r) => ({
    id: r.id,
    since: new Date(START.getTime() - 86_400_000).toISOString(),
  })),
  // dashboard only: keys and members
  action('key.create', 'createKey', 'none', () => ({ name: 'Door test key' })),
  action('key.revoke', 'revokeKey', 'api key'),
  action('member.invite', 'inviteMember', 'none', () => ({ email: `invited-${newId()}@example.com`, role: 'editor' })),
  action('member.change role', 'changeMemberRole', 'member', (r) => ({ user_id: r.id, role: 'approver' })),
  action('member.remove', 'removeMember', 'member', (r) => ({ user_id: r.id })),
  action('member.withdraw invitation', 'withdrawInvite', 'invitation', (r) => ({ invitation_id: r.id })),
] as const satisfies readonly Action[];

type ActionName = (typeof ACTIONS)[number]['name'];

// ---------------------------------------------------------------------------------------------------
// The doors, generated from the registries.
// ---------------------------------------------------------------------------------------------------

type Door = 'REST' | 'MCP' | 'dashboard' | 'MCP App';

const REST_ROUTES: Array<OperationEndpoint & { mount: string }> = API_SURFACE.flatMap(({ mount, endpoints }) =>
  endpoints.filter((e): e is OperationEndpoint => e.kind === 'operation').map((e) => ({ ...e, mount })),
);
const restRouteOf = (name: string) => REST_ROUTES.find((route) => route.operation.name === name);
const toolOf = (name: string) => TOOLS.find((tool) => tool.operation.name === name);
/** A core operation by name, as the route table serves it: the rows below are made through it. */
const servedOperation = (name: string): Operation<any, any> => {
  const route = restRouteOf(name);
  if (!route) throw new Error(`No REST route serves ${name}.`);
  return route.operation;
};

function doorsOf(act: Action): Door[] {
  const doors: Door[] = [];
  if (restRouteOf(act.operation)) doors.push('REST');
  if (toolOf(act.operation)) doors.push('MCP');
  if (DASHBOARD_FORMS[act.name as ActionName]) doors.push('dashboard');
  if (MCP_APP_ACTIONS[act.name as ActionName]) doors.push('MCP App');
  return doors;
}

/** The doors that show their actions, where shown ⇔ accepted is asserted. */
const SHOWING_DOORS: readonly Door[] = ['dashboard', 'MCP App'];

// ---------------------------------------------------------------------------------------------------
// The principals, one testbed for all of them.
// ---------------------------------------------------------------------------------------------------

const PRINCIPALS = [
  'anonymous',
  'viewer',
  'editor',
  'approver',
  'admin',
  'read-only OAuth grant',
  'author under approver_must_differ',
] as const;
type PrincipalName = (typeof PRINCIPALS)[number];

interface Credentials {
  /** The Authorization header for REST and MCP, none for anonymous. */
  bearer?: string;
  /** A dashboard browser: signed in for a person; for the others, one that holds only what they hold. */
  browser: Browser;
  /** The person, for the rows they author. */
  principal?: Principal;
}

let runtime: TestRuntime;
let server: TestServer;
let ws: TestWorkspace;
let mediaDir: string;
const who = {} as Record<PrincipalName, Credentials>;

beforeAll(async () => {
  mediaDir = mkdtempSync(join(tmpdir(), 'door-role-media-'));
  runtime = await testRuntime({
    start: START.toISOString(),
    env: {
      MEDIA_DIR: mediaDir,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_MS: '300',
      RATE_LIMIT_READ: '1000000',
      RATE_LIMIT_WRITE: '1000000',
      RATE_LIMIT_PUBLISH: '1000000',
      RATE_LIMIT_MEDIA: '1000000',
      // An OAuth app for X that is never contacted: starting a connection only builds its consent URL.
      X_CLIENT_ID: 'door-test-client',
      X_CLIENT_SECRET: 'door-test-secret',
      X_AUTH_BASE_URL: 'http://127.0.0.1:9',
      X_API_BASE_URL: 'http://127.0.0.1:9',
    },
  });
  server = await startTestServer(runtime);
  ws = await makeWorkspace(runtime);
  // The workspace requires the approver to differ from the author. Only the author's rows are written
  // by a person (makeRow); everyone else's are the key's, which the rule does not cover.
  await runOperation(servedOperation('updateAccount'), contextFor(runtime, ws.workspace, 'rest'), {
    approver_must_differ: true,
  });
  const bed = { runtime, server, ws, mediaDir } as RestTestbed;
  const stranger = async (bearer?: string) => {
    const browser = new Browser(bed);
    if (bearer) browser.headers.authorization = `Bearer ${bearer}`;
    await browser.open('/app/login');
    return browser;
  };
  const person = async (role: 'viewer' | 'editor' | 'approver' | 'admin'): Promise<Credentials> => {
    const made = await makePerson(runtime, ws.workspace.id, role);
    const browser = new Browser(bed);
    await browser.signIn(made.email, made.password);
    const { accessToken } = await issueTestToken(
      runtime,
      ws.workspace.id,
      ['read', 'write', 'publish'],
      role,
      made.userId,
    );
    return {
      bearer: accessToken,
      browser,
      principal: personPrincipal({ id: made.userId, email: made.email }, role),
    };
  };
  who.anonymous = { browser: await stranger() };
  for (const role of ['viewer', 'editor', 'approver', 'admin'] as const) who[role] = await person(role);
  const readOnly = (await issueTestToken(runtime, ws.workspace.id, ['read'], 'Read-only client')).accessToken;
  who['read-only OAuth grant'] = { bearer: readOnly, browser: await stranger(readOnly) };
  who['author under approver_must_differ'] = await person('approver');
});

afterAll(async () => {
  await server?.close();
  rmSync(mediaDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------
// Rows
// ---------------------------------------------------------------------------------------------------

const keyCtx = () => contextFor(runtime, ws.workspace, 'rest');
let scheduledDay = 0;

/** A fresh row of `kind`; content is authored by the author when the case runs as them. */
async function makeRow(kind: RowKind, as: PrincipalName): Promise<Row> {
  const author = as === 'author under approver_must_differ' ? who[as].principal : undefined;
  const authored = author ? contextFor(runtime, ws.workspace, 'rest', author) : keyCtx();
  const item = async (input: Record<string, unknown>) =>
    (await runOperation(servedOperation('createContent'), authored, {
      caption: 'A caption worth posting',
      target_platforms: ['twitter'],
      ...input,
    })) as ContentResource;
  switch (kind) {
    case 'none':
      return { kind, id: '' };
    case 'draft item':
      return { kind, id: (await item({})).id };
    case 'pending item':
      return { kind, id: (await item({ status: 'pending_review' })).id };
    case 'pending item with a time': {
      const at = new Date(Date.UTC(2026, 2, 12 + (scheduledDay++ % 15), 9, 30));
      const made = await item({ status: 'pending_review', scheduled_for: at.toISOString() });
      return { kind, id: made.id, scheduledFor: at };
    }
    case 'approved, not queued item':
    case 'scheduled item': {
      const created = await item({ status: 'pending_review' });
      // Someone else approves it (a key): the author's own item, approved as the rule asks.
      // Each on a day of its own in March, so a calendar month shows it among few others.
      const at = new Date(Date.UTC(2026, 2, 12 + (scheduledDay++ % 15), 9, 30));
      const approved = (await runOperation(
        servedOperation('updateContent'),
        keyCtx(),
        kind === 'approved, not queued item'
          ? { id: created.id, status: 'approved' }
          : { id: created.id, status: 'scheduled', scheduled_for: at.toISOString() },
      )) as ContentResource;
      return {
        kind,
        id: approved.id,
        scheduledFor: approved.scheduled_for ? new Date(approved.scheduled_for) : undefined,
      };
    }
    case 'draft campaign':
      return { kind, id: (await makeCampaign(runtime, ws.workspace)).id };
    case 'paused campaign': {
      const made = await makeCampaign(runtime, ws.workspace);
      await runOperation(servedOperation('updateCampaign'), keyCtx(), { id: made.id, status: 'paused' });
      return { kind, id: made.id };
    }
    case 'enabled webhook':
      return { kind, id: (await makeWebhook(runtime, ws.workspace, { url: HOOK_URL })).id };
    case 'disabled webhook': {
      const hook = await makeWebhook(runtime, ws.workspace, { url: HOOK_URL });
      await runOperation(servedOperation('updateWebhook'), keyCtx(), { id: hook.id, is_enabled: false });
      return { kind, id: hook.id };
    }
    case 'auto-disabled webhook': {
      // As the delivery run leaves a webhook after repeated failures.
      const hook = await makeWebhook(runtime, ws.workspace, { url: HOOK_URL });
      await runtime.db
        .update(webhooks)
        .set({ isEnabled: false, autoDisabledAt: runtime.clock.now() })
        .where(eq(webhooks.id, hook.id))
        .run();
      return { kind, id: hook.id };
    }
    case 'failed delivery': {
      const hook = await makeWebhook(runtime, ws.workspace, { url: HOOK_URL });
      await item({});
      const event = (await runtime.db
        .select()
        .from(events)
        .where(eq(events.workspaceId, ws.workspace.id))
        .orderBy(desc(events.seq))
        .get())!;
      const id = newId();
      await runtime.db
        .insert(webhookDeliveries)
        .values({
          id,
          webhookId: hook.id,
          jobId: null,
          eventId: event.id,
          eventType: event.type,
          attempt: 1,
          status: 'failed',
          statusCode: 500,
          responseBody: 'no',
          durationMs: 5,
          deliveredAt: runtime.clock.now(),
          isTest: false,
        })
        .run();
      return { kind, id, webhookId: hook.id };
    }
    case 'media asset':
      return { kind, id: (await makeMedia(runtime, ws.workspace)).id };
    case 'social account':
      return {
        kind,
        id: (
          await connectSocialAccount(runtime, {
            workspaceId: ws.workspace.id,
            platform: 'linkedin',
            username: `door_${newId().slice(0, 8)}`,
          })
        ).id,
      };
    case 'account to reconnect': {
      // An X account (X's app is configured here) whose platform refused its token.
      const account = await connectSocialAccount(runtime, {
        workspaceId: ws.workspace.id,
        platform: 'twitter',
        username: `door_${newId().slice(0, 8)}`,
      });
      await runtime.db
        .update(socialAccounts)
        .set({ mode: 'live', status: 'needs_reconnect' })
        .where(eq(socialAccounts.id, account.id))
        .run();
      return { kind, id: account.id };
    }
    case 'api key':
      return { kind, id: (await makeKey(runtime, ws.workspace.id)).keyId };
    case 'member':
      return { kind, id: (await makePerson(runtime, ws.workspace.id, 'editor')).userId };
    case 'invitation':
      return {
        kind,
        id: (
          await invitePerson(runtime, {
            workspaceId: ws.workspace.id,
            email: `pending-${newId()}@example.com`,
            role: 'viewer',
            invitedBy: null,
          })
        ).invitationId,
      };
  }
}

// ---------------------------------------------------------------------------------------------------
// Running an action through a door
// ---------------------------------------------------------------------------------------------------

interface Outcome {
  accepted: boolean;
  /** 'ok', or the refusal: the error code, the HTTP status, "sign-in" for the dashboard's redirect. */
  code: string;
}

/** What a door did for a case: its outcome, and for a showing door whether it showed the action first. */
interface DoorResult extends Outcome {
  shown?: boolean;
}

async function viaRest(act: Action, row: Row, bearer: string | undefined): Promise<Outcome> {
  const auth: Record<string, string> = bearer ? { authorization: `Bearer ${bearer}` } : {};
  let method: string;
  let path: string;
  let init: RequestInit;
  if (act.restRequest) ({ method, path, init } = act.restRequest(row));
  else {
    const route = restRouteOf(act.operation)!;
    const input = { ...act.input(row) };
    path =
      route.mount +
      route.path.replace(/:(\w+)/g, (_, name: string) => {
        const value = String(input[name]);
        delete input[name];
        return encodeURIComponent(value);
      });
    method = route.method.toUpperCase();
    init = {};
    if (route.input === 'query') {
      const query = new URLSearchParams(Object.entries(input).map(([k, v]): [string, string] => [k, String(v)]));
      if ([...query].length) path += `?${query}`;
    } else if (route.input === 'body') {
      init = { body: JSON.stringify(input), headers: { 'content-type': 'application/json' } };
    }
  }
  const res = await server.request(path, {
    ...init,
    method,
    headers: { ...(init.headers as Record<string, string>), ...auth },
  });
  const reply = await readReply(res);
  if (res.status >= 200 && res.status < 300) return { accepted: true, code: 'ok' };
  return { accepted: false, code: reply.body?.error?.code ?? `http ${res.status}` };
}

const UI_CAPABILITIES = { extensions: { 'io.modelcontextprotocol/ui': {} } };
let rpcId = 0;

/** A 2026-07-28 tools/call on /mcp, declaring MCP Apps support: the answer and the view data it carries. */
async function callMcp(
  tool: string,
  args: Record<string, unknown>,
  bearer: string | undefined,
): Promise<Outcome & { structured?: any; ui?: ViewData }> {
  const res = await server.request('/mcp', {
    method: 'POST',
    headers: {
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: ++rpcId,
      method: 'tools/call',
      params: {
        name: tool,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': UI_CAPABILITIES,
          'io.modelcontextprotocol/clientInfo': { name: 'door-role-test', version: '1.0.0' },
        },
      },
    }),
  });
  const reply = await readReply(res);
  if (res.status !== 200) return { accepted: false, code: reply.body?.error?.code ?? `http ${res.status}` };
  if (reply.body.error) return { accepted: false, code: `jsonrpc ${reply.body.error.code}` };
  const { result } = reply.body;
  if (result.isError) return { accepted: false, code: JSON.parse(result.content[0].text).error.code };
  return { accepted: true, code: 'ok', structured: result.structuredContent, ui: result._meta?.ui };
}

async function viaMcp(act: Action, row: Row, bearer: string | undefined): Promise<Outcome> {
  const { accepted, code } = await callMcp(toolOf(act.operation)!.name, act.input(row), bearer);
  return { accepted, code };
}

/** The dashboard: open the page that offers the action (is it shown?), then send its form. */
async function viaDashboard(form: DashboardForm, row: Row, browser: Browser): Promise<DoorResult> {
  const page = await browser.open(form.page(row));
  const shown = page.status === 200 && form.shows(page.text, row);
  const sent = await browser.post(form.post(row), form.fields(row));
  const location = Browser.pathOf(sent.location);
  if (sent.status === 303 && !location.startsWith('/app/login')) return { shown, accepted: true, code: 'ok' };
  return { shown, accepted: false, code: sent.status === 303 ? 'sign-in' : `http ${sent.status}` };
}

/** The MCP App: open the view (is the button there for this item?), then make the call its button makes. */
async function viaMcpApp(app: McpAppAction, row: Row, bearer: string | undefined): Promise<DoorResult> {
  const opened = app.opens(row);
  const view = await callMcp(opened.tool, opened.args, bearer);
  const verdicts = view.accepted ? view.ui?.allowed_actions?.[row.id] : undefined;
  const shown = (verdicts ?? []).some((v) => app.shownFor.includes(v.action as ContentAction) && v.allowed);
  const call = app.call(row);
  const answer = await callMcp(call.tool, call.args, bearer);
  // A review of many answers per item: this row's own outcome says whether it was accepted.
  const outcomes = answer.structured?.object === 'review_outcomes' ? answer.structured.data : [];
  const own = (outcomes as Array<{ id: string; ok: boolean; error?: { code: string } }>).find(
    (outcome) => outcome.id === row.id,
  );
  if (answer.accepted && own && !own.ok) return { shown, accepted: false, code: own.error?.code ?? 'refused' };
  return { shown, accepted: answer.accepted, code: answer.code };
}

async function runCase(act: Action, door: Door, as: PrincipalName): Promise<DoorResult> {
  const row = await makeRow(act.row, as);
  const { bearer, browser } = who[as];
  try {
    switch (door) {
      case 'REST':
        return await viaRest(act, row, bearer);
      case 'MCP':
        return await viaMcp(act, row, bearer);
      case 'dashboard':
        return await viaDashboard(DASHBOARD_FORMS[act.name as ActionName]!, row, browser);
      case 'MCP App':
        return await viaMcpApp(MCP_APP_ACTIONS[act.name as ActionName]!, row, bearer);
    }
  } finally {
    await removeWebhooks();
  }
}

/** A workspace holds at most 20 webhooks: each case's go once it has run. */
async function removeWebhooks(): Promise<void> {
  for (const hook of (await runOperation(servedOperation('listWebhooks'), keyCtx(), {})).data)
    await runOperation(servedOperation('deleteWebhook'), keyCtx(), { id: hook.id });
}

/**
 * Whether the principal holds a credential of the door: a bearer token opens no dashboard session
 * (it is sent, and the dashboard asks to sign in), so the read-only grant's dashboard answers are
 * left out of the doors' agreement; its dashboard still must show nothing it refuses.
 */
const holdsCredentialFor = (as: PrincipalName, door: Door) => !(as === 'read-only OAuth grant' && door === 'dashboard');

// ---------------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------------

const describeOutcome = (r: DoorResult) =>
  `${r.shown === undefined ? '' : `shown ${r.shown}, `}accepted ${r.accepted}${r.accepted ? '' : ` (${r.code})`}`;

describe('the door × role test', () => {
  const results = new Map<string, DoorResult>();
  const key = (act: Action, door: Door, as: PrincipalName) => `${act.name}|${door}|${as}`;

  describe.each(ACTIONS.map((act) => ({ act, name: act.name, operation: act.operation })))(
    '$name ($operation)',
    ({ act }) => {
      describe.each(doorsOf(act))('through %s', (door) => {
        it.each(PRINCIPALS)(`as %s, on a fresh ${act.row === 'none' ? 'workspace' : act.row}`, async (as) => {
          const result = await runCase(act, door, as);
          results.set(key(act, door, as), result);
          // No credential: every door asks for one (401 missing_key, the dashboard's sign-in page).
          if (as === 'anonymous') expect(result.code, `${act.name} through ${door}`).toMatch(/^(missing_key|sign-in)$/);
          if (SHOWING_DOORS.includes(door)) {
            expect(
              result.shown,
              `${act.name} (${act.operation}) through ${door} as ${as}, row ${act.row}: ` +
                `${describeOutcome(result)}; a door shows an action exactly when it accepts it`,
            ).toBe(result.accepted);
          }
        });
      });
      // Else "shown exactly when accepted" could hold with nothing ever shown: the row is one the action is for.
      it('the admin is accepted through every door', () => {
        const refused = doorsOf(act)
          .map((door) => [door, results.get(key(act, door, 'admin'))] as const)
          .filter(([, r]) => !r?.accepted)
          .map(([door, r]) => `${door}: ${r ? describeOutcome(r) : 'did not run'}`);
        expect(refused).toEqual([]);
      });
      if (doorsOf(act).length > 1) {
        it.each(PRINCIPALS)('every door accepts or refuses %s alike', (as) => {
          const answered = doorsOf(act)
            .filter((door) => holdsCredentialFor(as, door))
            .map((door) => [door, results.get(key(act, door, as))] as const);
          const missing = answered.filter(([, r]) => r === undefined).map(([door]) => door);
          expect(missing, `${act.name}: the cases of these doors did not run`).toEqual([]);
          const accepted = new Set(answered.map(([, r]) => r!.accepted));
          expect(
            accepted.size,
            `${act.name} (${act.operation}) as ${as}, row ${act.row}: the doors disagree: ` +
              answered.map(([door, r]) => `${door} ${describeOutcome(r!)}`).join('; '),
          ).toBe(1);
        });
      }
    },
  );
});

describe('the door × role test covers every door', () => {
  it('every operation a REST route serves has an action here', () => {
    const covered = new Set<string>(ACTIONS.map((act) => act.operation));
    const missing = REST_ROUTES.filter((route) => !covered.has(route.operation.name)).map(
      (route) => `${route.method.toUpperCase()} ${route.mount}${route.path} (${route.operation.name})`,
    );
    expect(missing).toEqual([]);
  });

  it('every MCP tool has an action here', () => {
    const covered = new Set<string>(ACTIONS.map((act) => act.operation));
    expect(TOOLS.filter((tool) => !covered.has(tool.operation.name)).map((tool) => tool.name)).toEqual([]);
  });

  it('every view-only tool of the MCP App is an action here, called for the operation it serves', () => {
    const sample: Row = { kind: 'scheduled item', id: 'sample', scheduledFor: START };
    const called = Object.entries(MCP_APP_ACTIONS as Record<string, McpAppAction>).map(([name, app]) => {
      const tool = APP_TOOLS.find((candidate) => candidate.name === app.call(sample).tool);
      return {
        name,
        tool: tool?.name,
        serves: tool?.operation.name,
        operation: ACTIONS.find((a) => a.name === name)!.operation,
      };
    });
    expect(called.filter((c) => c.serves !== c.operation)).toEqual([]);
    const covered = new Set(called.map((c) => c.tool));
    expect(APP_TOOLS.filter((tool) => !covered.has(tool.name)).map((tool) => tool.name)).toEqual([]);
  });

  it('every form the dashboard renders for an admin is in DASHBOARD_FORMS, or said to run no operation', async () => {
    await removeWebhooks();
    // A row of each kind the dashboard's actions run on, so each page renders every form it has.
    const rows = new Map<RowKind, Row>();
    for (const act of ACTIONS) if (!rows.has(act.row)) rows.set(act.row, await makeRow(act.row, 'admin'));
    // Each form once, whichever row it is for: the ids of rows (and of earlier cases' rows, UUIDs or
    // prefixed ids such as whk_…) read as `:id`.
    const ids = [...rows.values()].flatMap((row) => [row.id, row.webhookId].filter((id): id is string => Boolean(id)));
    const generic = (path: string) =>
      ids
        .reduce((text, id) => text.replaceAll(id, ':id'), path)
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[a-z]+_[A-Za-z0-9]{16,}/g, ':id');
    const offered = Object.entries(DASHBOARD_FORMS as Record<string, DashboardForm>).map(([name, form]) => {
      const row = rows.get(ACTIONS.find((act) => act.name === name)!.row)!;
      return { page: form.page(row), post: generic(form.post(row)) };
    });
    const { browser } = who.admin;
    const found = new Map<string, string>();
    const visit = async (path: string) => {
      const page = await browser.open(path);
      expect(page.status, path).toBe(200);
      for (const [, method, formAction] of page.text.matchAll(/<form method="(\w+)" action="([^"]*)"/g)) {
        if (method!.toLowerCase() === 'post') found.set(generic(formAction!), path);
      }
      return page.text;
    };
    const pages = new Set(['/app', '/app/inbox', '/app/content', '/app/security', ...offered.map((o) => o.page)]);
    for (const path of pages) {
      const html = await visit(path);
      // And the confirmation pages its links lead to.
      for (const [, href] of html.matchAll(/href="(\/app\/[^"]+\/(?:launch|disconnect|delete|revoke|remove))"/g)) {
        await visit(href!);
      }
    }
    const known = new Set(offered.map((o) => o.post));
    const unknown = [...found]
      // The calendar's move form (action "") posts where its script points it: content.move to a day.
      .filter(([formAction]) => formAction !== '' && !known.has(formAction))
      .filter(([formAction]) => !FORMS_OUTSIDE_OPERATIONS.some(([pattern]) => pattern.test(formAction)))
      .map(([formAction, path]) => `${formAction} (on ${path})`);
    expect(unknown).toEqual([]);
  });
});
