import { describe, expect, it } from 'vitest';
import raw from '../../../src/core/campaigns/generators/builtin/phrasebook.json' with { type: 'json' };
import { book, parsePhrasebook } from '../../../src/core/campaigns/generators/builtin/phrasebook.ts';
import { anyPhrasePattern, phraseMatch } from '../../../src/core/text.ts';

const withHooks = (genericHooks: unknown[]) => ({ ...structuredClone(raw), genericHooks });

describe('built-in phrasebook', () => {
  it('loads with explicit tone fields: a phrase without one suits every tone', () => {
    expect(book.genericHooks[0]).toEqual({ text: 'A quick note on {topic}.', tone: [] });
    expect(book.genericHooks.find((phrase) => phrase.text === 'Real talk about {topic}.')).toEqual({
      text: 'Real talk about {topic}.',
      tone: ['casual'],
    });
    // No phrase still carries the old "flags|" prefix.
    const texts = [...book.genericHooks, ...book.bodies, ...book.genericCtas].map((phrase) => phrase.text);
    expect(texts.filter((text) => /^[a-z]+\|/.test(text))).toEqual([]);
  });

  it('refuses a phrase that breaks the rules the generator relies on, naming where it is', () => {
    expect(() => parsePhrasebook(withHooks(['Tag us #here']))).toThrow(/genericHooks/);
    expect(() => parsePhrasebook(withHooks(['Loud!']))).toThrow(/never ends in !/);
    expect(() => parsePhrasebook(withHooks([{ text: 'Hi {topic}.', tone: ['grumpy'] }]))).toThrow(/tone/);
    expect(() => parsePhrasebook({ ...structuredClone(raw), extra: [] })).toThrow();
    expect(() => parsePhrasebook(withHooks([{ text: 'Hi {topic}.', tone: ['formal'] }]))).not.toThrow();
  });
});

describe('ban matching', () => {
  it('matches the same texts phrase by phrase as in one expression', () => {
    const phrases = ['no filter', 'C++', 'diet culture', 'cheap', 'a.b', '...', 'Ré sumé'];
    const texts = [
      'try #nofilter today',
      'no-filter living',
      'nofilters',
      'c++ rocks',
      'c rocks',
      'Diet  Culture is over',
      'dietculture',
      'cheaply made',
      'so cheap!',
      'a b c',
      'ab',
      'ré-sumé',
      'résumé',
      'nothing here',
    ].map((text) => text.toLowerCase());
    for (const text of texts) {
      const one = phrases.some((phrase) => phraseMatch(phrase).matches(text));
      expect(anyPhrasePattern(phrases)!.test(text), text).toBe(one);
    }
    expect(anyPhrasePattern(['...', ' '])).toBeNull();
    expect(phraseMatch('...').matches('...')).toBe(false);
  });
});
