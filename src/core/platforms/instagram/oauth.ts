/**
 * Instagram Login for professional accounts (Business Login for Instagram): the consent page on the
 * auth host, the code traded at the token host (form-encoded, client id and secret in the body) for
 * a one-hour token, which is traded at once on the Graph host (`ig_exchange_token`) for a 60-day one.
 * There is no refresh token: the 60-day token itself is renewed (`ig_refresh_token`) once it is at
 * least 24 hours old, which the maintenance pass does when it has less than 7 days left.
 */
import { systemClock, type Clock } from '../../clock.ts';
import type { TokenGrant } from '../platform-client.ts';
import { jsonBody, platformRequest } from '../http.ts';
import { parseScopes, profileBody } from '../oauth-answers.ts';
import { PlatformError, type OAuthApp, type OAuthProvider } from '../platform-client.ts';
import { instagramAnswerError, instagramTokenError } from './errors.ts';
import { withoutSecrets } from '../redaction.ts';

/** Reading the account (basic) and publishing to it. */
export const INSTAGRAM_SCOPES = ['instagram_business_basic', 'instagram_business_content_publish'] as const;

const NAME = 'Instagram';
const DAY_MS = 24 * 3600 * 1000;

export interface InstagramHosts {
  /** www.instagram.com: the consent page. */
  authBaseUrl: string;
  /** api.instagram.com: the code exchange. */
  tokenBaseUrl: string;
  /** graph.instagram.com: the long-lived token, the profile and publishing. */
  apiBaseUrl: string;
}

export function instagramOAuth(hosts: InstagramHosts, timeoutMs: number, clock: Clock = systemClock): OAuthProvider {
  /** GET on the Graph host with the token in the query, as the two token endpoints require. */
  const graphTokenCall = async (path: string, query: Record<string, string>, step: string, secrets: string[]) => {
    const url = `${hosts.apiBaseUrl}${path}?${new URLSearchParams(query).toString()}`;
    const response = await platformRequest(NAME, url, { headers: { accept: 'application/json' } }, timeoutMs);
    const body = await jsonBody(response);
    if (!response.ok) {
      throw withoutSecrets(instagramTokenError(step, response, body, clock.now()), ...secrets);
    }
    return longLivedGrant(body, step, response.status, clock.now());
  };

  return {
    platform: 'instagram',
    scopes: INSTAGRAM_SCOPES,
    pkce: false,
    renewal: { by: 'access_token', minAgeMs: DAY_MS, withinMs: 7 * DAY_MS },
    authorizeUrl(app, { state }) {
      const url = new URL(`${hosts.authBaseUrl}/oauth/authorize`);
      url.search = new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        response_type: 'code',
        scope: INSTAGRAM_SCOPES.join(','),
        state,
      }).toString();
      return url.toString();
    },
    async exchangeCode(app: OAuthApp, { code }) {
      const response = await platformRequest(
        NAME,
        `${hosts.tokenBaseUrl}/oauth/access_token`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: new URLSearchParams({
            client_id: app.clientId,
            client_secret: app.clientSecret,
            grant_type: 'authorization_code',
            redirect_uri: app.redirectUri,
            code,
          }).toString(),
        },
        timeoutMs,
      );
      const body = await jsonBody(response);
      if (!response.ok)
        throw withoutSecrets(instagramTokenError('code exchange', response, body, clock.now()), app.clientSecret);
      const shortLived = shortLivedAnswer(body);
      if (!shortLived) {
        throw new PlatformError(
          'transient',
          `Instagram answered the code exchange with ${response.status} but no access_token.`,
          {
            status: response.status,
          },
        );
      }
      const grant = await graphTokenCall(
        '/access_token',
        { grant_type: 'ig_exchange_token', client_secret: app.clientSecret, access_token: shortLived.accessToken },
        'long-lived token exchange',
        [app.clientSecret, shortLived.accessToken],
      );
      return { ...grant, ...(shortLived.scopes && { scopes: shortLived.scopes }) };
    },
    refresh(_app, accessToken) {
      return graphTokenCall(
        '/refresh_access_token',
        { grant_type: 'ig_refresh_token', access_token: accessToken },
        'token refresh',
        [accessToken],
      );
    },
    async profile(accessToken) {
      const url = `${hosts.apiBaseUrl}/me?fields=user_id,username,name,account_type`;
      const response = await platformRequest(
        NAME,
        url,
        { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } },
        timeoutMs,
      );
      if (!response.ok) {
        const error = instagramAnswerError(response, await jsonBody(response), 'read', 'the profile read', clock.now());
        throw withoutSecrets(error, accessToken);
      }
      const body = await profileBody(NAME, response);
      // `user_id` is the professional account's id, the one the publishing paths take; `id` is app-scoped.
      const userId = typeof body.user_id === 'number' ? String(body.user_id) : body.user_id;
      const username = body.username;
      if (typeof userId !== 'string' || typeof username !== 'string' || !userId || !username) {
        throw new PlatformError('transient', 'Instagram answered the profile read without user_id and username.', {
          status: response.status,
        });
      }
      return {
        platformUserId: userId,
        username,
        displayName: typeof body.name === 'string' && body.name ? body.name : null,
        profileUrl: `https://www.instagram.com/${encodeURIComponent(username)}`,
      };
    },
  };
}

/**
 * The code exchange's answer: Meta documents `{data:[{access_token, user_id, permissions}]}` for
 * Business Login, and has also answered the older flat `{access_token, user_id, permissions}`; both
 * are read. `permissions` is a comma-separated string or a list.
 */
function shortLivedAnswer(body: unknown): { accessToken: string; scopes?: string[] } | null {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const entry = (Array.isArray(record.data) ? record.data[0] : record) as Record<string, unknown> | undefined;
  if (typeof entry?.access_token !== 'string' || !entry.access_token) return null;
  const permissions = Array.isArray(entry.permissions) ? entry.permissions.join(',') : entry.permissions;
  const scopes = parseScopes(permissions);
  return { accessToken: entry.access_token, ...(scopes && { scopes }) };
}

/** `{access_token, token_type, expires_in}` from either Graph token endpoint. */
function longLivedGrant(body: unknown, step: string, status: number, now: Date): TokenGrant {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (typeof record.access_token !== 'string' || !record.access_token) {
    throw new PlatformError('transient', `Instagram answered the ${step} with ${status} but no access_token.`, {
      status,
    });
  }
  const seconds = Number(record.expires_in);
  return {
    accessToken: record.access_token,
    refreshToken: null,
    expiresAt: Number.isFinite(seconds) && seconds > 0 ? new Date(now.getTime() + seconds * 1000) : null,
  };
}
