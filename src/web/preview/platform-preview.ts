import type { PlatformPreviewData } from '../../core/content/review.ts';
import type { PostProblem } from '../../core/platforms/problems.ts';
import { html, type SafeHtml } from './html.ts';

/**
 * The per-platform preview card: data in (what core/content/review.ts says of one target platform),
 * HTML out. Pure: no DOM, no server, no I/O, so the dashboard renders it on the server and an MCP App
 * view can render the same module in the browser.
 */

/** The card's platform as people name it: the registry's name the data carries, else (a platform it does not know) its id. */
const nameOf = (preview: PlatformPreviewData): string => preview.name ?? preview.platform;

/**
 * One problem in the card's own words, from its code and numbers (core's sentence is for the API and
 * names platforms by id); a code this module does not know yet shows core's sentence as it is.
 */
function problemWords(problem: PostProblem, name: string): string {
  const { measure, limit } = problem;
  switch (problem.code) {
    case 'unknown_platform':
      return `${name} is not a platform this service knows.`;
    case 'account_missing':
      return `No connected ${name} account in this workspace; connect one before publishing to ${name}.`;
    case 'account_needs_reconnect':
      return `The ${name} account @${problem.username} must be reconnected: ${name} no longer accepts its tokens. Connect it again, then publish again.`;
    case 'account_inactive':
      return `The ${name} account @${problem.username} is inactive; reconnect it before publishing to ${name}.`;
    case 'text_too_long':
      return `${name}: ${measure} of ${limit} characters`;
    case 'text_too_many_bytes':
      return `${name}: ${measure} of ${limit} UTF-8 bytes`;
    case 'too_many_links':
      return `${name}: ${measure} links, ${limit} at most`;
    case 'too_many_hashtags':
      return `${name}: ${measure} hashtags, ${limit} at most`;
    case 'too_many_media':
      return `${name}: ${measure} media items, ${limit} at most`;
    case 'video_refused':
      return `${name} takes images only: publish the video elsewhere`;
    case 'too_few_media_for_type':
      return `${name}: a ${problem.content_type} post needs at least ${limit} media items, this one has ${measure}`;
    case 'media_required':
      return `${name} needs at least 1 media item`;
    case 'check_failed':
      return `${name}: the post could not be checked (${problem.detail})`;
    default:
      return problem.message;
  }
}

/** Every reason the card shows, in its own words ("X: 297 of 280 characters"), the platform by its name. */
export function cardProblems(preview: PlatformPreviewData): string[] {
  const name = nameOf(preview);
  return preview.problems.map((problem) => problemWords(problem, name));
}

/**
 * Where the feed cuts the text, as a UTF-16 index: after `foldAt` code points, or null when the
 * platform shows it all. Counted without spreading the text into an array (the inbox folds hundreds).
 */
export function foldIndex(text: string, foldAt: number | null): number | null {
  if (foldAt === null || text.length <= foldAt) return null;
  let index = 0;
  for (let points = 0; points < foldAt; points++) {
    if (index >= text.length) return null;
    const code = text.charCodeAt(index);
    index += code >= 0xd800 && code <= 0xdbff && index + 1 < text.length ? 2 : 1;
  }
  return index < text.length ? index : null;
}

/**
 * The text as the feed first shows it, then "…more"; the rest is one click away, as in the feed, or
 * left out where the whole text is already on the page (`withRest: false`).
 */
function foldedText(text: string, cut: number | null, withRest: boolean): SafeHtml {
  if (cut === null) return html`<p class="text">${text}</p>`;
  if (!withRest) return html`<p class="text">${text.slice(0, cut)}<span class="fold">…more</span></p>`;
  return html`<p class="text">${text.slice(0, cut)}<span class="fold">…more</span></p>
    <details class="rest">
      <summary>Text after “…more”</summary>
      <p class="text">${text.slice(cut)}</p>
    </details>`;
}

/** The origin of `url`, or null when it is not an absolute http(s) URL. */
function httpOrigin(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : null;
  } catch {
    return null;
  }
}

/**
 * Media thumbnails, in order, each with the alt text it goes out with: as the image's own `alt` (what a
 * screen reader on the platform will say) and shown under it for everyone else. Given `ownOrigin` (the
 * service's), a file kept anywhere else is shown as a link naming its host instead of an image: a page
 * that loaded it would tell that host who opened the post, and when. Without it every file is a
 * thumbnail (the MCP view sorts them itself).
 */
