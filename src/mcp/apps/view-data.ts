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
   * Whether this credential, over this connection, may approve, reject and reschedule: false under
   * /mcp/readonly, for a token without the write scope, and for a person whose role cannot approve.
   * The view shows no action buttons then; the server still checks every call.
   */
  may_review: boolean;
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
