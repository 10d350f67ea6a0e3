/**
 * Connecting a live account, by step: start (connect-start.ts), credentials (connect-credentials.ts),
 * the OAuth callback (connect-callback.ts), the person's confirmation (connect-confirmation.ts) and
 * storage (connect-storage.ts). The doors import the steps they serve from here.
 */
export { ConnectRequest, startAccountConnection, startSessionConnection } from './connect-start.ts';
export {
  accountHandle,
  completeConnection,
  type AccountChoice,
  type ConnectionOutcome,
  type ConnectionRefusal,
} from './connect-callback.ts';
export { completeConfirmation } from './connect-confirmation.ts';
