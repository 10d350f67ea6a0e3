/**
 * What one attempt got back (the transport makes it, the policy judges it). `statusCode` 0 means no HTTP
 * response came (refused, reset, timed out, blocked).
 */
export interface AttemptResult {
  statusCode: number;
  /** The first 8,192 bytes of the response body as text (null when no response came). */
  responseBody: string | null;
  durationMs: number;
  /** Why no response came, for the log (`timeout after 10000 ms`, `connection refused`, `blocked address 127.0.0.1`). */
  error: string | null;
}
