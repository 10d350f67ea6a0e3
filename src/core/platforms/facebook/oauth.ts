/**
 * Facebook Login for Pages: the consent dialog on the auth host, the code traded at Graph's
 * `oauth/access_token` (a GET, with the app secret), then traded again (`fb_exchange_token`) for a
 * long-lived user token. That token is only a key to `/me/accounts`: each Page the user manages comes
 * with its own Page token, and a Page token obtained from a long-lived user token does not expire.
 * Each Page is one account; the user token itself is never stored. There is nothing to refresh: a
 * Page token that stops working (a password change, a lost role, the app removed) needs a new login.
 */
import { systemClock, type Clock } from '../../clock.ts';
import type { TokenGrant } from '../platform-client.ts';
import { jsonBody, platformRequest } from '../http.ts';
import { profileBody } from '../oauth-answers.ts';
import {
  PlatformError,
  type ConnectableAccount,
  type LiveProfile,
  type OAuthApp,
  type OAuthProvider,
} from '../platform-client.ts';
import { describeGraphError, facebookError, graphErrorBody } from './errors.ts';
import { withoutSecrets } from '../redaction.ts';

/** Listing the Pages, posting on them and reading the posts back, and posting videos. */
export const FACEBOOK_SCOPES = [
  'pages_show_list',
  'pages_manage_posts',
  'pages_read_engagement',
  'publish_video',
] as const;

/**
 * Without these a connected Page could not be published to at all (or its post's link read back),
 * so a login that declined one is refused. `publish_video` is not among them: text and photo posts
 * work without it, and a video post then fails asking to reconnect with it.
 */
const REQUIRED_PERMISSIONS = ['pages_show_list', 'pages_manage_posts', 'pages_read_engagement'];

/** Pages per `/me/accounts` answer, and how many answers are followed: 500 Pages is plenty for a picker. */
const ACCOUNTS_PAGE_SIZE = 100;
const MAX_ACCOUNTS_PAGES = 5;

const NAME = 'Facebook';

/** Token-endpoint refusals that mean the code is dead (used, expired, issued for another redirect_uri). */
const DEAD_CODE_SUBCODES = new Set([36007, 36008, 36009]);

export interface FacebookOAuthApp {
  authBaseUrl: string;
  apiBaseUrl: string;
  graphVersion: string;
}

