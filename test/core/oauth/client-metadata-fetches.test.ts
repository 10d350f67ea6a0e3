/**
 * How often an authorization request can make the service fetch a Client ID Metadata Document: every
 * fetch, success or not, counts per document and per requesting address, and a fetched document is
 * kept at least a minute. The documents here live at a loopback port nothing listens on, so every
 * fetch that is made fails at once; what counts is whether it was made.
 */
import { count } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { oauthClients, oauthMetadataFetches } from '../../../db/schema/index.ts';
import { RateLimitError } from '../../../src/core/errors.ts';
import {
  METADATA_FETCHES_PER_ADDRESS,
  METADATA_FETCHES_PER_DOCUMENT,
  METADATA_FETCH_WINDOW_MS,
  MIN_METADATA_FRESHNESS_MS,
  resolveMetadataDocumentClient,
} from '../../../src/core/oauth/client-metadata.ts';
import { testRuntime, type TestRuntime } from '../../helpers/runtime.ts';

/** A document URL on a loopback port that refuses connections. */
const documentUrl = (name: string) => `https://127.0.0.1:1/${name}.json`;
/** What a document that cannot be used (here: cannot be fetched) is refused with. */
const UNUSABLE = { code: 'unusable_client_metadata' };

describe('metadata document fetches', () => {
  let runtime: TestRuntime;
  beforeEach(async () => {
    runtime = await testRuntime({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  });

  const fetchesMade = async () => (await runtime.db.select({ n: count() }).from(oauthMetadataFetches).get())!.n;
  const resolve = (url: string, address: string) => resolveMetadataDocumentClient(runtime, url, address);

  it('allows each document ten fetches in ten minutes, whoever asks; the next is refused without a fetch', async () => {
    for (let i = 1; i <= METADATA_FETCHES_PER_DOCUMENT; i++) {
      await expect(resolve(documentUrl('popular'), `198.51.100.${i}`)).rejects.toMatchObject(UNUSABLE);
    }
    expect(await fetchesMade()).toBe(METADATA_FETCHES_PER_DOCUMENT);
    const refused = await resolve(documentUrl('popular'), '203.0.113.9').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RateLimitError);
    expect((refused as RateLimitError).retryAfter).toBe(METADATA_FETCH_WINDOW_MS / 1000);
    expect(await fetchesMade()).toBe(METADATA_FETCHES_PER_DOCUMENT);
    // Another document is not held back by this one's count.
    await expect(resolve(documentUrl('other'), '203.0.113.9')).rejects.toMatchObject(UNUSABLE);
    runtime.clock.advance(METADATA_FETCH_WINDOW_MS);
    await expect(resolve(documentUrl('popular'), '203.0.113.9')).rejects.toMatchObject(UNUSABLE);
  });

  it('allows each address twenty fetches in ten minutes, whatever the documents; another address still fetches', async () => {
    for (let i = 1; i <= METADATA_FETCHES_PER_ADDRESS; i++) {
      await expect(resolve(documentUrl(`doc-${i}`), '198.51.100.7')).rejects.toMatchObject(UNUSABLE);
    }
    await expect(resolve(documentUrl('doc-next'), '198.51.100.7')).rejects.toBeInstanceOf(RateLimitError);
    expect(await fetchesMade()).toBe(METADATA_FETCHES_PER_ADDRESS);
    await expect(resolve(documentUrl('doc-next'), '198.51.100.8')).rejects.toMatchObject(UNUSABLE);
  });

  it('uses a stored document while it is fresh, with no fetch, and fetches again once it is not', async () => {
    const url = documentUrl('kept');
    const now = runtime.clock.now();
    await runtime.db
      .insert(oauthClients)
      .values({
        id: url,
        clientName: 'Kept',
        redirectUris: ['http://127.0.0.1/callback'],
        tokenEndpointAuthMethod: 'none',
        secretHash: null,
        registeredFrom: '198.51.100.1',
        createdAt: now,
        metadataExpiresAt: new Date(now.getTime() + MIN_METADATA_FRESHNESS_MS),
      })
      .run();
    for (let i = 0; i < 40; i++) expect((await resolve(url, '198.51.100.2')).id).toBe(url);
    expect(await fetchesMade()).toBe(0);
    runtime.clock.advance(MIN_METADATA_FRESHNESS_MS);
    await expect(resolve(url, '198.51.100.2')).rejects.toMatchObject(UNUSABLE);
    expect(await fetchesMade()).toBe(1);
  });
});
