/**
 * Threads' own refusals. graph.threads.net answers Meta's Graph envelope, sorted once for both
 * container APIs (meta/errors.ts), token endpoints included; what is Threads' is the publish of a
 * container that is not FINISHED yet (code 24, subcode 4279009, as users report it) and the
 * publish permission's name.
 */
import type { GraphApi } from '../meta/graph-call.ts';

/** graph.threads.net takes the token as the `access_token` parameter, as Threads documents every call. */
export const THREADS_GRAPH: GraphApi = {
  platform: 'threads',
  tokenIn: 'query',
  refusals: {
    name: 'Threads',
    credentials: 'THREADS_APP_ID and THREADS_APP_SECRET',
    publishPermission: 'threads_content_publish',
    isNotReady: (error) => error.subcode === 4279009,
    expiredSubcodes: new Set(),
    refusedSubcodes: new Map(),
    mediaSubcodes: new Set(),
  },
};
