import { DatabaseUnavailableError } from './store.ts';

/** An error of the connection itself (not of a statement): the server went away or the socket broke, or none could be opened in time. */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  // SQLSTATE class 08 (connection exception) and 57P01–57P03 (the server shutting down), or a socket error.
  if (typeof code === 'string') return /^08|^57P0[1-3]$|^E[A-Z]+$/.test(code);
  return /Connection terminated|connection .*closed|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(
    error.message,
  );
}

/** A connection error as DatabaseUnavailableError (the doors answer it 503); any other error as it is. */
export function unavailableIfConnectionError(error: unknown): unknown {
  return isConnectionError(error) && !(error instanceof DatabaseUnavailableError)
    ? new DatabaseUnavailableError(error)
    : error;
}