export function facebookOAuth(app: FacebookOAuthApp, timeoutMs: number, clock: Clock = systemClock): OAuthProvider {
  const graphUrl = (path: string, query: Record<string, string> = {}) => {
    const url = new URL(`${app.apiBaseUrl}/${app.graphVersion}${path}`);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return url.toString();
  };

  /** The token endpoint: a GET whose query carries the code or token and the secret (never quoted in errors). */
  const tokenCall = async (step: 'code exchange' | 'token exchange', query: Record<string, string>) => {
    const response = await platformRequest(
      NAME,
      graphUrl('/oauth/access_token', query),
      { method: 'GET', headers: { accept: 'application/json' } },
      timeoutMs,
    );
    const body = await jsonBody(response);
    if (!response.ok) throw tokenFailure(step, response, body);
    const record = (body ?? {}) as Record<string, unknown>;
    const accessToken = record.access_token;
    if (typeof accessToken !== 'string' || accessToken === '') {
      throw new PlatformError(
        'transient',
        `Facebook answered the ${step} with ${response.status} but no access_token.`,
        {
          status: response.status,
        },
      );
    }
    const expiresIn = typeof record.expires_in === 'number' && record.expires_in > 0 ? record.expires_in : null;
    return { accessToken, expiresAt: expiresIn ? new Date(clock.now().getTime() + expiresIn * 1000) : null };
  };

  const tokenFailure = (step: string, response: Response, body: unknown): PlatformError => {
    const error = graphErrorBody(body);
    const said = `Facebook refused the ${step} with ${describeGraphError(response.status, error)}`;
    const code = error?.code;
    if (code === 190 || (code === 100 && error?.subcode !== undefined && DEAD_CODE_SUBCODES.has(error.subcode))) {
      return new PlatformError(
        'reauth_required',
        `${said}. The authorization code or token was refused (used, expired or not issued to this app); connect the Page again.`,
        { status: response.status },
      );
    }
    if (response.status >= 500 || error?.isTransient || code === 2 || code === 4 || code === 17 || code === 613) {
      const kind = code === 4 || code === 17 || code === 613 ? 'rate_limited' : 'transient';
      return new PlatformError(kind, `${said}. Try again shortly.`, { status: response.status });
    }
    return new PlatformError(
      'content_rejected',
      `${said}. Check FACEBOOK_APP_ID, FACEBOOK_APP_SECRET and the app's Valid OAuth Redirect URIs.`,
      { status: response.status },
    );
  };

  /** A Graph read with a user or Page token, in the Authorization header. */
  const read = async (subject: string, url: string, accessToken: string): Promise<Response> => {
    const response = await platformRequest(
      NAME,
      url,
      { method: 'GET', headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } },
      timeoutMs,
    );
    if (response.ok) return response;
    const failure = facebookError(response, await jsonBody(response), 'read', subject, clock.now());
    throw withoutSecrets(failure, accessToken);
  };

  const grantedPermissions = async (accessToken: string): Promise<{ granted: string[]; declined: string[] }> => {
    const response = await read('the permissions read', graphUrl('/me/permissions'), accessToken);
    const data = (await profileBody(NAME, response)).data;
    const entries = Array.isArray(data) ? (data as Array<{ permission?: unknown; status?: unknown }>) : [];
    const named = (status: string) =>
      entries
        .filter((entry) => entry.status === status && typeof entry.permission === 'string')
        .map((entry) => entry.permission as string);
    return { granted: named('granted'), declined: named('declined') };
  };

  /** Every Page of `/me/accounts`, following `paging.next` on Graph's own origin only (it names the token). */
  const listPages = async (accessToken: string): Promise<Array<Record<string, unknown>>> => {
    const pages: Array<Record<string, unknown>> = [];
    let url: string | undefined = graphUrl('/me/accounts', {
      fields: 'id,name,access_token,tasks',
      limit: String(ACCOUNTS_PAGE_SIZE),
    });
    for (let answer = 0; url && answer < MAX_ACCOUNTS_PAGES; answer++) {
      const body = await profileBody(NAME, await read('the list of Pages', url, accessToken));
      if (Array.isArray(body.data)) pages.push(...(body.data as Array<Record<string, unknown>>));
      url = nextPageUrl(body.paging, app.apiBaseUrl);
    }
    return pages;
  };

  return {
    platform: 'facebook',
    scopes: FACEBOOK_SCOPES,
    pkce: false,
    authorizeUrl(oauthApp, { state }) {
      const url = new URL(`${app.authBaseUrl}/${app.graphVersion}/dialog/oauth`);
      url.search = new URLSearchParams({
        client_id: oauthApp.clientId,
        redirect_uri: oauthApp.redirectUri,
        state,
        scope: FACEBOOK_SCOPES.join(','),
        response_type: 'code',
      }).toString();
      return url.toString();
    },
    async exchangeCode(oauthApp, { code }) {
      const short = await tokenCall('code exchange', {
        client_id: oauthApp.clientId,
        redirect_uri: oauthApp.redirectUri,
        client_secret: oauthApp.clientSecret,
        code,
      });
      const long = await tokenCall('token exchange', {
        grant_type: 'fb_exchange_token',
        client_id: oauthApp.clientId,
        client_secret: oauthApp.clientSecret,
        fb_exchange_token: short.accessToken,
      });
      return { accessToken: long.accessToken, refreshToken: null, expiresAt: long.expiresAt };
    },
    refresh(): Promise<TokenGrant> {
      return Promise.reject(
        new PlatformError(
          'reauth_required',
          'Facebook Page tokens cannot be refreshed; the Page must be connected again through Facebook Login.',
        ),
      );
    },
    async profile(accessToken) {
      const body = await profileBody(
        NAME,
        await read('the profile read', graphUrl('/me', { fields: 'id,name' }), accessToken),
      );
      if (typeof body.id !== 'string' || !body.id) {
        throw new PlatformError('transient', 'Facebook answered /me without an id.');
      }
      const name = typeof body.name === 'string' && body.name ? body.name : null;
      return pageProfile(body.id, name);
    },
    async connectableAccounts(_oauthApp: OAuthApp, grant: TokenGrant): Promise<ConnectableAccount[]> {
      const { granted, declined } = await grantedPermissions(grant.accessToken);
      const missing = REQUIRED_PERMISSIONS.filter((permission) => !granted.includes(permission));
      if (missing.length) {
        const how = missing.every((permission) => declined.includes(permission)) ? 'declined' : 'not granted';
        throw new PlatformError(
          'reauth_required',
          `Facebook Login ${how} ${missing.join(', ')}, without which the service cannot publish on your Pages. Connect again and allow every permission asked for.`,
        );
      }
      const pages = await listPages(grant.accessToken);
      const usable = pages.filter(
        (page) =>
          typeof page.id === 'string' &&
          typeof page.access_token === 'string' &&
          page.access_token !== '' &&
          // Without CREATE_CONTENT the user's role on the Page cannot post; absent tasks are not held against it.
          (!Array.isArray(page.tasks) || page.tasks.includes('CREATE_CONTENT')),
      );
      if (usable.length === 0) {
        throw new PlatformError(
          'reauth_required',
          pages.length
            ? 'None of the Facebook Pages this login gave access to lets you create content; ask for a Page role that can, then connect again.'
            : 'This Facebook login gave access to no Page. Connect again and choose at least one Page in the Facebook dialog.',
        );
      }
      return usable.map((page) => ({
        profile: pageProfile(page.id as string, typeof page.name === 'string' && page.name ? page.name : null),
        grant: {
          accessToken: page.access_token as string,
          refreshToken: null,
          // A Page token from a long-lived user token does not expire.
          expiresAt: null,
          scopes: granted,
        },
      }));
    },
  };
}

function pageProfile(id: string, name: string | null): LiveProfile {
  return { platformUserId: id, username: name ?? id, displayName: name, profileUrl: `https://www.facebook.com/${id}` };
}

/** `paging.next` when it is on Graph's own origin, without the `access_token` Graph puts in it (sent as a header instead). */
function nextPageUrl(paging: unknown, apiBaseUrl: string): string | undefined {
  const next = (paging as { next?: unknown } | null | undefined)?.next;
  if (typeof next !== 'string') return undefined;
  try {
    const url = new URL(next);
    if (url.origin !== new URL(apiBaseUrl).origin) return undefined;
    url.searchParams.delete('access_token');
    return url.toString();
  } catch {
    return undefined;
  }
}
