/**
 * The fake Facebook's Login: the consent dialog (`/{version}/dialog/oauth`, which approves at once as
 * the scripted user, or cancels, or leaves permissions unticked) and the token endpoint
 * (`GET /{version}/oauth/access_token`: the code for a short-lived user token, `fb_exchange_token`
 * for a long-lived one), with Graph's own refusals.
 */
import { isRedirectableUri, redirectTo, type FakeRequest, type Reply } from './shared/http-fake.ts';
import type { TokenStore } from './shared/token-store.ts';
import {
  expiredToken,
  invalidParameter,
  invalidToken,
  missingToken,
  oauthRefusal,
  revokedToken,
  unknownPath,
} from './facebook-errors.ts';
import type { FacebookTokens, TokenCheck } from './facebook-tokens.ts';

/** Permissions the fake knows; the consent dialog refuses any other. */
export const FACEBOOK_PERMISSIONS = [
  'public_profile',
  'email',
  'pages_show_list',
  'pages_manage_posts',
  'pages_read_engagement',
  'pages_manage_metadata',
  'pages_manage_engagement',
  'publish_video',
  'business_management',
  'read_insights',
] as const;

/** Who the dialog logs in as, and what they do there. */
export interface ConsentScript {
  userId: string;
  deny: boolean;
  declined: string[];
}

export type TokenFailure = Exclude<TokenCheck, { ok: true }>;

export interface LoginContext {
  appId: string;
  appSecret: string;
  redirectUris: string[] | undefined;
  /** Authorization codes (the store's access tokens are unused: user tokens live in `tokens`). */
  codes: TokenStore;
  tokens: FacebookTokens;
  consent: ConsentScript;
}

const VERSION = /^v(\d+)\.0$/;
/** The oldest Graph version the fake serves; Meta retires each about two years after its release. */
export const OLDEST_MAJOR = 20;

/** Graph's `/vNN.0/` path prefix; a missing or retired version answers code 2500. */
export function checkVersion(request: FakeRequest): Reply | undefined {
  const version = request.params.version ?? '';
  const major = VERSION.exec(version)?.[1];
  if (major === undefined || Number(major) < OLDEST_MAJOR) return unknownPath(`/${version}`);
  return undefined;
}

/** Graph's answer to a missing, unknown, expired or revoked token. */
export function tokenRefusal(checked: TokenFailure, appId: string): Reply {
  if (checked.reason === 'missing') return missingToken();
  if (checked.reason === 'revoked') return revokedToken(appId);
  if (checked.reason === 'expired') return expiredToken(checked.expiredAt!);
  return invalidToken();
}

export function facebookLogin(context: LoginContext): {
  authorize: (request: FakeRequest) => Reply;
  token: (request: FakeRequest) => Reply;
} {
  const { appId, appSecret, redirectUris, codes, tokens, consent } = context;
  const declinedByCode = new Map<string, string[]>();
  const tokenFailure = (checked: TokenFailure) => tokenRefusal(checked, appId);

  const authorize = (request: FakeRequest): Reply => {
    const q = request.query;
    const version = checkVersion(request);
    if (version) return { status: 404, text: 'Sorry, this content is not available right now.' };
    // Without a known app and an allowed callback there is nowhere safe to redirect: a page instead.
    if (q.client_id !== appId)
      return { status: 400, text: 'Invalid App ID: the provided app ID does not look like a valid app ID.' };
    if (!isRedirectableUri(q.redirect_uri) || (redirectUris?.length && !redirectUris.includes(q.redirect_uri))) {
      return {
        status: 400,
        text: "URL Blocked: This redirect failed because the redirect URI is not whitelisted in the app's Client OAuth Settings.",
      };
    }
    const scopes = (q.scope ?? '')
      .split(',')
      .map((scope) => scope.trim())
      .filter(Boolean);
    const unknown = scopes.filter((scope) => !(FACEBOOK_PERMISSIONS as readonly string[]).includes(scope));
    if (unknown.length) return { status: 400, text: `Invalid Scopes: ${unknown.join(', ')}.` };
    if (q.response_type !== undefined && q.response_type !== 'code') {
      return { status: 400, text: 'Invalid response_type: this app takes response_type=code.' };
    }
    // Stricter than Facebook, which makes `state` optional: a client without it has no CSRF check.
    if (!q.state) return { status: 400, text: 'The fake requires a state parameter.' };
    if (consent.deny) {
      return redirectTo(q.redirect_uri, {
        error: 'access_denied',
        error_code: '200',
        error_description: 'Permissions error',
        error_reason: 'user_denied',
        state: q.state,
      });
    }
    const granted = ['public_profile', ...scopes.filter((scope) => scope !== 'public_profile')].filter(
      (scope) => !consent.declined.includes(scope),
    );
    const code = codes.issueCode({
      userId: consent.userId,
      scopes: granted,
      clientId: appId,
      redirectUri: q.redirect_uri,
    });
    declinedByCode.set(
      code,
      scopes.filter((scope) => consent.declined.includes(scope)),
    );
    return redirectTo(q.redirect_uri, { code, state: q.state });
  };

  const token = (request: FakeRequest): Reply => {
    const versionError = checkVersion(request);
    if (versionError) return versionError;
    const q = request.query;
    if (!q.client_id) return oauthRefusal('Missing client_id parameter.', 101);
    if (q.client_id !== appId) return oauthRefusal('Error validating application. Invalid application ID.', 101);
    if (!q.client_secret) return oauthRefusal('Missing client_secret parameter.', 1);
    if (q.client_secret !== appSecret) return oauthRefusal('Error validating client secret.', 1);
    if (q.grant_type === 'fb_exchange_token') {
      const checked = tokens.check(q.fb_exchange_token);
      if (!checked.ok) return tokenFailure(checked);
      if (checked.token.kind !== 'user') return invalidParameter('fb_exchange_token must be a user access token');
      const { userId, scopes, declined } = checked.token;
      return tokenAnswer(tokens.issueUser(userId, { scopes, declined }, true));
    }
    if (q.grant_type !== undefined) return invalidParameter(`Unsupported grant_type: ${q.grant_type}`);
    if (!q.redirect_uri) return oauthRefusal('Missing redirect_uri parameter.', 191);
    if (!q.code) return oauthRefusal('Missing authorization code', 100);
    const redeemed = codes.redeemCode(q.code);
    if (!redeemed.ok) {
      if (redeemed.reason === 'used') return oauthRefusal('This authorization code has been used.', 100, 36009);
      if (redeemed.reason === 'expired') return oauthRefusal('This authorization code has expired.', 100, 36007);
      return oauthRefusal('Invalid verification code format.', 100);
    }
    if (redeemed.code.redirectUri !== q.redirect_uri) {
      return oauthRefusal(
        'Error validating verification code. Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
        100,
        36008,
      );
    }
    const { userId, scopes } = redeemed.code;
    return tokenAnswer(tokens.issueUser(userId, { scopes, declined: declinedByCode.get(q.code) ?? [] }, false));
  };

  return { authorize, token };
}

function tokenAnswer(issued: { value: string; expiresIn: number }): Reply {
  return { status: 200, json: { access_token: issued.value, token_type: 'bearer', expires_in: issued.expiresIn } };
}
