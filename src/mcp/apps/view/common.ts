import { localParts } from '../../../core/time-zones.ts';
import type { ViewData } from '../view-data.ts';
import { HostConnection, type HostContext, type ToolResult } from './host.ts';

/**
 * What both views share: the handshake, the host's theme, size reports, the error line and the
 * styles. Markup is built with the preview module's escaping `html` template, never by hand.
 */

const STYLES = `
:root{color-scheme:light;--bg:var(--color-background-primary,#ffffff);--bg2:var(--color-background-secondary,#f3f4f6);
--fg:var(--color-text-primary,#111827);--fg2:var(--color-text-secondary,#4b5563);--line:var(--color-border-primary,#d1d5db);
--accent:#1d4ed8;--accent-fg:#ffffff;--bad:#b91c1c;--good:#166534;font-family:var(--font-sans,system-ui,-apple-system,"Segoe UI",sans-serif)}
:root[data-theme=dark]{color-scheme:dark;--bg:var(--color-background-primary,#111827);--bg2:var(--color-background-secondary,#1f2937);
--fg:var(--color-text-primary,#f9fafb);--fg2:var(--color-text-secondary,#d1d5db);--line:var(--color-border-primary,#4b5563);
--accent:#93c5fd;--accent-fg:#111827;--bad:#fca5a5;--good:#86efac}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font-size:14px;line-height:1.45}
main{padding:12px;max-width:100%}h1{font-size:1.1rem;margin:0 0 8px}h2{font-size:1rem;margin:12px 0 6px}
h3,h4{font-size:.95rem;margin:0 0 4px}p{margin:4px 0}
.cards{display:grid;gap:10px;grid-template-columns:repeat(auto-fill,minmax(min(100%,300px),1fr))}
.card{border:1px solid var(--line);border-radius:8px;padding:10px;background:var(--bg);min-width:0}
.card .text{white-space:pre-wrap;overflow-wrap:anywhere;margin:6px 0}.folded{display:none}.fold{color:var(--fg2)}
.count,.hint,.meta{color:var(--fg2);font-size:.85rem}.count.over,.problems{color:var(--bad)}.ready{color:var(--good)}
.problems{padding-left:18px;margin:4px 0}.tags,.media{list-style:none;padding:0;margin:4px 0;display:flex;flex-wrap:wrap;gap:6px}
.media img,.media .external{width:72px;height:72px;object-fit:cover;border-radius:6px;border:1px solid var(--line);display:flex;align-items:center;justify-content:center;font-size:.7rem;text-align:center;color:var(--fg2)}.media .alt{display:block;max-width:72px;font-size:.7rem;color:var(--fg2);overflow-wrap:anywhere}
.status{display:inline-block;border:1px solid var(--line);border-radius:999px;padding:0 8px;font-size:.8rem;background:var(--bg2)}
button,.button{font:inherit;border-radius:6px;border:1px solid var(--line);background:var(--bg2);color:var(--fg);padding:6px 12px;cursor:pointer;min-height:32px}
button.primary{background:var(--accent);color:var(--accent-fg);border-color:var(--accent)}button:disabled{opacity:.6;cursor:default}
.actions{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:8px 0}
textarea,input{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:6px;max-width:100%}
textarea{width:100%;min-height:56px}label{display:block;font-size:.85rem;margin:4px 0 2px}
.alert{border:1px solid var(--bad);color:var(--bad);border-radius:6px;padding:8px;margin:8px 0}
.notice{border:1px solid var(--good);color:var(--good);border-radius:6px;padding:8px;margin:8px 0}
.history{padding-left:18px;margin:4px 0}.results{list-style:none;padding:0}
.grid{display:grid;grid-template-columns:repeat(7,minmax(0,1fr));gap:2px}.grid .weekday{font-size:.75rem;color:var(--fg2);text-align:center}
.grid button{padding:4px 2px;min-height:44px;display:flex;flex-direction:column;align-items:center;font-size:.85rem}
.grid button[aria-pressed=true]{outline:2px solid var(--accent)}.grid .posts{font-size:.7rem;color:var(--accent)}.grid .waiting{font-size:.7rem;color:var(--bad)}
.mark{display:inline-block;border:1px solid var(--line);border-radius:4px;padding:0 4px;font-size:.75rem}.mark.waiting{border-style:dashed;color:var(--bad)}.refusal{color:var(--bad)}
.grid .outside{visibility:hidden}.select{display:flex;align-items:center;gap:6px}.select input{width:18px;height:18px}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;

export interface ViewShell {
  host: HostConnection;
  root: HTMLElement;
  /** Shows the API's message of a failed call (an empty message clears it). */
  showError(message: string): void;
  /** Says what a call did. */
  showNotice(message: string): void;
}

function applyHostContext(context: HostContext): void {
  if (context.theme) document.documentElement.dataset.theme = context.theme;
  for (const [name, value] of Object.entries(context.styles?.variables ?? {})) {
    if (name.startsWith('--') && typeof value === 'string') document.documentElement.style.setProperty(name, value);
  }
}

/** Reports the document's size to the host whenever it changes, so the host sizes the frame to fit. */
function reportSize(host: HostConnection): void {
  let last = '';
  const send = () => {
    const width = Math.ceil(document.documentElement.scrollWidth);
    const height = Math.ceil(document.documentElement.scrollHeight);
    const key = `${width}x${height}`;
    if (key === last) return;
    last = key;
    host.notify('ui/notifications/size-changed', { width, height });
  };
  new ResizeObserver(send).observe(document.documentElement);
  send();
}

export function startView(name: string): ViewShell {
  const style = document.createElement('style');
  style.textContent = STYLES;
  document.head.append(style);
  const root = document.getElementById('app')!;
  const messages = document.createElement('div');
  messages.setAttribute('role', 'status');
  root.before(messages);
  const host = new HostConnection();
  host.on('ui/notifications/host-context-changed', (context) => applyHostContext(context as HostContext));
  const show = (kind: 'alert' | 'notice', message: string) => {
    messages.replaceChildren();
    if (!message) return;
    const line = document.createElement('p');
    line.className = kind;
    line.textContent = message;
    messages.append(line);
  };
  const shell: ViewShell = {
    host,
    root,
    showError: (message) => show('alert', message),
    showNotice: (message) => show('notice', message),
  };
  // Handlers first: a host may send the tool's input and result right after the handshake.
  queueMicrotask(async () => {
    try {
      applyHostContext(await host.initialize({ name, version: '0.1.0' }));
    } catch (error) {
      shell.showError((error as Error).message);
    }
    reportSize(host);
  });
  return shell;
}

/** The `_meta.ui` a result carries for the view (see view-data.ts), if any. */
export const viewDataOf = (result: ToolResult): ViewData | undefined =>
  (result._meta?.ui as ViewData | undefined) ?? undefined;

/** The status words the dashboard shows too (one module for both). */
export { statusWord } from '../../../core/content/words.ts';

/** Calls `run` with every button under `root` disabled, so a click cannot send a call twice. */
export async function whileBusy<T>(root: HTMLElement, run: () => Promise<T>): Promise<T> {
  const buttons = [...root.querySelectorAll('button')].filter((button) => !button.disabled);
  for (const button of buttons) button.disabled = true;
  try {
    return await run();
  } finally {
    for (const button of buttons) if (button.isConnected) button.disabled = false;
  }
}

const MONTH_ABBREVIATIONS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "15 Dec 2026, 09:30": an instant as the workspace's clock shows it (never the browser's zone). */
export function formatInstant(iso: string, timeZone: string): string {
  const p = localParts(new Date(iso), timeZone);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${p.day} ${MONTH_ABBREVIATIONS[p.month - 1]} ${p.year}, ${pad(p.hour)}:${pad(p.minute)}`;
}

/** A platform as people name it, by the registry's names the server sent (ViewData), else its id. */
export const platformNameIn = (data: ViewData | undefined, platform: string): string =>
  data?.platform_names?.[platform] ?? platform;
