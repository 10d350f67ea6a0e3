import type { ContentType } from '../../../../../db/schema/index.ts';
import type { Draft } from '../../generator.ts';
import { fallbackDraft, fill, fitDraft, makePiece, type Piece } from './fit.ts';
import type { Family } from './phrasebook.ts';
import { MENTIONS_TOPIC, type Phrases } from './phrases.ts';
import { FAMILIES, topicFor, type Plan, type Topic, type Word } from './plan.ts';
import { Random } from './random.ts';
import type { Section } from './templates.ts';

// Writing one draft. The hot path builds no closures: tsx wraps every function it creates with a
// name-keeping helper, which made per-draft arrow functions the largest cost of a campaign.

const ATTEMPTS = 8;

/** The phrases a template section of one line is written from. */
const LINE_OF_SECTION = {
  story: 'stories',
  problem: 'problems',
  solution: 'solutions',
  recap: 'recaps',
  community: 'community',
  fact: 'facts',
  body: 'bodies',
} as const satisfies Partial<Record<Section['kind'], keyof Phrases>>;
const BULLETS = ['•', '-', '→'];
/** A check mark is an emoji on most phones: only for brands that use emoji. */
const BULLETS_WITH_EMOJI = [...BULLETS, '✔'];

export function writeDraft(plan: Plan, index: number, contentType: ContentType): Draft {
  const topic = topicFor(plan, index);
  const family = FAMILIES[contentType] ?? 'scene';
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const composition = new Composition(plan, new Random(`${plan.campaignId}:${index}:${attempt}`), topic, family);
    // A template's sections are its point: cutting one to fit is left to the last attempts.
    const draft = composition.compose(attempt < ATTEMPTS - 2);
    if (draft) return draft;
  }
  return fallbackDraft(plan, topic, index);
}

/** One attempt at one slot's draft. */
class Composition {
  private readonly pieces: Piece[] = [];
  /** Placeholder values, by placeholder name. */
  private readonly vars: Record<string, string>;
  private readonly word: Word | null;

  constructor(
    private readonly plan: Plan,
    private readonly random: Random,
    private readonly topic: Topic,
    private readonly family: Family,
  ) {
    this.word = plan.vocabulary.length > 0 ? random.pick(plan.vocabulary) : null;
    this.vars = {
      topic: topic.display,
      Topic: topic.capitalised,
      brand: plan.brand ?? '',
      url: plan.url ?? '',
      audience: plan.audience ?? '',
      vocab: this.word?.text ?? '',
      Vocab: this.word?.capitalised ?? '',
      tip: '',
      n: String(3 + Math.floor(random.next() * 5)),
    };
  }

  compose(keepTemplateWhole: boolean): Draft | null {
    const { plan, random, phrases } = this;
    const template = plan.templates.length > 0 && random.chance(0.35) ? random.pick(plan.templates) : null;
    if (template) this.writeTemplate(template);
    else this.writeFreeform();

    // The brand's own words: before a template's closing call to action, or before ours.
    if (this.word && random.chance(0.65) && !this.says(this.word.text)) {
      const text = this.line(phrases.vocabLines);
      let at = this.pieces.length;
      while (template && at > 1 && this.pieces[at - 1].closing) at--;
      const before = at < this.pieces.length || random.chance(0.5) ? '\n\n' : ' ';
      if (text) this.pieces.splice(at, 0, makePiece(plan, text, 2, before));
    }
    if (!template) {
      this.add(this.energise(this.callToAction(), 0.7), 2, '\n\n');
      if (!plan.tone.brief && random.chance(0.3))
        this.add(this.line(phrases.questions), 1, random.chance(0.5) ? ' ' : '\n\n');
    }
    if (plan.tone.emoji && random.chance(0.6)) this.addEmoji();
    return fitDraft(plan, this.pieces, this.hashtags(), this.topic.label, template !== null && keepTemplateWhole);
  }

  private get phrases(): Phrases {
    return this.plan.phrases;
  }

