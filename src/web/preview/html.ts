/**
 * A tagged template that escapes every interpolated value unless it is marked `raw` (or is itself
 * the result of `html`): markup escapes by default, with no DOM and no server dependency.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const NEEDS_ESCAPING = /[&<>"']/;

/** Most text has nothing to escape: it is returned as it is, without building a new string. */
export const escapeText = (text: string): string =>
  NEEDS_ESCAPING.test(text) ? text.replace(/[&<>"']/g, (c) => ESCAPES[c]!) : text;

/** Marks markup as already safe; only for the output of `html` or fixed strings. */
export const raw = (markup: string): SafeHtml => new SafeHtml(markup);

function piece(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(piece).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeText(String(value));
}

/**
 * A template's fixed parts without the line breaks and indentation that formatting puts between tags
 * and attributes: a page of a hundred cards would otherwise send as much indentation as text. Worked
 * out once per template (the parts are the same object on every call from one place in the code).
 */
const compactParts = new WeakMap<TemplateStringsArray, readonly string[]>();
function compact(strings: TemplateStringsArray): readonly string[] {
  let parts = compactParts.get(strings);
  if (!parts) {
    parts = strings.map((part) => part.replace(/>\s*\n\s*</g, '><').replace(/\s*\n\s*/g, ' '));
    compactParts.set(strings, parts);
  }
  return parts;
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  const parts = compact(strings);
  let out = parts[0]!;
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + parts[i + 1]!;
  return new SafeHtml(out);
}
