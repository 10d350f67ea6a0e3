/**
 * Meta's logins without a refresh token, as Instagram Login and Threads have them: the consent page on
 * the auth host; the code traded (form-encoded, with the app's id and secret) for a short-lived token,
 * traded at once on the Graph host for a 60-day one (`ig_exchange_token`, `th_exchange_token`). The
 * 60-day token itself is renewed (`ig_refresh_token`, `th_refresh_token`) once it is at least 24 hours
 * old, which the maintenance pass does when it has less than 7 days left.
 */
import { systemClock, type Clock } from '../../clock.ts';
import { jsonBody, platformRequest } from '../http.ts';
import { parseScopes } from '../oauth-answers.ts';
import {
  PlatformError,
  type LiveProfile,
  type OAuthApp,
  type OAuthProvider,
  type TokenGrant,
} from '../platform-client.ts';
import { withoutSecrets } from '../redaction.ts';
import { graphTokenRefusal } from './errors.ts';
import { graphRequest, type GraphApi } from './graph-call.ts';

const DAY_MS = 24 * 3_600_000;

export interface MetaLogin {
  graph: GraphApi;
  scopes: readonly string[];
  /** The `grant_type` of the trade for a 60-day token, and of its renewal. */
  grants: { exchange: string; refresh: string };
  /** A token endpoint's refusal as a PlatformError, where not only Graph's envelope comes back (graphTokenRefusal). */
  tokenRefusal?(step: string, response: { status: number; headers: Headers }, body: unknown, now: Date): PlatformError;
  profile: {
    /** The fields `/me` is asked for; the first is the account's id, the one the publishing paths take. */
    fields: readonly [string, ...string[]];
    url(username: string): string;
  };
}

export interface MetaLoginHosts {
  /** The consent page. */
  authBaseUrl: string;
  /** The code exchange, when not on the Graph host (api.instagram.com). */
  tokenBaseUrl?: string;
  /** The Graph host: the long-lived token, the profile and publishing. */
  apiBaseUrl: string;
}

export function metaLoginOAuth(
  login: MetaLogin,
  hosts: MetaLoginHosts,
  timeoutMs: number,
  clock: Clock = systemClock,
): OAuthProvider {
  const { name } = login.graph.refusals;
  const tokenRefusal =
    login.tokenRefusal ??
    ((step: string, response: Response, body: unknown, now: Date) =>
      graphTokenRefusal(login.graph.refusals, step, response, body, now));

  /** A token endpoint's answer; a refusal leaves with none of `secrets` in it. */
  const tokenCall = async (step: string, url: string, init: RequestInit, secrets: string[]) => {
    const headers = { accept: 'application/json', ...init.headers };
    const response = await platformRequest(name, url, { ...init, headers }, timeoutMs);
    const body = await jsonBody(response);
    if (!response.ok) throw withoutSecrets(tokenRefusal(step, response, body, clock.now()), ...secrets);
    return { status: response.status, body };
  };

  /** A GET on the Graph host with the token in the query, as both long-lived token endpoints require. */
  const longLivedCall = async (path: string, query: Record<string, string>, step: string, secrets: string[]) => {
    const url = `${hosts.apiBaseUrl}${path}?${new URLSearchParams(query).toString()}`;
    const { status, body } = await tokenCall(step, url, {}, secrets);
    return longLivedGrant(name, body, step, status, clock.now());
  };

  return {
    platform: login.graph.platform,
    scopes: login.scopes,
    pkce: false,
    renewal: { by: 'access_token', minAgeMs: DAY_MS, withinMs: 7 * DAY_MS },
    authorizeUrl(app, { state }) {
      const url = new URL(`${hosts.authBaseUrl}/oauth/authorize`);
      url.search = new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        response_type: 'code',
        scope: login.scopes.join(','),
        state,
      }).toString();
      return url.toString();
    },
    async exchangeCode(app: OAuthApp, { code }) {
      const { status, body } = await tokenCall(
        'code exchange',
        `${hosts.tokenBaseUrl ?? hosts.apiBaseUrl}/oauth/access_token`,
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
      const shortLived = shortLivedAnswer(body);
      if (!shortLived) {
        throw new PlatformError('transient', `${name} answered the code exchange with ${status} but no access_token.`, {
          status,
        });
      }
      const grant = await longLivedCall(
        '/access_token',
        { grant_type: login.grants.exchange, client_secret: app.clientSecret, access_token: shortLived.accessToken },
        'long-lived token exchange',
        [app.clientSecret, shortLived.accessToken],
      );
      return { ...grant, scopes: shortLived.scopes ?? [...login.scopes] };
    },
    refresh(_app, accessToken) {
      return longLivedCall(
        '/refresh_access_token',
        { grant_type: login.grants.refresh, access_token: accessToken },
        'token refresh',
        [accessToken],
      );
    },
    async profile(accessToken): Promise<LiveProfile> {
      const [idField] = login.profile.fields;
      const body = await graphRequest(
        { ...login.graph, apiBaseUrl: hosts.apiBaseUrl },
        {
          context: 'read',
          subject: 'the profile read',
          method: 'GET',
          path: '/me',
          params: { fields: login.profile.fields.join(',') },
        },
        accessToken,
        timeoutMs,
        () => clock.now(),
      );
      const id = typeof body[idField] === 'number' ? String(body[idField]) : body[idField];
      const username = body.username;
      if (typeof id !== 'string' || typeof username !== 'string' || !id || !username) {
        throw new PlatformError('transient', `${name} answered the profile read without ${idField} and username.`);
      }
      return {
        platformUserId: id,
        username,
        displayName: typeof body.name === 'string' && body.name ? body.name : null,
        profileUrl: login.profile.url(username),
      };
    },
  };
}

/**
 * The code exchange's answer: Meta documents `{data:[{access_token, user_id, permissions}]}` for
 * Instagram's Business Login, and answers the flat `{access_token, user_id, permissions}` elsewhere;
 * both are read. `permissions`, when given, is a comma-separated string or a list.
 */
function shortLivedAnswer(body: unknown): { accessToken: string; scopes?: string[] } | null {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const entry = (Array.isArray(record.data) ? record.data[0] : record) as Record<string, unknown> | undefined;
  if (typeof entry?.access_token !== 'string' || !entry.access_token) return null;
  const permissions = Array.isArray(entry.permissions) ? entry.permissions.join(',') : entry.permissions;
  const scopes = parseScopes(permissions);
  return { accessToken: entry.access_token, ...(scopes && { scopes }) };
}

/** `{access_token, token_type, expires_in}` from either long-lived token endpoint. */
function longLivedGrant(name: string, body: unknown, step: string, status: number, now: Date): TokenGrant {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (typeof record.access_token !== 'string' || !record.access_token) {
    throw new PlatformError('transient', `${name} answered the ${step} with ${status} but no access_token.`, {
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
