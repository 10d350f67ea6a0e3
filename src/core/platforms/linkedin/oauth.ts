/**
 * LinkedIn's three-legged OAuth: the consent page and the token endpoint both on the auth host, the
 * token call form-encoded with the client id and secret in the body (LinkedIn takes no PKCE for
 * confidential clients), the member from OpenID `userinfo` on the API host. Access tokens live 60 days;
 * refresh tokens come only to approved partners, so a grant without one is the normal case.
 */
import { systemClock, type Clock } from '../../clock.ts';
import { platformRequest } from '../http.ts';
import { profileBody, profileFailure, readTokenAnswer } from '../oauth-answers.ts';
import { PlatformError, type OAuthApp, type OAuthProvider } from '../platform-client.ts';

/** Sign in (openid, profile: the member's id and name) and posting as the member. */
export const LINKEDIN_SCOPES = ['openid', 'profile', 'w_member_social'] as const;

const NAME = 'LinkedIn';

export const linkedInOAuth = (
  hosts: { authBaseUrl: string; apiBaseUrl: string },
  timeoutMs: number,
  clock: Clock = systemClock,
): OAuthProvider => {
  const tokenRequest = async (app: OAuthApp, step: 'code exchange' | 'token refresh', form: Record<string, string>) => {
    const response = await platformRequest(
      NAME,
      `${hosts.authBaseUrl}/oauth/v2/accessToken`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ ...form, client_id: app.clientId, client_secret: app.clientSecret }).toString(),
      },
      timeoutMs,
    );
    return readTokenAnswer(NAME, step, response, clock.now());
  };

  return {
    platform: 'linkedin',
    scopes: LINKEDIN_SCOPES,
    pkce: false,
    authorizeUrl(app, { state }) {
      const url = new URL(`${hosts.authBaseUrl}/oauth/v2/authorization`);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        scope: LINKEDIN_SCOPES.join(' '),
        state,
      }).toString();
      return url.toString();
    },
    exchangeCode(app, { code }) {
      return tokenRequest(app, 'code exchange', {
        grant_type: 'authorization_code',
        code,
        redirect_uri: app.redirectUri,
      });
    },
    refresh(app, refreshToken) {
      return tokenRequest(app, 'token refresh', { grant_type: 'refresh_token', refresh_token: refreshToken });
    },
    async profile(accessToken) {
      const response = await platformRequest(
        NAME,
        `${hosts.apiBaseUrl}/v2/userinfo`,
        { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } },
        timeoutMs,
      );
      if (!response.ok) throw await profileFailure(NAME, response, clock.now());
      const body = await profileBody(NAME, response);
      const sub = body.sub;
      if (typeof sub !== 'string' || !sub) {
        throw new PlatformError('transient', 'LinkedIn answered userinfo without sub.', { status: response.status });
      }
      const joined = [body.given_name, body.family_name].filter((part) => typeof part === 'string' && part).join(' ');
      const name = typeof body.name === 'string' && body.name ? body.name : joined || null;
      return {
        platformUserId: sub,
        // LinkedIn members have no handle: the name stands in for it, the id when even that is withheld.
        username: name ?? sub,
        displayName: name,
        // userinfo carries no vanity name, and the public profile URL cannot be built from `sub`.
        profileUrl: null,
      };
    },
  };
};
