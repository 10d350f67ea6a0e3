/**
 * Threads' own refusals. graph.threads.net answers Meta's Graph envelope, sorted once for both
 * container APIs (meta/errors.ts); what is Threads' is the publish of a container that is not
 * FINISHED yet (code 24, subcode 4279009, as users report it) and the publish permission's name.
 */
import { graphTokenRefusal, type ContainerApiRefusals } from '../meta/errors.ts';
import type { PlatformError } from '../platform-client.ts';

export const THREADS_REFUSALS: ContainerApiRefusals = {
  name: 'Threads',
  publishPermission: 'threads_content_publish',
  isNotReady: (error) => error.subcode === 4279009,
  expiredSubcodes: new Set(),
  refusedSubcodes: new Map(),
  mediaSubcodes: new Set(),
};

/** A token endpoint's refusal: graph.threads.net answers them all in Graph's envelope. */
export function threadsTokenError(
  step: string,
  response: { status: number; headers: Headers },
  body: unknown,
  now: Date,
): PlatformError {
  return graphTokenRefusal(THREADS_REFUSALS, step, response, body, now, 'THREADS_APP_ID and THREADS_APP_SECRET');
}
