import { toCount } from './hashtags.ts';

// Templates: structure strings such as "Hook / 3 tips / CTA" turned into section kinds

export type Section =
  | {
      kind:
        | 'hook'
        | 'cta'
        | 'urlCta'
        | 'question'
        | 'story'
        | 'problem'
        | 'solution'
        | 'benefit'
        | 'recap'
        | 'community'
        | 'fact'
        | 'body'
        | 'myth'
        | 'beforeAfter';
    }
  | { kind: 'list'; count: number; numbered: boolean; label: string };

const SECTION_SPLIT = /\s*(?:\/|\||→|->|=>|>|\+|,|;|\n|•|·|\bthen\b|\bfollowed by\b)\s*/iu;
const LIST_SECTION = new RegExp(
  String.raw`\b(?:(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|a few|few|some|several)\s+)?(?:[a-z-]+\s+){0,2}?(tips?|steps?|hacks?|ideas?|ways?|reasons?|lessons?|takeaways?|mistakes?|points?|things?|bullets?|list|checklist|rules?|secrets?)\b`,
  'i',
);
const SECTION_KINDS: readonly [RegExp, Section['kind']][] = [
  [/\bmyths?\b/i, 'myth'],
  [/\bbefore\b.*\bafter\b|\btransformation\b|\bbefore-after\b/i, 'beforeAfter'],
  [/\bcta\b|call[\s-]*to[\s-]*action/i, 'cta'],
  [/\b(?:recap|summary|summari[sz]e|tl;?dr|conclusion|key takeaway)\b/i, 'recap'],
];
const LATER_SECTION_KINDS: readonly [RegExp, Section['kind']][] = [
  [/\b(?:visit|link|website|site|shop|buy|download|register|sign[\s-]?up|book|url)\b/i, 'urlCta'],
  [/\b(?:follow|subscribe|share|save|dm|contact)\b/i, 'cta'],
  [/\b(?:questions?|ask|poll|comments?|engage|engagement|prompt)\b/i, 'question'],
  [/\b(?:hook|open(?:er|ing)|intro(?:duction)?|attention|headline|title|teaser|grabber)\b/i, 'hook'],
  [/\b(?:story|anecdote|behind|experience|journey|personal)\b/i, 'story'],
  [/\b(?:problem|pain(?: point)?|struggle|challenge|issue|frustration)\b/i, 'problem'],
  [/\b(?:solution|fix|answer|how it works)\b/i, 'solution'],
  [/\b(?:benefits?|results?|outcomes?|payoff|value|why)\b/i, 'benefit'],
  [/\b(?:quote|testimonial|review|social proof|customer)\b/i, 'community'],
  [/\b(?:facts?|stats?|statistics?|data|numbers?|insight)\b/i, 'fact'],
];

export function parseTemplate(structure: string): Section[] {
  const normalised = structure
    .replace(/\bbefore\s*(?:\/|&|and|vs\.?|→|->)\s*after\b/gi, 'before-after')
    .replace(/\bmyths?\s*(?:\/|&|and|vs\.?|versus|→|->)\s*facts?\b/gi, 'myth vs fact')
    .replace(/\bproblem\s*(?:\/|&|and|→|->)\s*solution\b/gi, 'problem, solution');
  const sections: Section[] = [];
  for (const part of normalised.split(SECTION_SPLIT)) {
    const text = part.trim();
    if (!text) continue;
    const early = SECTION_KINDS.find(([pattern]) => pattern.test(text));
    if (early) {
      sections.push({ kind: early[1] } as Section);
      continue;
    }
    const list = LIST_SECTION.exec(text);
    if (list) {
      const amount = list[1] ? toCount(list[1]) : 3;
      const label = list[2].toLowerCase();
      sections.push({
        kind: 'list',
        count: Math.max(2, Math.min(5, amount)),
        numbered: /^(step|rule|reason|way)/.test(label) || Boolean(list[1]),
        label,
      });
      continue;
    }
    const later = LATER_SECTION_KINDS.find(([pattern]) => pattern.test(text));
    sections.push({ kind: later ? later[1] : 'body' } as Section);
  }
  // "Myth / Fact" as two sections is one myth-and-fact pair.
  return sections.filter((section, i) => !(section.kind === 'fact' && sections[i - 1]?.kind === 'myth'));
}
