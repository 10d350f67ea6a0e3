import { MAX_TOPIC_LENGTH } from '../../../content/schemas.ts';
import { xWeightBounds, xWeightedLength } from '../../../platforms/rules.ts';
import { postText } from '../../../publishing/post.ts';
import type { Draft } from '../../generator.ts';
import { capitalise, clip } from './brand-material.ts';
import { fitsEveryPlatform, linkAwareBounds, X_LIMIT } from './length.ts';
import type { Plan, Topic } from './plan.ts';

// Pieces of a caption, and fitting them into a draft every platform accepts.

export interface Piece {
  text: string;
  /** Dropped first when the post is too long: 1 optional, 2 wanted, 3 essential. */
  keep: number;
  /** What comes before it: a space, a line break or a blank line. */
  before: string;
  /** A call to action or question that closes a template's structure. */
  closing: boolean;
  /** Bounds on the text's weight on X (see `xWeightBounds`), so fitting rarely renders or parses. */
  upper: number;
  lower: number;
}

export function makePiece(plan: Plan, text: string, keep: number, before: string, closing = false): Piece {
  // Most pieces are plain ASCII sentences with nothing a link could start from: X counts each
  // character once, and no character-by-character pass is needed.
  if (!NON_ASCII.test(text) && !LINK_START.test(text))
    return { text, keep, before, closing, upper: text.length, lower: text.length };
  const normalised = NON_ASCII.test(text) ? text.normalize('NFC') : text;
  const { upper, lower } = linkAwareBounds(normalised, plan.link);
  return { text: normalised, keep, before, closing, upper, lower };
}

/** Where `xWeightBounds` would suspect a link. */
const LINK_START = /[.。．｡][\p{L}\p{N}]|[.。．｡][^\p{ASCII}]|:\//u;

/** Placeholders filled from `vars`, without a replacer callback (see the note above `Piece`). */
export function fill(template: string, vars: Record<string, string>): string {
  let open = template.indexOf('{');
  if (open < 0) return template;
  let text = '';
  let from = 0;
  while (open >= 0) {
    const close = template.indexOf('}', open);
    if (close < 0) break;
    text += template.slice(from, open) + (vars[template.slice(open + 1, close)] ?? '');
    from = close + 1;
    open = template.indexOf('{', from);
  }
  return text + template.slice(from);
}

function render(pieces: readonly Piece[]): string {
  let text = '';
  for (const piece of pieces) {
    if (text.length === 0) text = piece.text;
    // After a list or a link, a sentence on the same line would read as part of it.
    else text += piece.before === ' ' && !SENTENCE_END.test(text) ? `\n\n${piece.text}` : piece.before + piece.text;
  }
  return text;
}

const SENTENCE_END = /[.!?:)\p{Extended_Pictographic}\uFE0F]$/u;
const NON_ASCII = /[^\p{ASCII}]/u;

/**
 * The pieces and hashtags as a draft that fits every platform and says nothing banned, dropping
 * optional pieces first, then hashtags down to the fewest the brand wants, then wanted pieces
 * (unless `keepWanted`), then the remaining hashtags; null when even the essentials do not fit or
 * a ban slipped in across a join.
 */
export function fitDraft(
  plan: Plan,
  pieces: Piece[],
  hashtags: string[],
  topicLabel: string | null,
  keepWanted = false,
): Draft | null {
  const parts: Piece[] = [];
  for (const piece of pieces) if (piece.text.trim().length > 0) parts.push(piece);
  if (parts.length === 0) return null;
  const tags = hashtags;
  // The fewest the brand asked for (or the default two) go only after every wanted piece.
  const tagFloor = Math.min(tags.length, plan.tagRule.count[0]);
  const tagWeights: { upper: number; lower: number }[] = [];
  for (const tag of tags) tagWeights.push(xWeightBounds(tag));
  for (;;) {
    // The pieces are NFC and separated by whitespace, so their bounds add up; a separator weighs 1
    // or 2, and the hashtags add a blank line and "#tag" words.
    let upper = 0;
    let lower = 0;
    for (let i = 0; i < parts.length; i++) {
      upper += parts[i].upper + (i > 0 ? 2 : 0);
      lower += parts[i].lower + (i > 0 ? parts[i].before.length : 0);
    }
    // "\n\n#one #two": a blank line, a # per tag, a space between tags.
    if (tags.length > 0) {
      upper += 1;
      lower += 1;
    }
    for (let i = 0; i < tags.length; i++) {
      upper += tagWeights[i].upper + 2;
      lower += tagWeights[i].lower + 2;
    }
    if (lower <= X_LIMIT) {
      const caption = render(parts).trim();
      if (upper <= X_LIMIT || xWeightedLength(postText(caption, tags)) <= X_LIMIT) {
        const draft = {
          caption,
          hashtags: tags,
          topic: topicLabel === null ? null : clip(topicLabel, MAX_TOPIC_LENGTH),
        };
        return saysNothingBanned(plan, draft) ? draft : null;
      }
    }
    if (dropWeakest(parts, 1)) continue;
    if (tags.length > tagFloor) {
      tags.pop();
      tagWeights.pop();
      continue;
    }
    if (keepWanted) return null;
    if (dropWeakest(parts, 2)) continue;
    if (tags.length > 0) {
      tags.pop();
      tagWeights.pop();
      continue;
    }
    if (dropWeakest(parts, 3)) continue;
    return null;
  }
}

/** Removes the last of the least-kept pieces at or under `atMost` (never the opener). */
function dropWeakest(parts: Piece[], atMost: number): boolean {
  let weakest = -1;
  for (let i = parts.length - 1; i > 0; i--) {
    if (parts[i].keep <= atMost && (weakest < 0 || parts[i].keep < parts[weakest].keep)) weakest = i;
  }
  if (weakest < 0) return false;
  parts.splice(weakest, 1);
  return true;
}

/** The check `draftProblems` makes for bans, on the same text: caption, hashtags and topic. */
function saysNothingBanned(plan: Plan, draft: Draft): boolean {
  if (plan.bans === null) return true;
  const said = `${draft.caption}\n${draft.hashtags.join(' ')}\n${draft.topic ?? ''}`.toLowerCase();
  return !plan.bans.test(said);
}

/**
 * When eight compositions all failed (a very long topic, or bans that catch nearly everything):
 * the plainest captions that can still be posted, then an error rather than a draft that breaks
 * the brand's rules.
 */
export function fallbackDraft(plan: Plan, topic: Topic, index: number): Draft {
  const label = topic.label === null ? null : clip(topic.label, MAX_TOPIC_LENGTH);
  const candidates = [
    `${capitalise(clip(topic.display, 200))}.`,
    plan.brand ? `${plan.brand}.` : '',
    ...plan.phrases.plainBodies,
    ...plan.phrases.benefits,
    'New post.',
    'More soon.',
  ];
  for (const caption of candidates) {
    if (!caption || caption === '.') continue;
    for (const draft of [
      { caption, hashtags: topic.tags.slice(0, 1), topic: label },
      { caption, hashtags: [], topic: label },
      { caption, hashtags: [], topic: null },
    ]) {
      if (fitsEveryPlatform(postText(draft.caption, draft.hashtags), plan.link) && saysNothingBanned(plan, draft))
        return draft;
    }
  }
  throw new Error(`the built-in generator cannot write slot ${index} without a forbidden word or avoided topic`);
}
