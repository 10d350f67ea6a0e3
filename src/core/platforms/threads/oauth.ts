/**
 * Threads' OAuth: the consent window on threads.net, the code exchanged at graph.threads.net for a
 * short-lived token, traded at once (`th_exchange_token`) for a 60-day one. Threads gives no refresh
 * token: the long-lived token itself is renewed (`th_refresh_token`) by the maintenance pass, once it
 * is at least 24 hours old and before it expires, as Threads allows.
 */
import { systemClock, type Clock } from '../../clock.ts';
import { jsonBody, platformRequest } from '../http.ts';
import { graphErrorBody } from '../meta/errors.ts';
import { profileBody } from '../oauth-answers.ts';
import { PlatformError, type OAuthApp, type OAuthProvider, type TokenGrant } from '../platform-client.ts';
import { withoutSecrets } from '../redaction.ts';
import { threadsError } from './errors.ts';

export const THREADS_SCOPES = ['threads_basic', 'threads_content_publish'] as const;

const NAME = 'Threads';
const DAY_MS = 24 * 3_600_000;

export interface ThreadsHosts {
  /** threads.net: the consent window. */
  authBaseUrl: string;
  /** graph.threads.net: tokens, the profile and publishing. */
  apiBaseUrl: string;
}

export function threadsOAuth(hosts: ThreadsHosts, timeoutMs: number, clock: Clock = systemClock): OAuthProvider {
  /** A token call; a refusal is sorted like any Graph refusal, then read as what it means for a token step. */
  const tokenCall = async (step: string, url: string, init: RequestInit, secrets: string[]): Promise<unknown> => {
    const response = await platformRequest(
      NAME,
      url,
      { ...init, headers: { accept: 'application/json', ...init.headers } },
      timeoutMs,
    );
    const body = await jsonBody(response);
    if (response.ok) return body;
    const error = threadsError(response, body, 'read', `the ${step}`, clock.now());
    // A refused code or token that no family names (Graph's OAuthException, code 100) cannot be retried:
    // the code is spent or the app's credentials are wrong.
    // Code 101 is Graph's "Error validating client secret": the operator's to fix, not the person's.
    const appRefused = graphErrorBody(body)?.code === 101;
    const refused =
      error.kind === 'transient' && response.status < 500
        ? new PlatformError(
            step === 'code exchange' && !appRefused ? 'reauth_required' : 'content_rejected',
            `${error.message.replace(/ The look-up can be tried again\.$/, '')} ${
              step === 'code exchange' && !appRefused
                ? 'The authorization code was refused (used, expired or not issued for this callback); connect the account again.'
                : 'Check THREADS_APP_ID and THREADS_APP_SECRET.'
            }`,
            { status: response.status },
          )
        : error;
    throw withoutSecrets(refused, ...secrets);
  };
  const graphUrl = (path: string, query: Record<string, string>) =>
    `${hosts.apiBaseUrl}${path}?${new URLSearchParams(query).toString()}`;

  return {
    platform: 'threads',
    scopes: THREADS_SCOPES,
    pkce: false,
    renewal: { by: 'access_token', minAgeMs: DAY_MS, withinMs: 7 * DAY_MS },
    authorizeUrl(app, { state }) {
      const url = new URL(`${hosts.authBaseUrl}/oauth/authorize`);
      url.search = new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        scope: THREADS_SCOPES.join(','),
        response_type: 'code',
        state,
      }).toString();
      return url.toString();
    },
    async exchangeCode(app: OAuthApp, { code }) {
      const short = await tokenCall(
        'code exchange',
        `${hosts.apiBaseUrl}/oauth/access_token`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            client_id: app.clientId,
            client_secret: app.clientSecret,
            grant_type: 'authorization_code',
            redirect_uri: app.redirectUri,
            code,
          }).toString(),
        },
        [app.clientSecret, code],
      );
      const shortToken = (short as { access_token?: unknown } | null)?.access_token;
      if (typeof shortToken !== 'string' || !shortToken) {
        throw new PlatformError('transient', 'Threads answered the code exchange without an access_token.');
      }
      const long = await tokenCall(
        'long-lived token exchange',
        graphUrl('/access_token', {
          grant_type: 'th_exchange_token',
          client_secret: app.clientSecret,
          access_token: shortToken,
        }),
        {},
        [app.clientSecret, shortToken],
      );
      return { ...longLivedGrant(long, 'long-lived token exchange', clock.now()), scopes: [...THREADS_SCOPES] };
    },
    async refresh(_app, accessToken) {
      const answer = await tokenCall(
        'token refresh',
        graphUrl('/refresh_access_token', { grant_type: 'th_refresh_token', access_token: accessToken }),
        {},
        [accessToken],
      );
      return longLivedGrant(answer, 'token refresh', clock.now());
    },
    async profile(accessToken) {
      const response = await platformRequest(
        NAME,
        graphUrl('/me', { fields: 'id,username,name,threads_profile_picture_url', access_token: accessToken }),
        { headers: { accept: 'application/json' } },
        timeoutMs,
      );
      if (!response.ok) {
        const error = threadsError(response, await jsonBody(response), 'read', 'the profile read', clock.now());
        throw withoutSecrets(error, accessToken);
      }
      const body = await profileBody(NAME, response);
      const id = typeof body.id === 'number' ? String(body.id) : body.id;
      if (typeof id !== 'string' || !id || typeof body.username !== 'string' || !body.username) {
        throw new PlatformError('transient', 'Threads answered the profile read without id and username.', {
          status: response.status,
        });
      }
      return {
        platformUserId: id,
        username: body.username,
        displayName: typeof body.name === 'string' && body.name ? body.name : null,
        profileUrl: `https://www.threads.net/@${encodeURIComponent(body.username)}`,
      };
    },
  };
}

/** `{access_token, token_type, expires_in}` from either long-lived token endpoint. */
function longLivedGrant(body: unknown, step: string, now: Date): TokenGrant {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (typeof record.access_token !== 'string' || !record.access_token) {
    throw new PlatformError('transient', `Threads answered the ${step} without an access_token.`);
  }
  const seconds = Number(record.expires_in);
  return {
    accessToken: record.access_token,
    refreshToken: null,
    expiresAt: Number.isFinite(seconds) && seconds > 0 ? new Date(now.getTime() + seconds * 1000) : null,
  };
}
