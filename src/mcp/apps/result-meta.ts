import type { ToolDescriptor } from '../../../tools/index.ts';
import type { ServiceContext } from '../../core/context.ts';
import { CONTENT_ACTIONS, type ActionVerdict } from '../../core/content/actions.ts';
import { contentHistoryOf } from '../../core/content/history.ts';
import { getContentInWorkspace } from '../../core/content/operations.ts';
import { contentPolicy, subjectOf, type PolicyRow } from '../../core/content/policy.ts';
import { previewsOf } from '../../core/content/review.ts';
import { toContentResource, type ContentResource } from '../../core/content/serialize.ts';
import { PLATFORM_NAMES } from '../../core/platforms/registry.ts';
import { appToolsFor, isAppToolName } from './app-tools.ts';
import type { ViewData, ViewItem } from './view-data.ts';
import { PREVIEW_VIEW_URI, TOOL_VIEWS } from './views.ts';

/** The content item a preview result is about: the item itself, or the item a publish dry run judged. */
function itemIdOf(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const { object, id, content_id: contentId } = result as Record<string, unknown>;
  if (object === 'content' && typeof id === 'string') return id;
  if (object === 'publish_preview' && typeof contentId === 'string') return contentId;
  return undefined;
}

/** The items a result holds: one item, a list page's, or the ones a review of many changed. */
function itemsOf(result: unknown): ContentResource[] {
  if (typeof result !== 'object' || result === null) return [];
  const answer = result as { object?: unknown; data?: unknown };
  if (answer.object === 'content') return [answer as ContentResource];
  if (answer.object === 'list' && Array.isArray(answer.data)) return answer.data as ContentResource[];
  if (answer.object === 'review_outcomes' && Array.isArray(answer.data)) {
    return (answer.data as Array<{ ok: boolean; content?: ContentResource }>).flatMap((outcome) =>
      outcome.ok && outcome.content ? [outcome.content] : [],
    );
  }
  return [];
}

/** What the policy reads of an item, from the item as every door answers it. */
const policyRowOf = (item: ContentResource): PolicyRow => ({
  status: item.status,
  publishQueued: item.publish_queued,
  scheduledFor: item.scheduled_for ? new Date(item.scheduled_for) : null,
  targetPlatforms: item.target_platforms,
  createdByType: item.created_by?.type ?? null,
  createdById: item.created_by?.id ?? null,
});

/** What a connection without the view-only tools answers for every action. */
const READ_ONLY_VERDICTS: ActionVerdict[] = CONTENT_ACTIONS.map((action) => ({
  action,
  allowed: false,
  code: 'insufficient_scope',
  reason: 'This connection only reads: connect to /mcp with a credential that may write to review here.',
}));

async function viewItem(ctx: ServiceContext, id: string, withContent: boolean): Promise<ViewItem> {
  const row = await getContentInWorkspace(ctx.db, ctx.workspace.id, id);
  return {
    ...(withContent ? { content: toContentResource(row) } : {}),
    previews: (await previewsOf(ctx, [row])).get(row.id)!,
    history: (await contentHistoryOf(ctx.db, ctx.workspace.id, row.id)).map((entry) => ({
      ...entry,
      at: entry.at.toISOString(),
    })),
  };
}

/**
 * The result's `_meta` for a tool that opens a view, or for a view-only tool (see ViewData), else
 * undefined. `tools` are the tools this connection serves (already narrowed by /mcp/readonly,
 * X-MCP-Tools and the token's scopes): without service_update_content it serves no view-only tool,
 * and every action is refused; otherwise the content policy says, item by item.
 */
export async function viewResultMeta(
  ctx: ServiceContext,
  tool: { name: string },
  tools: readonly ToolDescriptor[],
  result: unknown,
): Promise<{ ui: ViewData } | undefined> {
  const view = TOOL_VIEWS[tool.name] ?? (isAppToolName(tool.name) ? PREVIEW_VIEW_URI : undefined);
  if (!view) return undefined;
  const id = view === PREVIEW_VIEW_URI ? itemIdOf(result) : undefined;
  const item = id ? await viewItem(ctx, id, (result as { object: string }).object !== 'content') : undefined;
  const items = item?.content ? [item.content] : itemsOf(result);
  const served = appToolsFor(tools).length > 0;
  const subject = subjectOf(ctx);
  const data: ViewData = {
    allowed_actions: Object.fromEntries(
      items.map((each) => [each.id, served ? contentPolicy(subject, policyRowOf(each)) : READ_ONLY_VERDICTS]),
    ),
    timezone: ctx.workspace.timezone,
    media_origin: new URL(ctx.config.publicBaseUrl).origin,
    platform_names: PLATFORM_NAMES,
  };
  if (item) data.item = item;
  return { ui: data };
}
