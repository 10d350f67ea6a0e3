/**
 * TikTok's OAuth 2.0 (Login Kit v2): the consent page `{auth}/v2/auth/authorize/` with `client_key`
 * and comma-separated scopes, the token endpoint `POST {api}/v2/oauth/token/` form-encoded with the
 * key and secret in the body. Refresh tokens rotate (each works once), and the lifetimes are taken as
 * answered (`expires_in`, `refresh_expires_in`), since TikTok's own pages disagree on them.
 *
 * The profile: `user.info.basic` gives `/v2/user/info/` the open id, the display name and the avatar,
 * but not the username (that field needs `user.info.profile`, which this service does not ask for).
 * The post URL needs the username, so it comes from `creator_info/query`, which `video.publish`
 * allows and which answers `creator_username`; the publisher reads it again at each publish, so a
 * renamed account still gets right URLs.
 */
import { systemClock, type Clock } from '../../clock.ts';
import type { LivePlatformApp } from '../platform-entry.ts';
import { platformRequest } from '../http.ts';
import { readTokenAnswer } from '../oauth-answers.ts';
import { PlatformError, type OAuthApp, type OAuthProvider } from '../platform-client.ts';
import { TIKTOK, tiktokJson } from './api.ts';

/** The basic profile, and posting straight to the account (`video.publish`, which also reads creator info). */
export const TIKTOK_SCOPES = ['user.info.basic', 'video.publish'] as const;

/** The profile fields `user.info.basic` allows. */
export const PROFILE_FIELDS = 'open_id,union_id,avatar_url,display_name';

export const CREATOR_INFO_PATH = '/v2/post/publish/creator_info/query/';

export function tiktokOAuth(
  app: Pick<LivePlatformApp, 'authBaseUrl' | 'apiBaseUrl'>,
  timeoutMs: number,
  clock: Clock = systemClock,
): OAuthProvider {
  const now = () => clock.now();
  const tokenRequest = async (
    oauth: OAuthApp,
    step: 'code exchange' | 'token refresh',
    form: Record<string, string>,
  ) => {
    const response = await platformRequest(
      TIKTOK,
      `${app.apiBaseUrl}/v2/oauth/token/`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'cache-control': 'no-cache' },
        body: new URLSearchParams({
          client_key: oauth.clientId,
          client_secret: oauth.clientSecret,
          ...form,
        }).toString(),
      },
      timeoutMs,
    );
    return readTokenAnswer(TIKTOK, step, await asStandardTokenAnswer(response), clock.now());
  };

  return {
    platform: 'tiktok',
    scopes: TIKTOK_SCOPES,
    pkce: false,
    authorizeUrl(oauth, { state }) {
      const url = new URL(`${app.authBaseUrl}/v2/auth/authorize/`);
      url.search = new URLSearchParams({
        client_key: oauth.clientId,
        scope: TIKTOK_SCOPES.join(','),
        response_type: 'code',
        redirect_uri: oauth.redirectUri,
        state,
      }).toString();
      return url.toString();
    },
    exchangeCode(oauth, { code }) {
      return tokenRequest(oauth, 'code exchange', {
        code,
        grant_type: 'authorization_code',
        redirect_uri: oauth.redirectUri,
      });
    },
    refresh(oauth, refreshToken) {
      return tokenRequest(oauth, 'token refresh', { grant_type: 'refresh_token', refresh_token: refreshToken });
    },
    async profile(accessToken) {
      const user = (
        await tiktokJson(
          app,
          accessToken,
          { method: 'GET', path: `/v2/user/info/?fields=${PROFILE_FIELDS}`, subject: 'read' },
          timeoutMs,
          now,
        )
      ).data.user as Record<string, unknown> | undefined;
      const creator = (
        await tiktokJson(app, accessToken, { path: CREATOR_INFO_PATH, json: {}, subject: 'read' }, timeoutMs, now)
      ).data;
      const openId = user?.open_id;
      const username = creator.creator_username;
      if (typeof openId !== 'string' || !openId || typeof username !== 'string' || !username) {
        throw new PlatformError(
          'transient',
          'TikTok answered the profile read without the open_id or the creator_username.',
        );
      }
      const displayName = [user?.display_name, creator.creator_nickname].find(
        (name): name is string => typeof name === 'string' && name !== '',
      );
      return {
        platformUserId: openId,
        username,
        displayName: displayName ?? null,
        profileUrl: `https://www.tiktok.com/@${encodeURIComponent(username)}`,
      };
    },
  };
}

/**
 * TikTok's token answer in the shape the shared reader takes: `refresh_expires_in` is the refresh
 * token's lifetime, and an error may come as `{error, error_description, log_id}` even with a 200
 * (which then counts as a 400, since no token came).
 */
async function asStandardTokenAnswer(response: Response): Promise<Response> {
  const raw = await response.text().catch(() => '');
  let body: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: the shared reader reports the status with no code.
  }
  const failed = typeof body.error === 'string' && body.error !== '' && !body.access_token;
  const status = response.ok && failed ? 400 : response.status;
  const standard = {
    ...body,
    ...(body.refresh_expires_in !== undefined && { refresh_token_expires_in: body.refresh_expires_in }),
  };
  // The body is rewritten, so its length and encoding headers no longer hold; the rest (Retry-After) does.
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  return new Response(JSON.stringify(standard), { status, headers });
}
