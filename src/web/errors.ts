import type { ErrorCode } from '../core/errors.ts';
// The statuses HTTP gives each code are shared plumbing of every HTTP door (src/http), not REST's:
// a dashboard page answers a refusal with the status the API answers it with.
import { ERROR_STATUS } from '../http/errors.ts';

/** The HTTP status of a page that answers with an error of `code`. */
export const pageStatus = (code: ErrorCode): number => ERROR_STATUS[code];

/** The title of the page a refused form action answers with. */
export const actionErrorTitle = (code: ErrorCode): string => (code === 'not_found' ? 'Not found' : 'That did not work');

/**
 * A form body the parser refused before any page saw it, as body-parser reports it (an http-error with
 * a 4xx `status` and a `type`; an undecodable Content-Encoding is zlib's error with a 400): its status
 * and what to tell the person. Too large is 413, an unknown charset or encoding 415, the rest 400.
 */
export function unreadableForm(error: unknown): { status: number; message: string } | undefined {
  const { status, type, code } = (error ?? {}) as { status?: unknown; type?: unknown; code?: unknown };
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  const fromParser = typeof type === 'string' || (typeof code === 'string' && /^(Z_|ERR__)/.test(code));
  if (!fromParser) return undefined;
  if (status === 413) {
    return {
      status,
      message: 'The form is larger than the dashboard accepts. Shorten what you typed and send it again.',
    };
  }
  if (type === 'charset.unsupported' || type === 'encoding.unsupported') {
    return {
      status: 415,
      message: 'The form was sent in an encoding the dashboard cannot read. Send it again from the dashboard page.',
    };
  }
  return { status: 400, message: 'The form arrived incomplete or garbled. Send it again from the dashboard page.' };
}
