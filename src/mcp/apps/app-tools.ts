import type { ToolDescriptor } from '../../../tools/index.ts';
import {
  approveContent,
  moveContent,
  publishContentNow,
  rejectContent,
  reviewContentMany,
  scheduleContent,
} from '../../core/content/intents.ts';
import type { Operation } from '../../core/operation.ts';

/**
 * The view-only tools (MCP Apps, `_meta.ui.visibility: ["app"]`): what the views' buttons call, one
 * to one with the content intents. They are never in tools/list, so the model sees exactly the
 * twenty tools of the contract whatever its host does with `_meta.ui` (docs/decisions.md, "View-only
 * tools"); a tools/call naming one is served on every connection that serves service_update_content,
 * and the policy judges each call as it judges the dashboard's (role, scope, approver rule, state).
 */
export interface AppTool {
  name: `app_${string}`;
  title: string;
  operation: Operation;
  /** A view-only tool never takes an idempotency key: a person presses a button once. */
  idempotencyKey?: undefined;
}

export const APP_TOOLS: readonly AppTool[] = [
  {
    name: 'app_approve_content',
    title: 'Approve (then schedule, publish now, or nothing more)',
    operation: approveContent,
  },
  { name: 'app_reject_content', title: 'Reject with a reason', operation: rejectContent },
  { name: 'app_schedule_content', title: 'Schedule an approved item', operation: scheduleContent },
  { name: 'app_publish_content_now', title: 'Publish an approved item now', operation: publishContentNow },
  { name: 'app_move_content', title: 'Move a scheduled item to another day', operation: moveContent },
  { name: 'app_review_content_many', title: 'Approve or reject several items', operation: reviewContentMany },
];

/** The tool the view-only tools come with: a connection that does not serve it (read-only, a narrowed selection) serves none. */
const BASE_TOOL = 'service_update_content';

/** The view-only tools a connection serving `tools` serves. */
export const appToolsFor = (tools: readonly Pick<ToolDescriptor, 'name'>[]): readonly AppTool[] =>
  tools.some((tool) => tool.name === BASE_TOOL) ? APP_TOOLS : [];

export const isAppToolName = (name: string): boolean => APP_TOOLS.some((tool) => tool.name === name);
