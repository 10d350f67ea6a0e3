import type { CallToolResult } from '@modelcontextprotocol/server';
import { asServiceError, errorEnvelope, RateLimitError, ServiceUnavailableError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';

/**
 * The MCP door's only error translator: a failure is a tool result with isError, carrying the API's
 * code and message (and details or retry_after when the API would send them) as JSON text. It has no
 * structuredContent: that must match the tool's outputSchema, and SDK clients validate it even on
 * an error, so an error object there would turn every failure into a client-side validation error.
 */
export function toToolError(error: unknown, docsUrl: string, log: Logger): CallToolResult {
  if (error instanceof RateLimitError) {
    return toolErrorResult({
      error: { code: error.code, message: error.message, retry_after: error.retryAfter, docs_url: docsUrl },
    });
  }
  const known = asServiceError(error);
  if (known instanceof ServiceUnavailableError) {
    const envelope = errorEnvelope(known, docsUrl);
    return toolErrorResult({ error: { ...envelope.error, retry_after: known.retryAfter } });
  }
  if (known) return toolErrorResult(errorEnvelope(known, docsUrl));
  log.error({ err: error }, 'Unexpected error in a tool call');
  return toolErrorResult({
    error: { code: 'internal', message: 'An unexpected error occurred; retry after a short delay.', docs_url: docsUrl },
  });
}

/** The tool result of an error envelope: a fresh failure, or one replayed for an idempotency key. */
export function toolErrorResult(envelope: unknown): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }] };
}
