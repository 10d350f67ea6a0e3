import type { ContentResource } from '../../../core/content/serialize.ts';
import { isWebUrl } from '../../../core/publishing/permalinks.ts';
import { html, raw } from '../../../web/preview/html.ts';
import { renderPreviewCard } from '../../../web/preview/platform-preview.ts';
import type { ViewData } from '../view-data.ts';
import { plainStatusWord } from '../../../core/content/words.ts';
import { actionBlock, doneMessage, intentCall } from './actions.ts';
import { formatInstant, platformNameIn, startView, statusWord, viewDataOf, whileBusy } from './common.ts';
import type { ToolResult } from './host.ts';

/**
 * ui://content/preview: one content item as each target platform will show it (the dashboard's
 * preview module), its status and history, each platform's publishing result, and the actions the
 * policy allows this credential (actions.ts).
 */

const shell = startView('content-preview');
const { host, root } = shell;

let item: ContentResource | undefined;
let data: ViewData | undefined;

function show(result: ToolResult): void {
  const meta = viewDataOf(result);
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  const content = structured?.object === 'content' ? (structured as unknown as ContentResource) : meta?.item?.content;
  if (!content || !meta) {
    root.replaceChildren();
    root.append(
      Object.assign(document.createElement('p'), { textContent: 'This result holds no content item to show.' }),
    );
    return;
  }
  item = content;
  data = meta;
  render();
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** A thumbnail from anywhere but the service's own origin would be refused by the sandbox: named instead. */
function keepOwnThumbnails(markup: ParentNode, origin: string): void {
  for (const image of markup.querySelectorAll<HTMLImageElement>('.media img')) {
    if (originOf(image.getAttribute('src') ?? '') === origin) continue;
    const name = document.createElement('span');
    name.className = 'external';
    name.textContent = image.alt;
    image.replaceWith(name);
  }
}

function render(): void {
  if (!item || !data) return;
  const { previews = [], history = [] } = data.item ?? {};
  const results = item.publish_results;
  const markup = html`<h1>Post preview</h1>
    <p>
      Status: <span class="status">${statusWord(item.status, item.publish_queued)}</span>${
        item.scheduled_for
          ? html` <span class="meta">for ${formatInstant(item.scheduled_for, data.timezone)} (${data.timezone})</span>`
          : ''
      }
    </p>
    ${item.review_note ? html`<p class="meta">Rejected because: ${item.review_note}</p>` : ''}
    ${actionBlock(item, data)}
    <h2>As each platform shows it</h2>
    <div class="cards">${raw(previews.map((preview) => renderPreviewCard(preview, { headingLevel: 3 })).join(''))}</div>
    ${
      results.length > 0
        ? html`<h2>Publishing results</h2>
            <ul class="results">
              ${results.map(
                (result) =>
                  html`<li>
                    <strong>${platformNameIn(data, result.platform)}</strong>:
                    ${result.success ? 'published' : html`<span class="problems">${result.error ?? 'failed'}</span>`}
                    ${result.notice ? html`<span class="meta">${result.notice}</span>` : ''}
                    ${
                      // Only an http(s) URL is offered to open, even one stored before the service checked them.
                      result.url && isWebUrl(result.url)
                        ? html`<button data-action="open" data-url="${result.url}">
                            View on ${platformNameIn(data, result.platform)}
                          </button>`
                        : ''
                    }
                  </li>`,
              )}
            </ul>`
        : ''
    }
    <h2>History</h2>
    ${
      history.length > 0
        ? html`<ol class="history">
            ${history.map(
              (entry) =>
                html`<li>
                  ${formatInstant(entry.at, data!.timezone)}: ${entry.from ? plainStatusWord(entry.from) : 'new'} →
                  ${plainStatusWord(entry.to)} by ${entry.by}${entry.note ? html` (“${entry.note}”)` : ''}
                </li>`,
            )}
          </ol>`
        : html`<p class="meta">No changes recorded yet.</p>`
    }`;
  // Parsed inert in a template first: an image there loads only once it is in the document, so one
  // from another origin is never even asked for.
  const template = document.createElement('template');
  template.innerHTML = markup.value;
  keepOwnThumbnails(template.content, data.media_origin);
  root.replaceChildren(template.content);
}

/** Calls the view-only tool behind a button; only a successful answer re-renders the item. */
async function act(button: HTMLButtonElement): Promise<void> {
  if (!item || !data) return;
  const call = intentCall(button, root, data.timezone);
  if (typeof call === 'string') return shell.showError(call);
  shell.showError('');
  try {
    const result = await whileBusy(root, () => host.callTool(call.name, call.args));
    show(result);
    if (item) shell.showNotice(doneMessage(button.dataset.intent, item, data.timezone));
  } catch (error) {
    shell.showError((error as Error).message);
  }
}

root.addEventListener('click', (event) => {
  const button = (event.target as HTMLElement).closest<HTMLButtonElement>('button[data-intent], button[data-action]');
  if (!button) return;
  if (button.dataset.intent) void act(button);
  if (button.dataset.action === 'open' && button.dataset.url && isWebUrl(button.dataset.url)) {
    host.openLink(button.dataset.url).catch((error: Error) => shell.showError(error.message));
  }
});

host.on('ui/notifications/tool-result', (result) => show(result as ToolResult));
