/**
 * Instagram's own refusals. graph.instagram.com answers Meta's Graph envelope, sorted once for both
 * container APIs (meta/errors.ts); what is Instagram's is below: code 9007 (the container is not
 * ready), the content publishing subcodes (2207xxx) that say what happened to the media, the
 * publish permission's name, and api.instagram.com's older envelope on the code exchange.
 */
import { graphTokenRefusal } from '../meta/errors.ts';
import type { GraphApi } from '../meta/graph-call.ts';
import { PlatformError } from '../platform-client.ts';

const CREDENTIALS = 'INSTAGRAM_APP_ID and INSTAGRAM_APP_SECRET';

const INSTAGRAM_REFUSALS: GraphApi['refusals'] = {
  name: 'Instagram',
  credentials: CREDENTIALS,
  publishPermission: 'instagram_business_content_publish',
  isNotReady: (error) => error.code === 9007,
  expiredSubcodes: new Set([2207020]),
  refusedSubcodes: new Map([
    [2207001, 'Instagram blocked this post as spam; change it, or wait before publishing again.'],
    [2207050, 'The Instagram account is restricted or inactive; check it in the Instagram app.'],
  ]),
  // Size, format, aspect ratio, video spec, unknown media type.
  mediaSubcodes: new Set([2207004, 2207005, 2207009, 2207023, 2207026]),
};

/** graph.instagram.com takes the token as a bearer header. */
export const INSTAGRAM_GRAPH: GraphApi = { platform: 'instagram', tokenIn: 'header', refusals: INSTAGRAM_REFUSALS };

/**
 * What api.instagram.com's token endpoint or the Graph token exchanges answered on failure:
 * a refused code or token is `reauth_required`, a bad app secret or id `content_rejected` (the
 * operator's to fix), a 5xx `transient`.
 */
export function instagramTokenError(
  step: string,
  response: { status: number; headers: Headers },
  body: unknown,
  now: Date,
): PlatformError {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (typeof record.error === 'object' && record.error !== null) {
    return graphTokenRefusal(INSTAGRAM_REFUSALS, step, response, body, now);
  }
  // api.instagram.com answers `{error_type, code, error_message}`.
  const message = typeof record.error_message === 'string' ? record.error_message.slice(0, 300) : undefined;
  const type = typeof record.error_type === 'string' ? record.error_type : 'no error type';
  const said = `Instagram refused the ${step} with ${response.status} "${type}"${message ? `: ${message}` : ''}`;
  if (response.status === 429) return new PlatformError('rate_limited', `${said}. Try again later.`, { status: 429 });
  if (response.status >= 500) {
    return new PlatformError('transient', `${said}. Instagram is having trouble; try again shortly.`, {
      status: response.status,
    });
  }
  if (message && /authorization code|verification code|redirect_uri/i.test(message)) {
    return new PlatformError(
      'reauth_required',
      `${said}. The authorization code was refused (used, expired or not issued for this callback); connect the account again.`,
      { status: response.status },
    );
  }
  return new PlatformError('content_rejected', `${said}. Check ${CREDENTIALS} and the app's registered callback URL.`, {
    status: response.status,
  });
}
