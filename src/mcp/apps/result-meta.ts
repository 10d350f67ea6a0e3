import type { ToolDescriptor } from '../../../tools/index.ts';
import type { ServiceContext } from '../../core/context.ts';
import { contentHistoryOf } from '../../core/content/history.ts';
import { getContentInWorkspace } from '../../core/content/operations.ts';
import { previewsOf } from '../../core/content/review.ts';
import { toContentResource } from '../../core/content/serialize.ts';
import { assertContentChange } from '../../core/people/roles.ts';
import { PLATFORM_NAMES } from '../../core/platforms/registry.ts';
import type { ViewData, ViewItem } from './view-data.ts';
import { PREVIEW_VIEW_URI, TOOL_VIEWS } from './views.ts';

/** The tool a view calls to approve, reject and reschedule. */
const REVIEW_TOOL = 'service_update_content';

/** The core's own rule, asked rather than restated: may this principal move an item in review to approved? */
function principalMayApprove(ctx: ServiceContext): boolean {
  try {
    assertContentChange(ctx.principal, { from: 'pending_review', to: 'approved', action: 'Approving' });
    return true;
  } catch {
    return false;
  }
}

/** The content item a preview result is about: the item itself, or the item a publish dry run judged. */
function itemIdOf(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const { object, id, content_id: contentId } = result as Record<string, unknown>;
  if (object === 'content' && typeof id === 'string') return id;
  if (object === 'publish_preview' && typeof contentId === 'string') return contentId;
  return undefined;
}

function viewItem(ctx: ServiceContext, id: string, withContent: boolean): ViewItem {
  const row = getContentInWorkspace(ctx.db, ctx.workspace.id, id);
  return {
    ...(withContent ? { content: toContentResource(row) } : {}),
    previews: previewsOf(ctx, [row]).get(row.id)!,
    history: contentHistoryOf(ctx.db, ctx.workspace.id, row.id).map((entry) => ({
      ...entry,
      at: entry.at.toISOString(),
    })),
  };
}

/**
 * The result's `_meta` for a tool that opens a view (see ViewData), or undefined for any other tool.
 * `tools` are the tools this connection serves (already narrowed by /mcp/readonly, X-MCP-Tools and the
 * token's scopes), so the view offers an action exactly when the call behind it would be served.
 */
export function viewResultMeta(
  ctx: ServiceContext,
  tool: ToolDescriptor,
  tools: readonly ToolDescriptor[],
  result: unknown,
): { ui: ViewData } | undefined {
  const view = TOOL_VIEWS[tool.name];
  if (!view) return undefined;
  const data: ViewData = {
    may_review: tools.some((served) => served.name === REVIEW_TOOL) && principalMayApprove(ctx),
    timezone: ctx.workspace.timezone,
    media_origin: new URL(ctx.config.publicBaseUrl).origin,
    platform_names: PLATFORM_NAMES,
  };
  const id = view === PREVIEW_VIEW_URI ? itemIdOf(result) : undefined;
  if (id) data.item = viewItem(ctx, id, (result as { object: string }).object !== 'content');
  return { ui: data };
}
