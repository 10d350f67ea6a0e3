import type { OAuthScope } from '../../src/core/oauth/metadata.ts';
import { exchangeAuthorizationCode, findClient, issueAuthorizationCode } from '../../src/core/oauth/grants.ts';
import { registerClient } from '../../src/core/oauth/registration.ts';
import type { Runtime } from '../../src/core/context.ts';

export const REDIRECT = 'http://127.0.0.1:4999/callback';
export const VERIFIER = 'a'.repeat(43);
/** base64url SHA-256 of VERIFIER. */
export const CHALLENGE = 'ZtNPunH49FD35FWYhT5Tv8I7vRKQJ8uxMaL0_9eHjNA';

/**
 * An access token with the given scopes for a workspace, minted through the core steps the consent
 * page and token endpoint take (the HTTP flow itself is tested in oauth-flow.test.ts).
 */
export async function issueTestToken(
  runtime: Runtime,
  workspaceId: string,
  scopes: OAuthScope[],
  clientName = 'Scope test client',
  /** The person the grant is bound to (their role limits it), as a dashboard sign-in on the consent page makes it. */
  userId: string | null = null,
  /** The resource the grant is for, as the consent page would bind it; /mcp by default. */
  resource = `${runtime.config.publicBaseUrl}/mcp`,
): Promise<{ accessToken: string; clientId: string }> {
  const registered = await registerClient(
    runtime,
    { client_name: clientName, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
    '127.0.0.1',
  );
  const code = await issueAuthorizationCode(runtime, {
    clientId: registered.client_id,
    workspaceId,
    userId,
    redirectUri: REDIRECT,
    codeChallenge: CHALLENGE,
    scopes,
    resource,
  });
  const tokens = await exchangeAuthorizationCode(runtime, (await findClient(runtime, registered.client_id))!, {
    code,
    codeVerifier: VERIFIER,
    redirectUri: REDIRECT,
  });
  return { accessToken: tokens.access_token, clientId: registered.client_id };
}

/** The hidden fields of a consent page, as a browser would post them back (the page escapes &, ", '). */
export const consentFormFields = (page: string): Record<string, string> =>
  Object.fromEntries(
    [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map(([, name, value]) => [
      name,
      value
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&amp;/g, '&'),
    ]),
  );
