/**
 * Language tags (BCP 47, as `Intl` reads them: a language, then an optional script, region and
 * variants, such as `en`, `pt-BR` or `zh-Hant-TW`), for the languages a post is written in. Stored
 * in their canonical spelling (`EN-us` becomes `en-US`), so every platform receives one form.
 */
import { z } from 'zod';

/** The canonical spelling of `tag`, or null when it is no language tag. */
export function canonicalLanguageTag(tag: string): string | null {
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    return null;
  }
}

/** A language tag in, its canonical spelling out; anything else is refused with a message that names it. */
export const languageTag = z
  .string()
  .max(35)
  .transform((tag, ctx) => {
    const canonical = canonicalLanguageTag(tag);
    if (canonical === null) {
      ctx.issues.push({
        code: 'custom',
        input: tag,
        message: `"${tag}" is no language tag: give a BCP 47 tag such as en, pt-BR or zh-Hant.`,
      });
      return z.NEVER;
    }
    return canonical;
  });
