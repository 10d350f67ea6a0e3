/**
 * Instagram Login for professional accounts (Business Login for Instagram), Meta's login without a
 * refresh token (meta/login.ts): the code is traded at api.instagram.com, which answers refusals in
 * its own envelope; the 60-day token is traded and renewed with `ig_exchange_token` and
 * `ig_refresh_token`, and sent as a bearer header.
 */
import type { Clock } from '../../clock.ts';
import { metaLoginOAuth, type MetaLogin, type MetaLoginHosts } from '../meta/login.ts';
import type { OAuthProvider } from '../platform-client.ts';
import { INSTAGRAM_GRAPH, instagramTokenError } from './errors.ts';

/** Reading the account (basic) and publishing to it. */
export const INSTAGRAM_SCOPES = ['instagram_business_basic', 'instagram_business_content_publish'] as const;

const INSTAGRAM_LOGIN: MetaLogin = {
  graph: INSTAGRAM_GRAPH,
  scopes: INSTAGRAM_SCOPES,
  grants: { exchange: 'ig_exchange_token', refresh: 'ig_refresh_token' },
  // The code is exchanged at api.instagram.com, which answers refusals in an envelope of its own.
  tokenRefusal: instagramTokenError,
  profile: {
    // `user_id` is the professional account's id, the one the publishing paths take; `id` is app-scoped.
    fields: ['user_id', 'username', 'name', 'account_type'],
    url: (username) => `https://www.instagram.com/${encodeURIComponent(username)}`,
  },
};

/** www.instagram.com for consent, api.instagram.com for the code, graph.instagram.com for the rest. */
export type InstagramHosts = Required<MetaLoginHosts>;

export function instagramOAuth(hosts: InstagramHosts, timeoutMs: number, clock?: Clock): OAuthProvider {
  return metaLoginOAuth(INSTAGRAM_LOGIN, hosts, timeoutMs, clock);
}
