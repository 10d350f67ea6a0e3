import type { ContentResource } from '../../../core/content/serialize.ts';
import { allows } from '../../../core/content/actions.ts';
import { isQueued, queueMark } from '../../../core/content/words.ts';
import { dayKey, localParts, parseLocalInput } from '../../../core/time-zones.ts';
import { html, type SafeHtml } from '../../../web/preview/html.ts';
import { VIEW_TOOLS, type ViewData } from '../view-data.ts';
import { actionBlock, doneMessage, intentCall } from './actions.ts';
import { platformNameIn, startView, statusWord, viewDataOf, whileBusy } from './common.ts';
import type { ToolResult } from './host.ts';

/**
 * ui://content/list: shows what the service_list_content call asked for (its input arrives through
 * ui/notifications/tool-input): status pending_review as the approval queue, a scheduled_from /
 * scheduled_to range as a month grid in the workspace's time zone, anything else as compact cards.
 */

const shell = startView('content-list');
const { host, root } = shell;

let input: Record<string, unknown> = {};
let items: ContentResource[] = [];
let data: ViewData | undefined;
let pickedDay: string | null = null;
/** Which month of a calendar range is shown: 0 is the month scheduled_from falls in. */
let monthOffset = 0;
const selected = new Set<string>();

type Mode = 'queue' | 'calendar' | 'cards';

const modeOf = (args: Record<string, unknown>): Mode =>
  args.status === 'pending_review'
    ? 'queue'
    : typeof args.scheduled_from === 'string' && typeof args.scheduled_to === 'string'
      ? 'calendar'
      : 'cards';

const excerpt = (text: string, length = 140): string => {
  const characters = [...text];
  return characters.length > length ? characters.slice(0, length - 1).join('') + '…' : text;
};

/** When the item goes (or went) out, as the workspace's clock shows it: "09:30". */
function timeOfDay(instant: string, timeZone: string): string {
  const parts = localParts(new Date(instant), timeZone);
  return `${String(parts.hour).padStart(2, '0')}:${String(parts.minute).padStart(2, '0')}`;
}

const whenOf = (item: ContentResource): string | null => item.published_at ?? item.scheduled_for;

function compactCard(item: ContentResource, options: { review?: boolean; select?: boolean; time?: string }): SafeHtml {
  const labelId = `caption-${item.id}`;
  return html`<article class="card" aria-labelledby="${labelId}">
    ${
      options.select
        ? html`<div class="select">
            <input
              type="checkbox"
              id="select-${item.id}"
              data-select="${item.id}"
              ${selected.has(item.id) ? html`checked` : ''}
            /><label for="select-${item.id}">Select</label>
          </div>`
        : ''
    }
    <p id="${labelId}">${options.time ? html`<strong>${options.time}</strong> ` : ''}${excerpt(item.caption)}</p>
    <p class="meta">
      <span class="status">${statusWord(item.status, item.publish_queued)}</span>
      ${item.target_platforms.map((platform) => platformNameIn(data, platform)).join(', ')}
    </p>
    ${options.review && data ? actionBlock(item, data, labelId) : ''}
  </article>`;
}

/** Whether the policy lets this person approve the item in some way: what selecting it for "Approve selected" needs. */
const approvable = (item: ContentResource): boolean =>
  (['approve_and_schedule', 'approve_and_publish_now', 'approve_only'] as const).some((action) =>
    allows(data?.allowed_actions[item.id], action),
  );