  /** Opener, format line, message, and a tip, benefit, story or brand line. */
  private writeFreeform() {
    const { random, phrases, family } = this;
    // The opener: shaped by the format more often than not, now and then a question.
    const familyHooks = phrases.familyHooks[family];
    const useFamilyHook = familyHooks.length > 0 && (phrases.hooks.length === 0 || random.chance(0.55));
    const hooks = useFamilyHook
      ? familyHooks
      : phrases.topicQuestions.length > 0 && (phrases.hooks.length === 0 || random.chance(0.1))
        ? phrases.topicQuestions
        : phrases.hooks;
    // With bans that leave no opener at all, the message opens the post.
    const hookTemplate = hooks.length > 0 ? random.pick(hooks) : '';
    const hookNamesTopic = MENTIONS_TOPIC.test(hookTemplate);
    this.add(this.energise(fill(hookTemplate, this.vars), 0.85), 3, '');
    // A carousel or a slideshow always says it has slides to go through.
    const sequenced = family === 'carousel' || family === 'sequence';
    // A video says so more often than a photo or a text post needs to.
    const video = family === 'spoken' || family === 'video' || family === 'demo' || family === 'reel';
    if (sequenced ? !useFamilyHook : !useFamilyHook && random.chance(video ? 0.6 : 0.35)) {
      this.add(this.line(phrases.formatLines[family]), sequenced ? 3 : 1, ' ');
    }

    const extra = random.next();
    if (!this.plan.tone.brief && extra < 0.12) this.add(this.line(phrases.stories), 1, '\n\n');
    // The message names the topic when the opener did not, and mostly only then.
    const bodies = hookNamesTopic && random.chance(0.75) ? phrases.plainBodies : phrases.topicalBodies;
    if (random.next() < 0.22 && phrases.tips.length >= 4) {
      // A short list of tips: the steps a carousel or slideshow walks through, a text post's checklist.
      if (!hookNamesTopic) this.add(this.line(phrases.topicalBodies), 2, '\n\n');
      this.add(this.listOf(random.chance(0.5) ? 3 : 4, random.chance(0.5), random.chance(0.4)), 2, '\n\n');
    } else {
      this.add(this.line(bodies.length > 0 ? bodies : phrases.bodies), 2, random.chance(0.6) ? '\n\n' : ' ');
      if (extra >= 0.12 && extra < 0.45) this.add(this.tipLine(phrases.tipLines), 1, random.chance(0.5) ? '\n\n' : ' ');
      else if (extra >= 0.45 && extra < 0.75) this.add(this.energise(this.line(phrases.benefits), 0.4), 1, ' ');
      else if (extra >= 0.75 && extra < 0.9) this.add(this.line(phrases.brandLines), 1, ' ');
    }
  }

  /** The template's sections in its order, each as its own paragraph. */
  private writeTemplate(sections: Section[]) {
    const { random, phrases, family } = this;
    // A carousel or slideshow says it has slides even when the template starts with something else.
    const sequenced = family === 'carousel' || family === 'sequence';
    if (sequenced && sections[0]?.kind !== 'hook') this.put(this.line(phrases.formatLines[family]), 3);
    for (const section of sections) {
      switch (section.kind) {
        case 'hook': {
          const ownHook = phrases.familyHooks[family].length > 0 && random.chance(0.6);
          this.put(this.energise(this.line(ownHook ? phrases.familyHooks[family] : phrases.hooks), 0.85), 3);
          if (!ownHook && sequenced) this.add(this.line(phrases.formatLines[family]), 3, ' ');
          break;
        }
        case 'list': {
          const list = this.listOf(section.count, section.numbered, false);
          const intro =
            section.label.startsWith('mistake') && phrases.mistakesIntro ? `${phrases.mistakesIntro}\n` : '';
          this.put(intro + list, 3);
          break;
        }
        case 'myth':
          if (phrases.myths.length > 0) {
            const [myth, fact] = random.pick(phrases.myths);
            this.put(`Myth: ${fill(myth, this.vars)}\nFact: ${fill(fact, this.vars)}`, 3);
          }
          break;
        case 'beforeAfter':
          if (phrases.beforeAfter.length > 0) {
            const [before, after] = random.pick(phrases.beforeAfter);
            this.put(`Before: ${before}\nAfter: ${after}`, 3);
          }
          break;
        case 'cta':
          this.put(this.energise(this.callToAction(), 0.7), 2, true);
          break;
        case 'urlCta':
          this.put(this.line(phrases.urlCtas.length > 0 ? phrases.urlCtas : phrases.ctas), 2, true);
          break;
        case 'question':
          this.put(this.line(phrases.questions), 2, true);
          break;
        case 'solution':
        case 'recap':
          this.put(this.tipLine(phrases[LINE_OF_SECTION[section.kind]]), 2);
          break;
        case 'benefit':
          this.put(this.energise(this.line(phrases.benefits), 0.4), 2);
          break;
        default:
          this.put(this.line(phrases[LINE_OF_SECTION[section.kind]]), 2);
      }
    }
  }

  private add(text: string, keep: number, before: string, closing = false) {
    if (text) this.pieces.push(makePiece(this.plan, text, keep, before, closing));
  }

