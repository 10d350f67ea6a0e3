/**
 * Threads' OAuth, Meta's login without a refresh token (meta/login.ts): the consent window on
 * threads.net; the code, the trade for a 60-day token (`th_exchange_token`) and its renewal
 * (`th_refresh_token`) all on graph.threads.net, the token sent as the `access_token` parameter.
 */
import type { Clock } from '../../clock.ts';
import { metaLoginOAuth, type MetaLogin } from '../meta/login.ts';
import type { OAuthProvider } from '../platform-client.ts';
import { THREADS_GRAPH } from './errors.ts';

export const THREADS_SCOPES = ['threads_basic', 'threads_content_publish'] as const;

const THREADS_LOGIN: MetaLogin = {
  graph: THREADS_GRAPH,
  scopes: THREADS_SCOPES,
  grants: { exchange: 'th_exchange_token', refresh: 'th_refresh_token' },
  profile: {
    fields: ['id', 'username', 'name', 'threads_profile_picture_url'],
    url: (username) => `https://www.threads.net/@${encodeURIComponent(username)}`,
  },
};

export interface ThreadsHosts {
  /** threads.net: the consent window. */
  authBaseUrl: string;
  /** graph.threads.net: tokens, the profile and publishing. */
  apiBaseUrl: string;
}

export function threadsOAuth(hosts: ThreadsHosts, timeoutMs: number, clock?: Clock): OAuthProvider {
  return metaLoginOAuth(THREADS_LOGIN, hosts, timeoutMs, clock);
}
