import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkpointCodec } from '../../../src/core/platforms/checkpoint.ts';
import { rateLimitReset, retryAfterAt } from '../../../src/core/platforms/http.ts';
import { ContainerExpired } from '../../../src/core/platforms/meta/containers.ts';
import { metaErrorFamily, regainAccessAt } from '../../../src/core/platforms/meta/errors.ts';
import { PlatformError } from '../../../src/core/platforms/platform-client.ts';
import { withoutSecrets } from '../../../src/core/platforms/redaction.ts';

const NOW = new Date('2026-03-10T12:00:00.000Z');

describe('withoutSecrets', () => {
  it('masks every secret in the message and the stack, keeping the class and the fields', () => {
    const error = new ContainerExpired('media_invalid', 'Meta said: token tok-123 and secret s3cr3t are bad', {
      status: 400,
    });
    const masked = withoutSecrets(error, 'tok-123', 's3cr3t');
    expect(masked).toBeInstanceOf(ContainerExpired);
    expect(masked.kind).toBe('media_invalid');
    expect(masked.details).toEqual({ status: 400 });
    expect(masked.message).toBe('Meta said: token [redacted] and secret [redacted] are bad');
    expect(masked.stack).not.toContain('tok-123');
    expect(masked.stack).not.toContain('s3cr3t');
    expect(error.message).toContain('tok-123');
  });

  it('answers anything without the secrets as it is, and ignores empty secrets', () => {
    const error = new PlatformError('transient', 'nothing secret');
    expect(withoutSecrets(error, 'tok-123', '')).toBe(error);
    expect(withoutSecrets('a string with tok-123', 'tok-123')).toBe('a string with tok-123');
  });
});

describe('rate-limit resets', () => {
  it('reads x-rate-limit-reset, then Retry-After in seconds or as a date', () => {
    expect(rateLimitReset(new Headers({ 'x-rate-limit-reset': '1773144060' }), NOW)).toEqual(
      new Date(1773144060 * 1000),
    );
    expect(rateLimitReset(new Headers({ 'retry-after': '30' }), NOW)).toEqual(new Date(NOW.getTime() + 30_000));
    expect(retryAfterAt(new Headers({ 'retry-after': 'Tue, 10 Mar 2026 12:05:00 GMT' }), NOW)).toEqual(
      new Date('2026-03-10T12:05:00.000Z'),
    );
    expect(rateLimitReset(new Headers({ 'retry-after': 'soon' }), NOW)).toBeUndefined();
    expect(rateLimitReset(new Headers(), NOW)).toBeUndefined();
  });

  it("Meta's regain time comes from the usage headers, else Retry-After", () => {
    const usage = JSON.stringify({ '123': [{ call_count: 100, estimated_time_to_regain_access: 7 }] });
    expect(regainAccessAt(new Headers({ 'x-business-use-case-usage': usage, 'retry-after': '5' }), NOW)).toEqual(
      new Date(NOW.getTime() + 7 * 60_000),
    );
    expect(regainAccessAt(new Headers({ 'retry-after': '5' }), NOW)).toEqual(new Date(NOW.getTime() + 5_000));
  });
});

describe("Meta's error families", () => {
  it.each([
    [400, { code: 190, subcode: 463 }, 'reauth'],
    [400, { code: 100, message: 'REVOKED_ACCESS_TOKEN' }, 'reauth'],
    [403, { code: 200 }, 'permission'],
    [400, { code: 80002 }, 'throttle'],
    [400, { code: 100, subcode: 1390008 }, 'throttle'],
    [429, undefined, 'throttle'],
    [500, { code: 100 }, 'transient'],
    [400, { code: 2 }, 'transient'],
    [400, { code: 100, subcode: 33 }, undefined],
  ] as const)('%i %j is %s', (status, error, family) => {
    expect(metaErrorFamily(status, error)).toBe(family);
  });
});

describe('checkpointCodec', () => {
  const codec = checkpointCodec({ id: z.string().min(1), done: z.array(z.number()) });

  it('reads each field through its schema and leaves out the ones that fail', () => {
    expect(codec.read({ id: 'c1', done: [1, 2] })).toEqual({ id: 'c1', done: [1, 2] });
    expect(codec.read({ id: '', done: [1, 'two'], other: true })).toEqual({});
    expect(codec.read({ id: 'c1', done: 'nope' })).toEqual({ id: 'c1' });
  });

  it('refuses to save what it would not read back', async () => {
    const saved: Record<string, unknown>[] = [];
    const checkpoint = { data: {}, save: async (patch: Record<string, unknown>) => void saved.push(patch) };
    await codec.save(checkpoint, { id: 'c2' });
    await expect(codec.save(checkpoint, { id: '' })).rejects.toThrow();
    expect(saved).toEqual([{ id: 'c2' }]);
  });
});