  /** A paragraph of its own. */
  private put(text: string, keep: number, closing = false) {
    this.add(text, keep, '\n\n', closing);
  }

  private line(list: readonly string[]): string {
    return list.length === 0 ? '' : fill(this.random.pick(list), this.vars);
  }

  private tipLine(list: readonly string[]): string {
    if (list.length === 0 || this.phrases.tipsInSentence.length === 0) return '';
    this.vars.tip = this.random.pick(this.phrases.tipsInSentence);
    return fill(this.random.pick(list), this.vars);
  }

  private says(text: string): boolean {
    for (const piece of this.pieces) if (piece.text.includes(text)) return true;
    return false;
  }

  /** A numbered or bulleted list of distinct tips, with an optional short intro. */
  private listOf(count: number, numbered: boolean, intro: boolean): string {
    const { random, phrases } = this;
    if (phrases.tips.length < 2) return '';
    const tips = random.shuffled(phrases.tips);
    const bullet = random.pick(this.plan.tone.emoji ? BULLETS_WITH_EMOJI : BULLETS);
    let text = '';
    if (intro) {
      const intros = count === 3 ? phrases.listIntros : phrases.listIntrosAnyCount;
      if (intros.length > 0) text = `${random.pick(intros)}\n`;
    }
    for (let i = 0; i < count && i < tips.length; i++)
      text += `${i > 0 ? '\n' : ''}${numbered ? `${i + 1}.` : bullet} ${tips[i]}`;
    return text;
  }

  /** A call to action: sometimes to the website, sometimes to the audience or by brand name. */
  private callToAction(): string {
    const { phrases } = this;
    const roll = this.random.next();
    const from =
      roll < 0.22 && phrases.urlCtas.length > 0
        ? phrases.urlCtas
        : roll < 0.42 && phrases.audienceCtas.length > 0
          ? phrases.audienceCtas
          : roll < 0.55 && phrases.brandCtas.length > 0
            ? phrases.brandCtas
            : phrases.ctas;
    return this.line(from);
  }

  /** Exclamation marks for a high-energy brand; a calm or neutral one keeps its full stops. */
  private energise(text: string, probability: number): string {
    const { tone } = this.plan;
    if (!tone.exclamations || !text.endsWith('.') || text.endsWith('..')) return text;
    const likelihood = tone.energy >= 8 ? probability : tone.energy >= 7 ? probability * 0.8 : probability * 0.35;
    return this.random.chance(likelihood) ? `${text.slice(0, -1)}!` : text;
  }

  /** An emoji at the end of the opening paragraph, not between the opener and the line continuing it. */
  private addEmoji() {
    const { random, phrases, pieces } = this;
    const emoji = random.pick(random.chance(0.5) ? phrases.emoji[this.family] : phrases.emoji.any);
    let last = 0;
    while (last + 1 < pieces.length && pieces[last + 1].before === ' ') last++;
    const piece = pieces[last];
    if (piece) pieces[last] = makePiece(this.plan, `${piece.text} ${emoji}`, piece.keep, piece.before, piece.closing);
  }

  /**
   * The strategy's first named tag (usually the branded one), the topic's tag, then the rest of the
   * named tags, the brand, industry and vocabulary in a shuffled order, and the format's generic
   * tags to fill up to the count.
   */
  private hashtags(): string[] {
    const { plan, random, topic } = this;
    const [low, high] = plan.tagRule.count;
    const count = low + Math.floor(random.next() * (high - low + 1));
    if (count === 0) return [];
    const lead: (string | null | undefined)[] = [plan.namedTags[0], topic.tags[0]];
    if (plan.tagRule.branded || (plan.namedTags.length === 0 && random.chance(0.7))) lead.push(plan.brandTag);
    const pool: (string | null | undefined)[] = plan.namedTags.slice(1);
    for (let i = 1; i < topic.tags.length; i++) pool.push(topic.tags[i]);
    pool.push(plan.industryTag, plan.brandTag, random.chance(0.5) ? this.word?.tag : null);
    const ordered = lead.concat(random.shuffled(pool), random.shuffled(plan.familyTags[this.family]));
    const tags: string[] = [];
    const keys: string[] = [];
    for (const tag of ordered) {
      if (!tag) continue;
      // Every tag was seen when the plan was made; its key is the case-folded spelling.
      const key = plan.tagKeys.get(tag) ?? tag.toLowerCase();
      if (keys.includes(key)) continue;
      keys.push(key);
      tags.push(tag);
      if (tags.length === count) break;
    }
    return tags;
  }
}
