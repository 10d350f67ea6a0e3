import { and, asc, eq, gt, lte } from 'drizzle-orm';
import { writeTransaction } from '../../../db/client.ts';
import { oauthClients, oauthMetadataFetches } from '../../../db/schema/index.ts';
import type { Runtime } from '../context.ts';
import { RateLimitError, ServiceError } from '../errors.ts';
import { isRegistrationError } from './errors.ts';
import { DownloadError, getPublicFile } from '../media/download.ts';
import { findClient, type OAuthClient } from './grants.ts';
import { MAX_URI_LENGTH, checkRegistrationAllowance, readClientMetadata } from './registration.ts';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client whose
 * client_id is an https URL is described by the JSON document at that URL, so it needs no
 * registration. The document is fetched when an authorization request names it, through the webhook
 * SSRF guard, and kept as the client's row until its freshness runs out.
 */

/** A metadata document is a few fields; anything larger is not one. */
export const MAX_METADATA_DOCUMENT_BYTES = 5 * 1024;
/** The longest a fetched document is used, whatever its Cache-Control says. */
export const MAX_METADATA_FRESHNESS_MS = 24 * 60 * 60 * 1000;
/** How long a document that says nothing about caching is used. */
export const DEFAULT_METADATA_FRESHNESS_MS = 60 * 60 * 1000;
/**
 * The shortest a fetched document is used, whatever its Cache-Control says (no-store included): the
 * authorize page and its consent post must see the same client, and a request must not be able to
 * make the service fetch on every call.
 */
export const MIN_METADATA_FRESHNESS_MS = 60 * 1000;
/**
 * Outbound document fetches, success or not, allowed in a sliding window: per document whoever asks
 * (one URL cannot be hammered through the service), and per requesting address whatever the document.
 * A document kept its minute fetches at most ten times in the window, so its own use never meets the cap.
 */
export const METADATA_FETCH_WINDOW_MS = 10 * 60 * 1000;
export const METADATA_FETCHES_PER_DOCUMENT = 10;
export const METADATA_FETCHES_PER_ADDRESS = 20;
const FETCH_TIMEOUT_MS = 5_000;

/** Why a metadata-document client cannot be used: shown to the person, never redirected. */
const unusable = (message: string) => new ServiceError('unusable_client_metadata', message);

/** Whether a client_id names a metadata document rather than a registered client. */
export const isMetadataDocumentClientId = (clientId: string): boolean => /^https:\/\//i.test(clientId);

/**
 * The URL rules of a client_id: https with a path, no fragment, no credentials, and already in its
 * normal form (so `/./` or `/../` segments, which the URL parser would quietly resolve, are refused).
 */
function checkClientIdUrl(clientId: string): void {
  const refuse = (why: string) => unusable(`The client_id ${clientId} cannot be used: ${why}.`);
  if (clientId.length > MAX_URI_LENGTH) throw refuse(`it is longer than ${MAX_URI_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw refuse('it is not a URL');
  }
  if (url.protocol !== 'https:') throw refuse('a metadata document URL must use https');
  if (url.username || url.password) throw refuse('it carries credentials');
  if (clientId.includes('#')) throw refuse('it has a fragment');
  if (url.pathname === '/') throw refuse('it must have a path');
  if (url.href !== clientId) throw refuse(`it is not in normal form (${url.href})`);
}

/** Seconds of freshness from Cache-Control: no-store, no-cache and max-age=0 mean none; capped at 24 hours. */
export function metadataFreshnessMs(cacheControl: string | undefined): number {
  if (cacheControl === undefined) return DEFAULT_METADATA_FRESHNESS_MS;
  const directives = cacheControl
    .toLowerCase()
    .split(',')
    .map((part) => part.trim());
  if (directives.includes('no-store') || directives.includes('no-cache')) return 0;
  const maxAge = directives.map((part) => /^max-age\s*=\s*"?(\d+)"?$/.exec(part)?.[1]).find(Boolean);
  if (maxAge === undefined) return DEFAULT_METADATA_FRESHNESS_MS;
  return Math.min(Number(maxAge) * 1000, MAX_METADATA_FRESHNESS_MS);
}

/** Reads the fetched document: JSON naming itself, a public client, redirect URIs by the registration rules. */
function parseDocument(clientId: string, body: Buffer) {
  const refuse = (why: string) => unusable(`The client's metadata document at ${clientId} cannot be used: ${why}`);
  let document: unknown;
  try {
    document = JSON.parse(body.toString('utf8'));
  } catch {
    throw refuse('it is not JSON.');
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw refuse('it is not a JSON object.');
  }
  const fields = document as Record<string, unknown>;
  if (fields.client_id !== clientId) throw refuse('its client_id is not the URL it was fetched from.');
  // A document is public: it can carry no shared secret, and private_key_jwt is not supported here.
  const method = fields.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    throw refuse('token_endpoint_auth_method must be none (this service accepts public clients by document).');
  }
  if ('client_secret' in fields) throw refuse('a metadata document may not carry a client_secret.');
  try {
    return readClientMetadata({ ...fields, token_endpoint_auth_method: 'none' });
  } catch (error) {
    if (isRegistrationError(error)) throw refuse(error.message);
    throw error;
  }
}