function mediaList(urls: readonly string[], altTexts: ReadonlyArray<string | null>, ownOrigin?: string): SafeHtml | '' {
  if (urls.length === 0) return '';
  const item = (url: string, i: number) => {
    const label = `Media ${i + 1} of ${urls.length}`;
    const alt = altTexts[i] ?? null;
    const altLine =
      alt === null
        ? html`<small class="alt missing" aria-hidden="true">No alt text</small>`
        : html`<small class="alt" aria-hidden="true">Alt: ${alt}</small>`;
    const origin = httpOrigin(url);
    if (ownOrigin === undefined || origin === ownOrigin) {
      return html`<li>
        <img src="${url}" alt="${alt ?? `${label}, no alt text`}" loading="lazy" width="96" height="96" />
        ${altLine}
      </li>`;
    }
    if (origin === null) return html`<li><span class="external">${label} (not a web address)</span> ${altLine}</li>`;
    return html`<li>
      <a class="external" href="${url}" rel="noopener noreferrer" target="_blank">${label} (on ${new URL(url).host})</a>
      ${altLine}
    </li>`;
  };
  return html`<ol class="media" aria-label="Media, in order">
    ${urls.map(item)}
  </ol>`;
}

/** The hashtags the platform reads in the text, in order. */
function hashtagLine(hashtags: readonly string[]): SafeHtml | '' {
  if (hashtags.length === 0) return '';
  return html`<p class="tags">Hashtags: ${hashtags.map((tag) => `#${tag}`).join(' ')}</p>`;
}

/** The hashtags of an item shown once, above cards that then leave them out (`showHashtags: false`). */
export function renderHashtagLine(hashtags: readonly string[]): string {
  const line = hashtagLine(hashtags);
  return line === '' ? '' : line.value;
}

/**
 * The media of an item shown once, above cards that then leave them out (`showMedia: false`): a list
 * of many items need not show the same thumbnails once per platform.
 */
export function renderMediaStrip(
  urls: readonly string[],
  altTexts: ReadonlyArray<string | null>,
  ownOrigin?: string,
): string {
  const list = mediaList(urls, altTexts, ownOrigin);
  return list === '' ? '' : list.value;
}

export interface PreviewCardOptions {
  headingLevel?: 3 | 4;
  /** False when the same media are shown once for every card (renderMediaStrip). */
  showMedia?: boolean;
  /** False when the same hashtags are shown once for every card (renderHashtagLine). */
  showHashtags?: boolean;
  /**
   * For lists that show each item's whole caption above its cards: the text stops at the fold, without
   * the text after "…more" or the sentence explaining the fold, which would repeat the caption once
   * more per platform. The item's own page shows whole cards.
   */
  compact?: boolean;
  /** The service's origin: media kept elsewhere are links, not thumbnails (see mediaList). */
  ownOrigin?: string;
}

export function renderPreviewCard(preview: PlatformPreviewData, options: PreviewCardOptions = {}): string {
  const name = nameOf(preview);
  const problems = cardProblems(preview);
  const over = preview.limit !== null && preview.length > preview.limit;
  const cut = foldIndex(preview.text, preview.foldAt);
  const heading = options.headingLevel === 4 ? html`<h4>${name}</h4>` : html`<h3>${name}</h3>`;
  const count =
    preview.limit === null
      ? html`<p class="count">${preview.length} ${preview.unit}</p>`
      : html`<p class="count${over ? ' over' : ''}">${preview.length} of ${preview.limit} ${preview.unit}</p>`;
  const fold =
    cut !== null && !options.compact
      ? html`<p class="hint">${name} shows the first ${preview.foldAt} characters, then “…more”.</p>`
      : '';
  const tags = options.showHashtags === false ? '' : hashtagLine(preview.hashtags);
  const media =
    options.showMedia === false ? '' : mediaList(preview.mediaUrls, preview.mediaAltText, options.ownOrigin);
  const verdict =
    problems.length > 0
      ? html`<p class="problems-title">${name} would refuse this post:</p>
          <ul class="problems" aria-label="${name} problems">
            ${problems.map((problem) => html`<li>${problem}</li>`)}
          </ul>`
      : html`<p class="ready">Ready for ${name}</p>`;
  return html`<article
    class="card card-${preview.platform}${problems.length > 0 ? ' has-problems' : ''}"
    aria-label="${name} preview"
  >
    ${heading}${count}${foldedText(preview.text, cut, !options.compact)}${fold}${tags}${media}${verdict}
  </article>`.value;
}
