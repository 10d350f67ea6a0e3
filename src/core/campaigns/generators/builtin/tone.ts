import { escapeRegExp } from '../../../text.ts';
import type { BrandBrief } from '../../generator.ts';
import { book, type ToneName } from './phrasebook.ts';

// Tone: the brand's sliders, nudged by its own words, and what they allow a phrase to say.

export interface Tone {
  formality: number;
  humor: number;
  energy: number;
  emoji: boolean;
  exclamations: boolean;
  /** The brand asked for short posts: fewer optional parts. */
  brief: boolean;
}

const VOICE_CUES: readonly { pattern: RegExp; formality?: number; humor?: number; energy?: number }[] = [
  { pattern: /\b(formal|professional|authoritative|corporate|polished|expert|academic|respectful)\b/, formality: 2 },
  { pattern: /\b(casual|friendly|conversational|relaxed|laid[- ]back|chatty|informal|approachable)\b/, formality: -2 },
  { pattern: /\b(witty|playful|fun|funny|humou?r(ous)?|cheeky|irreverent|quirky|silly|jokey)\b/, humor: 2 },
  { pattern: /\b(serious|sober|earnest|no[- ]nonsense|straightforward)\b/, humor: -2 },
  { pattern: /\b(energetic|bold|excited|exciting|hype|upbeat|enthusiastic|loud|punchy|dynamic)\b/, energy: 2 },
  { pattern: /\b(calm|gentle|soothing|quiet|soft|mindful|understated|serene|minimal(ist)?)\b/, energy: -2 },
];
const NO_EMOJI = /\b(no|without|avoid|never use|don'?t use)\s+(any\s+)?emojis?\b/;
const WANTS_EMOJI =
  /\b(use|love|include|with|add|lots of|plenty of)\s+(some\s+|a few\s+)?emojis?\b|\bemojis? (are )?(welcome|encouraged|ok|okay)\b/;
const NO_EXCLAMATION = /\b(no|avoid|without|never use|don'?t use)\s+exclamation/;
const BRIEF = /\b(short|concise|brief|punchy|minimal(ist)?|tight)\b/;
const EMOJI_CHARACTER = /\p{Extended_Pictographic}/u;

const clampTone = (value: number) => Math.max(0, Math.min(10, Math.round(Number.isFinite(value) ? value : 5)));

/** The sliders, nudged by words in the voice and style notes ("witty", "calm", "no emoji"). */
export function readTone(brand: BrandBrief): Tone {
  const words = [brand.voice, brand.style_notes].filter(Boolean).join(' ').toLowerCase();
  let formality = clampTone(brand.tone_formality);
  let humor = clampTone(brand.tone_humor);
  let energy = clampTone(brand.tone_energy);
  for (const cue of VOICE_CUES) {
    if (!cue.pattern.test(words)) continue;
    formality += cue.formality ?? 0;
    humor += cue.humor ?? 0;
    energy += cue.energy ?? 0;
  }
  formality = clampTone(formality);
  humor = clampTone(humor);
  energy = clampTone(energy);
  const examplesUseEmoji = brand.example_posts.some((post) => EMOJI_CHARACTER.test(post));
  const emoji = !NO_EMOJI.test(words) && (humor >= 6 || energy >= 7 || WANTS_EMOJI.test(words) || examplesUseEmoji);
  return {
    formality,
    humor,
    energy,
    emoji,
    exclamations: energy >= 6 && !NO_EXCLAMATION.test(words),
    brief: BRIEF.test(words),
  };
}

/** Whether a phrase meant for the tones `wanted` suits `tone` (see phrasebook.ts). */
export function toneAllows(wanted: readonly ToneName[], tone: Tone): boolean {
  for (const name of wanted) {
    if (name === 'casual' && tone.formality > 4) return false;
    if (name === 'formal' && tone.formality < 6) return false;
    if (name === 'playful' && tone.humor < 6) return false;
    if (name === 'energetic' && tone.energy < 6) return false;
    if (name === 'quiet' && tone.energy > 4) return false;
  }
  return true;
}

/** Contractions a formal voice writes out; the phrasebook is written with them. */
const CONTRACTIONS: Readonly<Record<string, string>> = book.contractions;
const CONTRACTION = new RegExp(
  `(?<![\\p{L}\\p{N}'])(?:${Object.keys(CONTRACTIONS)
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|')})(?![\\p{L}\\p{N}])`,
  'giu',
);

export function writeOutContractions(text: string): string {
  return text.replace(CONTRACTION, (found) => {
    const full = CONTRACTIONS[found.toLowerCase()];
    return found[0] === found[0].toUpperCase() ? full[0].toUpperCase() + full.slice(1) : full;
  });
}
