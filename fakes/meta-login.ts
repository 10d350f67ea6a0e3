/**
 * Meta's login without a refresh token, as the fakes of Instagram and Threads run it: the consent page
 * (an error page, not a redirect, for a wrong app or callback; `#_` appended to the redirect, as Meta
 * does), codes that work once, short-lived tokens traded once (`ig_exchange_token`,
 * `th_exchange_token`) for 60-day ones, renewed (`ig_refresh_token`, `th_refresh_token`) only once they
 * are at least 24 hours old, and calls on `/{user-id}/…` allowed only for the token's own account.
 * The code exchange itself differs (host and envelope), so each fake answers it with `redeemCode`.
 */
import type { FakeClock } from './shared/clock.ts';
import { bearerToken, isRedirectableUri, type FakeRequest, type FakeRouter, type Reply } from './shared/http-fake.ts';
import { TokenStore, type CodeOutcome, type IssuedTokens } from './shared/token-store.ts';
import {
  expiredToken,
  graphError,
  graphParams,
  invalidParameter,
  invalidToken,
  missingPermission,
  noSuchObject,
  revokedToken,
} from './meta-graph.ts';

const SHORT_LIVED_SECS = 3600;
const LONG_LIVED_SECS = 60 * 86_400;
const REFRESH_MIN_AGE_MS = 24 * 3600 * 1000;

export interface MetaLoginOptions<User> {
  /** The platform's name, for the fake's own errors: `Instagram`, `Threads`. */
  name: string;
  /** Starts every token, so a token of one fake is never taken for another's: `IGfake`, `THfake`. */
  tokenPrefix: string;
  clientId: string;
  clientSecret: string;
  /** Every scope the consent page knows, the one it requires, and the one publishing needs. */
  scopes: readonly string[];
  requiredScope: string;
  publishScope: string;
  /** The labels of the login's routes in the request log. */
  routeLabels: { authorize: string; exchange: string; refresh: string };
  /** Registered redirect URLs; when empty, any absolute http(s) URL is accepted. */
  redirectUris?: string[];
  /** The `grant_type` of the trade for a 60-day token, and of its renewal. */
  grants: { exchange: string; refresh: string };
  codeTtlSecs: number;
  users: User[];
  idOf(user: User): string;
}

export interface MetaAccess<User> {
  user: User;
  scopes: string[];
  token: string;
  longLived: boolean;
}

export class MetaLogin<User> {
  /** Who the consent page logs in, and whether they refuse. */
  readonly consent: { userId: string; deny: boolean };
  private readonly shortTokens: TokenStore;
  private readonly longTokens: TokenStore;
  /** When each long-lived token was issued: a renewal needs it 24 h old. */
  private readonly issuedAt = new Map<string, number>();
  /** Short-lived tokens already traded: each is exchanged once. */
  private readonly exchanged = new Set<string>();

  constructor(
    private readonly clock: FakeClock,
    readonly options: MetaLoginOptions<User>,
  ) {
    this.consent = { userId: options.idOf(options.users[0]!), deny: false };
    const store = (kind: string, accessTtlSecs: number) =>
      new TokenStore(clock, {
        prefix: `${options.tokenPrefix}${kind}`,
        accessTtlSecs,
        codeTtlSecs: options.codeTtlSecs,
        rotateRefresh: false,
      });
    this.shortTokens = store('S', SHORT_LIVED_SECS);
    this.longTokens = store('L', LONG_LIVED_SECS);
  }

  /** GET /oauth/authorize: the consent page, answered with a redirect carrying a code (or the refusal). */
  authorize = (request: FakeRequest): Reply => {
    const q = request.query;
    const { clientId, redirectUris, scopes: known, requiredScope } = this.options;
    if (q.client_id !== clientId) return { status: 400, text: 'Invalid platform app' };
    if (!isRedirectableUri(q.redirect_uri)) return { status: 400, text: 'Invalid redirect_uri' };
    if (redirectUris?.length && !redirectUris.includes(q.redirect_uri)) {
      return { status: 400, text: 'Invalid redirect_uri: it does not match a valid OAuth redirect URI of the app' };
    }
    if (q.response_type !== 'code') return { status: 400, text: 'Invalid response_type: it must be code' };
    const scopes = (q.scope ?? '').split(/[\s,]+/).filter(Boolean);
    const unknown = scopes.filter((scope) => !known.includes(scope));
    if (unknown.length) return { status: 400, text: `Invalid Scopes: ${unknown.join(', ')}` };
    if (!scopes.includes(requiredScope)) return { status: 400, text: `Invalid Scopes: ${requiredScope} is required` };
    const target = new URL(q.redirect_uri);
    const params: Record<string, string> = this.consent.deny
      ? { error: 'access_denied', error_reason: 'user_denied', error_description: 'The user denied your request.' }
      : {
          code: this.shortTokens.issueCode({
            userId: this.consent.userId,
            scopes,
            clientId,
            redirectUri: q.redirect_uri,
          }),
        };
    for (const [name, value] of Object.entries({ ...params, ...(q.state && { state: q.state }) })) {
      target.searchParams.set(name, value);
    }
    // Meta appends `#_` to the redirect; browsers keep fragments to themselves.
    target.hash = '_';
    return { status: 302, headers: { location: target.toString() } };
  };

