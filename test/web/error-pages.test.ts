import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/core/errors.ts';
import { actionErrorTitle, pageStatus } from '../../src/web/errors.ts';

/**
 * The dashboard's own error translator, on the statuses every HTTP door shares (src/http): this
 * checks the values a page answers with.
 */
describe('dashboard error pages', () => {
  it('gives every error code a client or server error status', () => {
    for (const code of ERROR_CODES) {
      expect(pageStatus(code), code).toBeGreaterThanOrEqual(400);
      expect(pageStatus(code), code).toBeLessThan(600);
    }
  });

  it('answers with the statuses the dashboard has always used', () => {
    expect(pageStatus('invalid_body')).toBe(400);
    expect(pageStatus('forbidden')).toBe(403);
    expect(pageStatus('plan_forbidden')).toBe(403);
    expect(pageStatus('not_found')).toBe(404);
    expect(pageStatus('invalid_state')).toBe(409);
    expect(pageStatus('unprocessable_entity')).toBe(422);
    expect(pageStatus('rate_limit_exceeded')).toBe(429);
    expect(pageStatus('internal')).toBe(500);
    expect(pageStatus('platform_unavailable')).toBe(502);
  });

  it('titles a refused form "Not found" for a missing thing and "That did not work" otherwise', () => {
    expect(actionErrorTitle('not_found')).toBe('Not found');
    expect(actionErrorTitle('invalid_state')).toBe('That did not work');
  });
});