function renderQueue(): SafeHtml {
  const waiting = items.filter((item) => item.status === 'pending_review');
  return html`<h1>Approval queue</h1>
    <p class="meta">${waiting.length} waiting for review</p>
    ${
      items.some(approvable)
        ? html`<div class="actions">
            <button class="primary" data-action="approve-selected">Approve selected</button>
          </div>`
        : ''
    }
    <div class="cards">${items.map((item) => compactCard(item, { review: true, select: approvable(item) }))}</div>`;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** Months counted from year 0, to step through a range that spans several. */
const monthIndex = (p: { year: number; month: number }): number => p.year * 12 + p.month - 1;

function renderCalendar(timeZone: string): SafeHtml {
  const first = monthIndex(localParts(new Date(String(input.scheduled_from)), timeZone));
  // scheduled_to is exclusive: the month of the instant just before it is the last one.
  const last = Math.max(first, monthIndex(localParts(new Date(Date.parse(String(input.scheduled_to)) - 1), timeZone)));
  const shown = Math.min(last, first + monthOffset);
  const year = Math.floor(shown / 12);
  const month = (shown % 12) + 1;
  const byDay = new Map<string, ContentResource[]>();
  for (const item of items) {
    const when = whenOf(item);
    if (!when) continue;
    const key = dayKey(localParts(new Date(when), timeZone));
    byDay.set(key, [...(byDay.get(key) ?? []), item]);
  }
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  // Monday first: getUTCDay() of the 1st, 0 for Sunday.
  const lead = (new Date(Date.UTC(year, month - 1, 1)).getUTCDay() + 6) % 7;
  const cells: SafeHtml[] = [];
  for (let i = 0; i < lead; i++) cells.push(html`<span class="outside" aria-hidden="true"></span>`);
  for (let day = 1; day <= daysInMonth; day++) {
    const key = dayKey({ year, month, day });
    const posts = byDay.get(key) ?? [];
    const queued = posts.filter((item) => item.status !== 'approved' || isQueued(item.status, item.publish_queued));
    const waiting = posts.length - queued.length;
    // Named by its content (no aria-label): the visible day and counts are the start of each part of the
    // name, the words only a screen reader needs are hidden visually. Items that will not go out are
    // counted apart, in a dashed box, not by colour alone.
    cells.push(
      html`<button data-day="${key}" aria-pressed="${pickedDay === key ? 'true' : 'false'}">
        <span>${day}</span><span class="visually-hidden"> ${MONTHS[month - 1]}</span>${
          queued.length > 0
            ? html`<span class="posts"
                >${queued.length}<span class="visually-hidden"> ${queued.length === 1 ? ' post' : ' posts'}</span></span
              >`
            : ''
        }${
          waiting > 0
            ? html`<span class="mark waiting">${waiting}<span class="visually-hidden"> not scheduled</span></span>`
            : ''
        }
      </button>`,
    );
  }
  const dayItems = pickedDay ? (byDay.get(pickedDay) ?? []) : [];
  const picked = pickedDay ? parseLocalInput(`${pickedDay}T00:00`) : null;
  return html`<h1>Calendar: ${MONTHS[month - 1]} ${year}</h1>
    <p class="meta">Times in ${timeZone}</p>
    ${
      last > first
        ? html`<div class="actions">
            <button data-action="month" data-step="-1" ${shown === first ? html`disabled` : ''}>Previous month</button>
            <button data-action="month" data-step="1" ${shown === last ? html`disabled` : ''}>Next month</button>
          </div>`
        : ''
    }
    <div class="grid" role="group" aria-label="${MONTHS[month - 1]} ${year}">
      ${WEEKDAYS.map((name) => html`<span class="weekday" aria-hidden="true">${name}</span>`)} ${cells}
    </div>
    ${
      picked
        ? html`<section aria-labelledby="day-heading">
            <h2 id="day-heading">${picked.day} ${MONTHS[picked.month - 1]}</h2>
            ${dayItems.length === 0 ? html`<p class="meta">Nothing scheduled.</p>` : ''}
            <div class="cards">
              ${dayItems.map(
                (item) =>
                  html`<div>
                    <p>
                      <span class="mark ${isQueued(item.status, item.publish_queued) ? '' : 'waiting'}"
                        >${queueMark(item.status, item.publish_queued)}</span
                      >
                    </p>
                    ${compactCard(item, { time: timeOfDay(whenOf(item)!, timeZone), review: true })}
                  </div>`,
              )}
            </div>
          </section>`
        : html`<p class="meta">Pick a day to see its posts.</p>`
    }`;
}

function render(): void {
  if (!data) return;
  const mode = modeOf(input);
  const markup =
    mode === 'queue'
      ? renderQueue()
      : mode === 'calendar'
        ? renderCalendar(data.timezone)
        : html`<h1>Content</h1>
            <div class="cards">${items.map((item) => compactCard(item, {}))}</div>`;
  root.innerHTML = markup.value;
}

/** Replaces the item with the server's answer, so the view shows the state the server holds. */
function replaceItem(next: ContentResource): void {
  items = items.map((item) => (item.id === next.id ? next : item));
}

/** Takes in a call's answer: the items as the server holds them, and the policy's new verdicts on them. */
function takeIn(result: ToolResult): ContentResource[] {
  const answer = result.structuredContent as { object?: string; data?: unknown } | undefined;
  const changed =
    answer?.object === 'content'
      ? [answer as unknown as ContentResource]
      : answer?.object === 'review_outcomes'
        ? (answer.data as Array<{ ok: boolean; content?: ContentResource }>).flatMap((outcome) =>
            outcome.ok && outcome.content ? [outcome.content] : [],
          )
        : [];
  for (const next of changed) replaceItem(next);
  const verdicts = viewDataOf(result)?.allowed_actions;
  if (data && verdicts) data = { ...data, allowed_actions: { ...data.allowed_actions, ...verdicts } };
  return changed;
}

async function act(run: () => Promise<string>): Promise<void> {
  shell.showError('');
  try {
    const done = await whileBusy(root, run);
    render();
    shell.showNotice(done);
  } catch (error) {
    render();
    shell.showError((error as Error).message);
  }
}

root.addEventListener('change', (event) => {
  const box = event.target as HTMLInputElement;
  const id = box.dataset.select;
  if (!id) return;
  if (box.checked) selected.add(id);
  else selected.delete(id);
});

root.addEventListener('click', (event) => {
  const button = (event.target as HTMLElement).closest<HTMLButtonElement>('button');
  if (!button) return;
  if (button.dataset.day) {
    pickedDay = button.dataset.day;
    render();
    return;
  }
  if (button.dataset.intent && data) {
    const call = intentCall(button, root, data.timezone);
    if (typeof call === 'string') return shell.showError(call);
    const timeZone = data.timezone;
    void act(async () => {
      const [next] = takeIn(await host.callTool(call.name, call.args));
      selected.delete(call.args.id as string);
      if (next && button.dataset.intent === 'move' && next.scheduled_for) {
        pickedDay = dayKey(localParts(new Date(next.scheduled_for), timeZone));
      }
      return next ? doneMessage(button.dataset.intent, next, timeZone) : 'Done.';
    });
    return;
  }
  switch (button.dataset.action) {
    case 'month':
      monthOffset = Math.max(0, monthOffset + Number(button.dataset.step));
      pickedDay = null;
      render();
      break;
    case 'approve-selected':
      void act(async () => {
        const ids = items.filter((item) => selected.has(item.id)).map((item) => item.id);
        if (ids.length === 0) return 'Select the items to approve first.';
        // One call: each item is approved on its own (scheduled at its time when it has one), and each answered.
        const result = await host.callTool(VIEW_TOOLS.review_many, { ids, decision: 'approve' });
        takeIn(result);
        const outcomes = (
          result.structuredContent as { data: Array<{ id: string; ok: boolean; error?: { message: string } }> }
        ).data;
        for (const outcome of outcomes) if (outcome.ok) selected.delete(outcome.id);
        const done = outcomes.filter((outcome) => outcome.ok).length;
        const refused = outcomes.find((outcome) => !outcome.ok);
        const summary = done === 1 ? 'Approved 1 item.' : `Approved ${done} items.`;
        if (refused) throw new Error(`${summary} Not approved: ${refused.error?.message ?? 'refused'}`);
        return summary;
      });
      break;
  }
});

host.on('ui/notifications/tool-input', (params) => {
  input = (params.arguments as Record<string, unknown> | undefined) ?? {};
  monthOffset = 0;
  render();
});

host.on('ui/notifications/tool-result', (params) => {
  const result = params as ToolResult;
  const page = result.structuredContent as { data?: ContentResource[] } | undefined;
  items = page?.data ?? [];
  data = viewDataOf(result);
  if (!data) {
    root.replaceChildren();
    root.append(
      Object.assign(document.createElement('p'), { textContent: 'This result holds no content list to show.' }),
    );
    return;
  }
  render();
});
