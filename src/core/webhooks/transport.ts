/**
 * Contract of the webhook transport (being implemented): signing, the SSRF guard and one HTTP
 * attempt. The worker, the test endpoint and the subscription API call only these.
 */

/** What one attempt got back. `statusCode` 0 means no HTTP response came (refused, reset, timed out, blocked). */
export interface AttemptResult {
  statusCode: number;
  /** The first 8,192 bytes of the response body as text (null when no response came). */
  responseBody: string | null;
  durationMs: number;
  /** Why no response came, for the log (`timeout after 10000 ms`, `connection refused`, `blocked address 127.0.0.1`). */
  error: string | null;
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivateUrls: boolean;
}

/** Standard Webhooks v1: `v1,` + base64(HMAC-SHA256(base64-decoded secret, `${id}.${timestamp}.${body}`)). */
export declare function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string;

/** A new signing secret: `whsec_` + base64 of 32 random bytes. */
export declare function newSigningSecret(): string;

/**
 * Why `url` may not be a webhook target, or null: it must be absolute http(s); a host that is, or
 * resolves to, a loopback, private, link-local, CGNAT, unique-local, multicast or unspecified
 * address is refused unless `allowPrivateUrls`.
 */
export declare function checkWebhookUrl(url: string, options: { allowPrivateUrls: boolean }): Promise<string | null>;

/**
 * POSTs `body` to `url` with `headers` (plus content-type and user-agent): one deadline for connect,
 * headers and body, no redirects, the IP actually dialled checked against the guard.
 */
export declare function postWebhook(url: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<AttemptResult>;

/** DECISIONS.md, Delivery: a 2xx answer is delivered; anything else (a 3xx included) failed. */
export const isDelivered = (result: AttemptResult): boolean => result.statusCode >= 200 && result.statusCode < 300;
