/**
 * The token grants at the core (src/core/oauth/grants.ts), below the HTTP token endpoint that
 * oauth-flow.test.ts drives: the PKCE verifier check and refresh-token rotation with reuse detection.
 */
import { createHash, randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { writeTransaction } from '../../../db/client.ts';
import { oauthTokens } from '../../../db/schema/index.ts';
import {
  exchangeAuthorizationCode,
  findClient,
  issueAuthorizationCode,
  refreshTokens,
  resolveAccessToken,
  type OAuthClient,
} from '../../../src/core/oauth/grants.ts';
import { isTokenError } from '../../../src/core/oauth/errors.ts';
import type { ServiceError } from '../../../src/core/errors.ts';
import { registerClient } from '../../../src/core/oauth/registration.ts';
import { makeWorkspace, type TestWorkspace } from '../../helpers/factories.ts';
import { testRuntime, type TestRuntime } from '../../helpers/runtime.ts';

const REDIRECT = 'http://127.0.0.1:4999/callback';
const REVOKED = expect.objectContaining({
  code: 'invalid_key',
  message: 'The access token is unknown or has been revoked.',
});

/** A verifier and its S256 challenge (RFC 7636 section 4.2). */
function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Calls `grant` and answers the OAuth refusal it throws (failing when it throws none). */
async function refusal(grant: () => unknown): Promise<ServiceError> {
  try {
    await grant();
  } catch (error) {
    if (isTokenError(error)) return error;
    throw error;
  }
  throw new Error('expected the grant to be refused');
}

describe('OAuth grants at the core', () => {
  let runtime: TestRuntime;
  let ws: TestWorkspace;
  let client: OAuthClient;

  beforeEach(async () => {
    runtime = await testRuntime();
    ws = await makeWorkspace(runtime);
    const registered = await registerClient(
      runtime,
      { client_name: 'Grant test', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
      '127.0.0.1',
    );
    client = (await findClient(runtime, registered.client_id))!;
  });

  const codeFor = async (challenge: string) =>
    issueAuthorizationCode(runtime, {
      clientId: client.id,
      workspaceId: ws.workspace.id,
      redirectUri: REDIRECT,
      codeChallenge: challenge,
      scopes: ['read', 'write'],
      resource: null,
    });
  const exchange = async (code: string, codeVerifier: string) =>
    exchangeAuthorizationCode(runtime, client, { code, codeVerifier, redirectUri: REDIRECT });
  const tokenRows = async () => runtime.db.select().from(oauthTokens).all();

  describe('PKCE', () => {
    it('issues tokens only for the verifier whose S256 digest is the challenge', async () => {
      const { verifier, challenge } = pkcePair();
      const tokens = await exchange(await codeFor(challenge), verifier);
      expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'read write' });
      expect(await resolveAccessToken(runtime, tokens.access_token)).toMatchObject({
        workspace: { id: ws.workspace.id },
        clientId: client.id,
      });
    });

    it('refuses another verifier, and the challenge itself sent as the verifier (no plain method), issuing nothing', async () => {
      const { verifier, challenge } = pkcePair();
      for (const wrong of [
        pkcePair().verifier,
        challenge,
        `${verifier.slice(0, -1)}${verifier.endsWith('A') ? 'B' : 'A'}`,
      ]) {
        const refused = await refusal(async () => exchange(await codeFor(challenge), wrong));
        expect(refused.code).toBe('invalid_grant');
        expect(refused.message).toBe('code_verifier does not match the challenge.');
      }
      expect(await tokenRows()).toHaveLength(0);
    });

    it('spends the code on a wrong verifier: the right one afterwards is refused too', async () => {
      const { verifier, challenge } = pkcePair();
      const code = await codeFor(challenge);
      expect((await refusal(async () => exchange(code, pkcePair().verifier))).code).toBe('invalid_grant');
      expect((await refusal(async () => exchange(code, verifier))).code).toBe('invalid_grant');
      expect(await tokenRows()).toHaveLength(0);
    });
  });

  describe('spent once, however many at once', () => {
    // On PostgreSQL the exchanges run side by side (as on several hosts), each reading the code or
    // token unspent before any has written: only the spend that finds it still unspent may issue.
    // The pool's connections are opened first, so that none of the four waits for one to connect.
    beforeEach(async () => {
      await Promise.all([1, 2, 3, 4].map(() => writeTransaction(runtime.db, () => runtime.db.get(sql`select 1`))));
    });
    it('a code exchanged four times at once issues tokens once, and the replays revoke them', async () => {
      const { verifier, challenge } = pkcePair();
      const code = await codeFor(challenge);
      const outcomes = await Promise.allSettled([1, 2, 3, 4].map(() => exchange(code, verifier)));
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      for (const outcome of outcomes)
        if (outcome.status === 'rejected') expect((outcome.reason as ServiceError).code).toBe('invalid_grant');
      expect((await tokenRows()).every((row) => row.revokedAt !== null)).toBe(true);
    });

    it('a refresh token used four times at once is rotated once, and the replays revoke the grant', async () => {
      const { verifier, challenge } = pkcePair();
      const first = await exchange(await codeFor(challenge), verifier);
      const outcomes = await Promise.allSettled(
        [1, 2, 3, 4].map(() => refreshTokens(runtime, client, { refreshToken: first.refresh_token })),
      );
      expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
      expect((await tokenRows()).every((row) => row.revokedAt !== null)).toBe(true);
    });
  });

  describe('refresh tokens', () => {
    it('rotate on every use; a spent one sent again is refused and revokes every token of the grant', async () => {
      const { verifier, challenge } = pkcePair();
      const first = await exchange(await codeFor(challenge), verifier);
      const second = await refreshTokens(runtime, client, { refreshToken: first.refresh_token });
      expect(second.refresh_token).not.toBe(first.refresh_token);
      expect(await resolveAccessToken(runtime, second.access_token)).toMatchObject({ clientId: client.id });

      const reused = await refusal(async () => refreshTokens(runtime, client, { refreshToken: first.refresh_token }));
      expect(reused.code).toBe('invalid_grant');
      // Two parties held the spent token: neither keeps anything of the grant.
      expect(
        (await refusal(async () => refreshTokens(runtime, client, { refreshToken: second.refresh_token }))).code,
      ).toBe('invalid_grant');
      for (const token of [first.access_token, second.access_token])
        expect(await resolveAccessToken(runtime, token)).toEqual(REVOKED);
      expect((await tokenRows()).every((row) => row.revokedAt !== null)).toBe(true);
    });

    it('a reuse revokes only its own grant: another grant of the same client and workspace goes on', async () => {
      const a = pkcePair();
      const b = pkcePair();
      const mine = await exchange(await codeFor(a.challenge), a.verifier);
      const other = await exchange(await codeFor(b.challenge), b.verifier);
      await refreshTokens(runtime, client, { refreshToken: mine.refresh_token });
      expect(
        (await refusal(async () => refreshTokens(runtime, client, { refreshToken: mine.refresh_token }))).code,
      ).toBe('invalid_grant');
      expect(await resolveAccessToken(runtime, other.access_token)).toMatchObject({ clientId: client.id });
      expect((await refreshTokens(runtime, client, { refreshToken: other.refresh_token })).scope).toBe('read write');
    });
  });
});
