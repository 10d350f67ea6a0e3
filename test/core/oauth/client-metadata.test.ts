import { describe, expect, it } from 'vitest';
import {
  DEFAULT_METADATA_FRESHNESS_MS,
  MAX_METADATA_FRESHNESS_MS,
  metadataFreshnessMs,
} from '../../../src/core/oauth/client-metadata.ts';

describe('how long a client metadata document is used (Cache-Control)', () => {
  it('takes max-age, capped at 24 hours', () => {
    expect(metadataFreshnessMs('max-age=600')).toBe(600_000);
    expect(metadataFreshnessMs('public, max-age=3600')).toBe(3_600_000);
    expect(metadataFreshnessMs('max-age="120"')).toBe(120_000);
    expect(metadataFreshnessMs('max-age=31536000')).toBe(MAX_METADATA_FRESHNESS_MS);
    expect(MAX_METADATA_FRESHNESS_MS).toBe(24 * 60 * 60 * 1000);
  });

  it('uses nothing stored for no-store, no-cache or max-age=0', () => {
    expect(metadataFreshnessMs('no-store')).toBe(0);
    expect(metadataFreshnessMs('max-age=600, no-cache')).toBe(0);
    expect(metadataFreshnessMs('max-age=0')).toBe(0);
  });

  it('keeps a document that says nothing about caching, or nothing readable, for an hour', () => {
    expect(metadataFreshnessMs(undefined)).toBe(DEFAULT_METADATA_FRESHNESS_MS);
    expect(metadataFreshnessMs('public')).toBe(DEFAULT_METADATA_FRESHNESS_MS);
    expect(metadataFreshnessMs('max-age=soon')).toBe(DEFAULT_METADATA_FRESHNESS_MS);
    expect(DEFAULT_METADATA_FRESHNESS_MS).toBe(60 * 60 * 1000);
  });
});