  /** The consent page and the long-lived token endpoints on `router`. */
  addRoutes(router: FakeRouter): FakeRouter {
    const labels = this.options.routeLabels;
    return router
      .add('GET', '/oauth/authorize', labels.authorize, this.authorize)
      .add('GET', '/access_token', labels.exchange, this.exchange)
      .add('GET', '/refresh_access_token', labels.refresh, this.refresh);
  }

  /** What a test scripts about the login. */
  readonly script = {
    /** The next consent logs in `userId`. */
    loginAs: (userId: string): void => {
      if (!this.options.users.some((user) => this.options.idOf(user) === userId)) {
        throw new Error(`No fake ${this.options.name} user ${userId}`);
      }
      this.consent.userId = userId;
    },
    /** The user cancels: the redirect carries `error=access_denied&error_reason=user_denied`. */
    denyConsent: (deny = true): void => {
      this.consent.deny = deny;
    },
    /** The user removes the app: every token of theirs answers 190 (subcode 460) from then on. */
    revoke: (userId: string): void => {
      this.shortTokens.revokeUser(userId);
      this.longTokens.revokeUser(userId);
    },
  };

  /** Spends a code at the code exchange (its checks and envelope are the fake's own). */
  redeemCode(code: string): CodeOutcome {
    return this.shortTokens.redeemCode(code);
  }

  /** The short-lived token a redeemed code gives. */
  issueShortLived(userId: string, scopes: string[]): IssuedTokens {
    return this.shortTokens.issue({ userId, scopes }, false);
  }

  issueLongLived(userId: string, scopes: string[]): IssuedTokens {
    const issued = this.longTokens.issue({ userId, scopes }, false);
    this.issuedAt.set(issued.accessToken, this.clock.now());
    return issued;
  }

  /** The caller behind a Graph call's token (the Authorization header or the `access_token` parameter). */
  authenticate(request: FakeRequest): MetaAccess<User> | Reply {
    const value = bearerToken(request) ?? graphParams(request).access_token;
    const long = this.longTokens.check(value);
    const access = long.ok || long.reason !== 'unknown' ? long : this.shortTokens.check(value);
    if (!access.ok) {
      if (access.reason === 'revoked') return revokedToken();
      return access.reason === 'expired' ? expiredToken() : invalidToken();
    }
    const user = this.options.users.find((candidate) => this.options.idOf(candidate) === access.userId);
    if (!user) return invalidToken();
    return { user, scopes: access.scopes, token: value!, longLived: long.ok };
  }

  /** GET /access_token: a short-lived token traded, once, for a 60-day one. */
  exchange = (request: FakeRequest): Reply => {
    const q = request.query;
    const grant = this.options.grants.exchange;
    if (q.grant_type !== grant) return invalidParameter(`Param grant_type must be ${grant}.`);
    if (!q.client_secret) return invalidParameter('The parameter client_secret is required.');
    if (q.client_secret !== this.options.clientSecret) return graphError(400, 101, 'Error validating client secret.');
    const access = this.authenticate(request);
    if (isReply(access)) return access;
    if (access.longLived) return invalidParameter('The access token is already long-lived; refresh it instead.');
    if (this.exchanged.has(access.token)) {
      return invalidParameter('This short-lived access token has already been exchanged.');
    }
    this.exchanged.add(access.token);
    return longLivedAnswer(this.issueLongLived(this.options.idOf(access.user), access.scopes));
  };

  /** GET /refresh_access_token: a 60-day token at least 24 hours old, renewed. */
  refresh = (request: FakeRequest): Reply => {
    const grant = this.options.grants.refresh;
    if (request.query.grant_type !== grant) return invalidParameter(`Param grant_type must be ${grant}.`);
    const access = this.authenticate(request);
    if (isReply(access)) return access;
    if (!access.longLived) return invalidParameter('Only a long-lived access token can be refreshed.');
    if (this.clock.now() - (this.issuedAt.get(access.token) ?? 0) < REFRESH_MIN_AGE_MS) {
      return invalidParameter('The access token must be at least 24 hours old to be refreshed.');
    }
    return longLivedAnswer(this.issueLongLived(this.options.idOf(access.user), access.scopes));
  };

  /**
   * A handler for `/{user-id}/…` (route parameter `userId`): only the token's own account (or `me`),
   * and, for a call that publishes, only with the publish scope granted.
   */
  asOwner(
    handler: (request: FakeRequest, user: User) => Reply | Promise<Reply>,
    publishes: boolean,
  ): (request: FakeRequest) => Reply | Promise<Reply> {
    const permission = publishes ? this.options.publishScope : null;
    return (request) => {
      const access = this.authenticate(request);
      if (isReply(access)) return access;
      const pathUser = request.params.userId!;
      if (pathUser !== this.options.idOf(access.user) && pathUser !== 'me') {
        return noSuchObject(pathUser, request.method === 'GET' ? 'get' : 'post');
      }
      if (permission && !access.scopes.includes(permission)) return missingPermission(permission);
      return handler(request, access.user);
    };
  }
}

export const isReply = <User>(value: MetaAccess<User> | Reply): value is Reply => 'status' in value || 'drop' in value;

function longLivedAnswer(issued: IssuedTokens): Reply {
  return {
    status: 200,
    json: { access_token: issued.accessToken, token_type: 'bearer', expires_in: issued.expiresIn },
  };
}
