import type { PlatformPreviewData } from '../../core/content/review.ts';
import { html, type SafeHtml } from './html.ts';

/**
 * The per-platform preview card: data in (what core/content/review.ts says of one target platform),
 * HTML out. Pure: no DOM, no server, no I/O, so the dashboard renders it on the server and an MCP App
 * view can render the same module in the browser.
 */

/** How people name each platform. */
export const PLATFORM_NAMES: Record<string, string> = {
  twitter: 'X',
  linkedin: 'LinkedIn',
  instagram: 'Instagram',
  facebook: 'Facebook',
  tiktok: 'TikTok',
};

export const platformName = (platform: string): string => PLATFORM_NAMES[platform] ?? platform;

/** A platform's own message about the text's length, which the card says in its own words instead. */
const LENGTH_PROBLEM = /text is \d+ [a-z ]+; the limit is \d+/;

/** Every reason the card shows, the length first ("X: 297 of 280 characters"). */
export function cardProblems(preview: PlatformPreviewData): string[] {
  const name = platformName(preview.platform);
  const problems: string[] = [];
  const overLimit = preview.limit !== null && preview.length > preview.limit;
  if (overLimit) problems.push(`${name}: ${preview.length} of ${preview.limit} characters`);
  for (const problem of preview.problems) {
    if (overLimit && LENGTH_PROBLEM.test(problem)) continue;
    problems.push(problem);
  }
  return problems;
}

/** The text as the feed first shows it: cut at the fold, when the platform folds and the text is longer. */
function foldedText(preview: PlatformPreviewData): SafeHtml {
  const characters = [...preview.text];
  if (preview.foldAt === null || characters.length <= preview.foldAt) return html`${preview.text}`;
  const shown = characters.slice(0, preview.foldAt).join('');
  const hidden = characters.slice(preview.foldAt).join('');
  return html`${shown}<span class="fold" aria-hidden="true">…more</span><span class="folded">${hidden}</span>`;
}

export function renderPreviewCard(preview: PlatformPreviewData, options: { headingLevel?: 3 | 4 } = {}): string {
  const name = platformName(preview.platform);
  const problems = cardProblems(preview);
  const over = preview.limit !== null && preview.length > preview.limit;
  const heading = options.headingLevel === 4 ? html`<h4>${name}</h4>` : html`<h3>${name}</h3>`;
  const count =
    preview.limit === null
      ? html`<p class="count">${preview.length} ${preview.unit}</p>`
      : html`<p class="count${over ? ' over' : ''}">${preview.length} of ${preview.limit} ${preview.unit}</p>`;
  const fold =
    preview.foldAt !== null && [...preview.text].length > preview.foldAt
      ? html`<p class="hint">${name} shows the first ${preview.foldAt} characters, then “…more”.</p>`
      : '';
  const tags =
    preview.hashtags.length > 0
      ? html`<ul class="tags" aria-label="Hashtags">
          ${preview.hashtags.map((tag) => html`<li>#${tag}</li>`)}
        </ul>`
      : '';
  const media =
    preview.mediaUrls.length > 0
      ? html`<ol class="media" aria-label="Media, in order">
          ${preview.mediaUrls.map(
            (url, i) =>
              html`<li>
                <img
                  src="${url}"
                  alt="Media ${i + 1} of ${preview.mediaUrls.length}"
                  loading="lazy"
                  width="96"
                  height="96"
                />
              </li>`,
          )}
        </ol>`
      : '';
  const verdict =
    problems.length > 0
      ? html`<ul class="problems" aria-label="${name} problems">
          ${problems.map((problem) => html`<li>${problem}</li>`)}
        </ul>`
      : html`<p class="ready">Ready for ${name}</p>`;
  return html`<article
    class="card card-${preview.platform}${problems.length > 0 ? ' has-problems' : ''}"
    aria-label="${name} preview"
  >
    ${heading}${count}
    <div class="text">${foldedText(preview)}</div>
    ${fold}${tags}${media}${verdict}
  </article>`.value;
}
