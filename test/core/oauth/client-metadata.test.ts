import { describe, expect, it } from 'vitest';
import {
  DEFAULT_METADATA_FRESHNESS_MS,
  MAX_METADATA_FRESHNESS_MS,
  metadataFreshnessMs,
} from '../../../src/core/oauth/client-metadata.ts';
import { isClientRedirectUri } from '../../../src/core/oauth/registration.ts';

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

describe('which redirect URIs a client may use', () => {
  const registered = ['http://127.0.0.1/callback', 'http://localhost/callback', 'https://app.example/cb'];

  it('matches exactly, and a loopback http URI on any port (a native client picks its port at run time)', () => {
    expect(isClientRedirectUri(registered, 'http://127.0.0.1/callback')).toBe(true);
    expect(isClientRedirectUri(registered, 'http://127.0.0.1:52163/callback')).toBe(true);
    expect(isClientRedirectUri(registered, 'http://localhost:8080/callback')).toBe(true);
    expect(isClientRedirectUri(['http://[::1]:4000/cb'], 'http://[::1]:4999/cb')).toBe(true);
    expect(isClientRedirectUri(registered, 'https://app.example/cb')).toBe(true);
  });

  it('refuses another path, query, host or scheme, and any port change on https', () => {
    expect(isClientRedirectUri(registered, 'http://127.0.0.1:52163/other')).toBe(false);
    expect(isClientRedirectUri(registered, 'http://127.0.0.1:52163/callback?next=x')).toBe(false);
    expect(isClientRedirectUri(registered, 'http://[::1]:52163/callback')).toBe(false);
    expect(isClientRedirectUri(registered, 'https://127.0.0.1:52163/callback')).toBe(false);
    expect(isClientRedirectUri(registered, 'https://app.example:8443/cb')).toBe(false);
    expect(isClientRedirectUri(registered, 'http://app.example/cb')).toBe(false);
    expect(isClientRedirectUri(registered, 'not a url')).toBe(false);
  });
});
