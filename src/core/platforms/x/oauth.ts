/**
 * X's OAuth 2.0 authorization code flow with PKCE (S256), for a confidential client: the consent page
 * on the auth host, the token endpoint on the API host with the client credentials in HTTP Basic, and
 * the profile from `/2/users/me`. X rotates refresh tokens (each works once; reuse answers 400
 * `invalid_request`), so a refresh's answer always carries the pair to store together.
 */
import { systemClock, type Clock } from '../../clock.ts';
import { platformRequest } from '../http.ts';
import { profileBody, profileFailure, readTokenAnswer } from '../oauth-answers.ts';
import { PlatformError, type OAuthApp, type OAuthProvider } from '../platform-client.ts';

/** What the publisher needs (tweets, media) plus `offline.access`, without which X issues no refresh token. */
export const X_SCOPES = ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'] as const;

const NAME = 'X';

/** RFC 7617: the id and secret are form-encoded before they are joined, as X's docs and RFC 6749 §2.3.1 ask. */
const basicAuthorization = (app: OAuthApp): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(app.clientId)}:${encodeURIComponent(app.clientSecret)}`).toString('base64')}`;

export const xOAuth = (
  hosts: { authBaseUrl: string; apiBaseUrl: string },
  timeoutMs: number,
  clock: Clock = systemClock,
): OAuthProvider => {
  const tokenRequest = async (app: OAuthApp, step: 'code exchange' | 'token refresh', form: Record<string, string>) => {
    const response = await platformRequest(
      NAME,
      `${hosts.apiBaseUrl}/2/oauth2/token`,
      {
        method: 'POST',
        headers: {
          authorization: basicAuthorization(app),
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams(form).toString(),
      },
      timeoutMs,
    );
    return readTokenAnswer(NAME, step, response, clock.now());
  };

  return {
    platform: 'twitter',
    scopes: X_SCOPES,
    pkce: true,
    authorizeUrl(app, { state, codeChallenge }) {
      if (!codeChallenge) throw new Error('X requires PKCE: authorizeUrl needs a code challenge.');
      const url = new URL(`${hosts.authBaseUrl}/i/oauth2/authorize`);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: app.clientId,
        redirect_uri: app.redirectUri,
        scope: X_SCOPES.join(' '),
        state,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
      }).toString();
      return url.toString();
    },
    exchangeCode(app, { code, codeVerifier }) {
      if (!codeVerifier) throw new Error('X requires PKCE: exchangeCode needs the code verifier.');
      return tokenRequest(app, 'code exchange', {
        grant_type: 'authorization_code',
        code,
        redirect_uri: app.redirectUri,
        code_verifier: codeVerifier,
      });
    },
    refresh(app, refreshToken) {
      return tokenRequest(app, 'token refresh', { grant_type: 'refresh_token', refresh_token: refreshToken });
    },
    async profile(accessToken) {
      const response = await platformRequest(
        NAME,
        `${hosts.apiBaseUrl}/2/users/me`,
        { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } },
        timeoutMs,
      );
      if (!response.ok) throw await profileFailure(NAME, response, clock.now());
      const data = (await profileBody(NAME, response)).data as Record<string, unknown> | undefined;
      const id = data?.id;
      const username = data?.username;
      if (typeof id !== 'string' || typeof username !== 'string' || !id || !username) {
        throw new PlatformError('transient', 'X answered the profile read without data.id and data.username.', {
          status: response.status,
        });
      }
      return {
        platformUserId: id,
        username,
        displayName: typeof data?.name === 'string' && data.name ? data.name : null,
        profileUrl: `https://x.com/${encodeURIComponent(username)}`,
      };
    },
  };
};
