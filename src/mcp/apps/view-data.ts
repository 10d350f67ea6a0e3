import type { ActionVerdict } from '../../core/content/actions.ts';
import type { ContentResource } from '../../core/content/serialize.ts';
import type { PlatformPreviewData } from '../../core/content/review.ts';

/**
 * What a tool result carries for a view, beside its unchanged `content` and `structuredContent`: the
 * result's `_meta.ui`. A host without the extension ignores it and the model never sees it; a view
 * reads it from `ui/notifications/tool-result` (and from the results of the calls it makes itself).
 * Shared by the server (which writes it) and the views (which read it), so both agree on its shape.
 */
export interface ViewData {
  /**
   * The content policy's verdict on every action, per item of the result (its id): allowed, or
   * refused with a code and a reason, for this credential over this connection (under /mcp/readonly
   * every action is refused). The views show a button only for an allowed action and call its
   * view-only tool (VIEW_TOOLS); the server still judges every call the same way.
   */
  allowed_actions: Record<string, ActionVerdict[]>;
  /** The workspace's IANA time zone: calendars and times are shown in it, never in the browser's. */
  timezone: string;
  /** The service's own origin (PUBLIC_BASE_URL), the only one a view loads thumbnails from. */
  media_origin: string;
  /** How people name each platform id, from the platform registry ("twitter": "X"). */
  platform_names: Record<string, string>;
  /** For the preview view: the item as each platform will show it, and its history. */
  item?: ViewItem;
}

export interface ViewItem {
  /** The item itself, when structuredContent is not it (a publish dry run answers a publish_preview). */
  content?: ContentResource;
  previews: PlatformPreviewData[];
  history: ViewHistoryEntry[];
}

export interface ViewHistoryEntry {
  action: string;
  from: string | null;
  to: string;
  by: string;
  note: string | null;
  at: string;
}

/** The view-only tool behind each of the views' buttons (see src/mcp/apps/app-tools.ts). */
export const VIEW_TOOLS = {
  approve: 'app_approve_content',
  reject: 'app_reject_content',
  schedule: 'app_schedule_content',
  publish_now: 'app_publish_content_now',
  move: 'app_move_content',
  review_many: 'app_review_content_many',
} as const;