/**
 * Counts a fetch about to be made, or refuses it (429) when the document or the address has used its
 * window. Checked and counted in one write transaction, so processes sharing the database share the
 * count; a fetch that then fails still counts.
 */
async function countMetadataFetch(runtime: Runtime, documentUrl: string, address: string): Promise<void> {
  const now = runtime.clock.now();
  const since = new Date(now.getTime() - METADATA_FETCH_WINDOW_MS);
  await writeTransaction(runtime.db, async () => {
    await runtime.db.delete(oauthMetadataFetches).where(lte(oauthMetadataFetches.fetchedAt, since)).run();
    for (const [column, value, limit] of [
      [oauthMetadataFetches.documentUrl, documentUrl, METADATA_FETCHES_PER_DOCUMENT],
      [oauthMetadataFetches.address, address, METADATA_FETCHES_PER_ADDRESS],
    ] as const) {
      const recent = await runtime.db
        .select({ fetchedAt: oauthMetadataFetches.fetchedAt })
        .from(oauthMetadataFetches)
        .where(and(eq(column, value), gt(oauthMetadataFetches.fetchedAt, since)))
        .orderBy(asc(oauthMetadataFetches.fetchedAt))
        .all();
      if (recent.length < limit) continue;
      const freedAt = recent[0]!.fetchedAt.getTime() + METADATA_FETCH_WINDOW_MS;
      throw new RateLimitError(
        { limit, remaining: 0, reset: Math.ceil(freedAt / 1000) },
        Math.max(1, Math.ceil((freedAt - now.getTime()) / 1000)),
        'client metadata document fetch',
      );
    }
    await runtime.db.insert(oauthMetadataFetches).values({ documentUrl, address, fetchedAt: now }).run();
  });
}

/**
 * The client a metadata-document client_id names: its stored row while fresh, else the document
 * fetched again and stored (for its Cache-Control's time, at least a minute). A new client counts
 * against the address's registration allowance, as a registration would, and every fetch against the
 * fetch allowances. Throws unusable_client_metadata (for the person's page) or RateLimitError.
 */
export async function resolveMetadataDocumentClient(
  runtime: Runtime,
  clientId: string,
  address: string,
): Promise<OAuthClient> {
  checkClientIdUrl(clientId);
  const stored = await findClient(runtime, clientId);
  if (stored?.metadataExpiresAt && stored.metadataExpiresAt > runtime.clock.now()) return stored;
  if (!stored) await checkRegistrationAllowance(runtime, address, runtime.clock.now());
  await countMetadataFetch(runtime, clientId, address);

  let file;
  try {
    file = await getPublicFile(clientId, {
      label: 'The client metadata document',
      accept: 'application/json',
      maxBytes: MAX_METADATA_DOCUMENT_BYTES,
      timeoutMs: FETCH_TIMEOUT_MS,
      allowPrivateUrls: runtime.config.webhooks.allowPrivateUrls,
      // The document is the client_id: one found elsewhere would be another client's.
      maxRedirects: 0,
    });
  } catch (error) {
    if (error instanceof DownloadError) throw unusable(`${error.message}.`);
    throw error;
  }
  const metadata = parseDocument(clientId, file.body);
  const now = runtime.clock.now();
  const cacheControl = file.headers['cache-control'];
  const expiresAt = new Date(now.getTime() + Math.max(MIN_METADATA_FRESHNESS_MS, metadataFreshnessMs(cacheControl)));
  const values = {
    clientName: metadata.clientName ?? null,
    redirectUris: metadata.redirectUris,
    tokenEndpointAuthMethod: 'none' as const,
    secretHash: null,
    metadataExpiresAt: expiresAt,
  };
  await runtime.db
    .insert(oauthClients)
    .values({ id: clientId, registeredFrom: address, createdAt: now, ...values })
    .onConflictDoUpdate({ target: oauthClients.id, set: values })
    .run();
  return (await findClient(runtime, clientId))!;
}
