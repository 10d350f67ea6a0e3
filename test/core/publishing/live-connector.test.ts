/**
 * The live-connector framework with a scripted platform client: what every live platform shares
 * (token refresh, needs_reconnect, retries, the create call marked once, resume and reconciliation),
 * proven once here; the real clients' own tests prove each platform's HTTP.
 */
import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { publishCheckpoints, socialAccounts } from '../../../db/schema/index.ts';
import { claimDuePublishes } from '../../../src/core/publishing/claim.ts';
import { connectorsFor } from '../../../src/core/publishing/connectors/index.ts';
import { fanOut } from '../../../src/core/publishing/fan-out.ts';
import { fillLateUrls } from '../../../src/core/publishing/late-urls.ts';
import { liveConnectorsFor } from '../../../src/core/publishing/live-clients.ts';
import { liveConnector } from '../../../src/core/publishing/live-connector.ts';
import {
  PlatformError,
  type LivePlatformClient,
  type LivePost,
  type LiveSession,
} from '../../../src/core/platforms/platform-client.ts';
import { refreshExpiringTokens, type TokenSource } from '../../../src/core/social-accounts/token-lifecycle.ts';
import type { TokenGrant } from '../../../src/core/social-accounts/tokens.ts';
import { readTokens } from '../../../src/core/social-accounts/tokens.ts';
import { drain } from '../../../src/jobs/drain.ts';
import { publishingJob } from '../../../src/jobs/publish-run.ts';
import { makeContent, makeWorkspace, type TestWorkspace } from '../../helpers/factories.ts';
import { attemptsFor, connectLiveAccount, publish } from '../../helpers/publishing.ts';
import { contentRow, eventsOf } from '../../helpers/rest-expect.ts';
import { testRuntime, type TestRuntime } from '../../helpers/runtime.ts';

const HOUR = 3_600_000;

/** A platform whose publish and refresh run the test's script, counting every call. */
function scriptedPlatform(runtime: TestRuntime) {
  const calls = {
    publish: 0,
    reconcile: 0,
    refresh: 0,
    tokensSeen: [] as string[],
    refreshTokensSpent: [] as string[],
  };
  const script = {
    publish: async (session: LiveSession): Promise<LivePost> =>
      session.call('create', async () => ({ platformPostId: 'p1', url: 'https://x.example/p1' }), { create: true }),
    reconcile: null as null | ((session: LiveSession) => Promise<LivePost | null>),
    lateUrl: async (): Promise<string | null> => null,
    refresh: async (refreshToken: string): Promise<TokenGrant> => ({
      accessToken: `access-after-${refreshToken}`,
      refreshToken: `rotated-${refreshToken}`,
      expiresAt: new Date(runtime.clock.now().getTime() + 2 * HOUR),
    }),
  };
  const client: LivePlatformClient = {
    oauth: {
      platform: 'twitter',
      scopes: [],
      pkce: true,
      authorizeUrl: () => 'https://auth.example/authorize',
      exchangeCode: () => Promise.reject(new Error('not used')),
      profile: () => Promise.reject(new Error('not used')),
      refresh: async (_app, refreshToken) => {
        calls.refresh += 1;
        calls.refreshTokensSpent.push(refreshToken);
        return script.refresh(refreshToken);
      },
    },
    publisher: {
      platform: 'twitter',
      publish: (session) => {
        calls.publish += 1;
        return script.publish(session);
      },
      reconcile: (session) => {
        calls.reconcile += 1;
        return script.reconcile ? script.reconcile(session) : Promise.resolve(null);
      },
      lateUrl: () => script.lateUrl(),
    },
  };
  const source: TokenSource = {
    platformName: 'X',
    provider: client.oauth,
    app: { clientId: 'id', clientSecret: 'secret', redirectUri: 'http://127.0.0.1/cb' },
    credentialVariables: ['X_CLIENT_ID', 'X_CLIENT_SECRET'],
  };
  const connector = liveConnector(runtime, client, source);
  const others = liveConnectorsFor(runtime);
  const connectors = connectorsFor(runtime, (platform) => (platform === 'twitter' ? connector : others(platform)));
  /** A request that records the token it was sent with. */
  const seeing =
    <T>(answer: () => T) =>
    async (token: string) => {
      calls.tokensSeen.push(token);
      return answer();
    };
  return { calls, script, source, connectors, seeing, client };
}

describe('live connector framework', () => {
  let runtime: TestRuntime;
  let ws: TestWorkspace;
  let platform: ReturnType<typeof scriptedPlatform>;
  const run = () => drain(runtime, publishingJob(runtime, platform.connectors));
  const grant = (overrides: Partial<TokenGrant> = {}): TokenGrant => ({
    accessToken: 'access-1',
    refreshToken: 'refresh-1',
    expiresAt: new Date(runtime.clock.now().getTime() + 2 * HOUR),
    ...overrides,
  });
  const disconnections = async () =>
    (await eventsOf(runtime, ws.workspace.id)).filter((event) => event.type === 'social_account.disconnected');
  const queued = async () => {
    const item = await makeContent(runtime, ws.workspace, {
      caption: 'Live post',
      content_type: 'text_only',
      target_platforms: ['twitter'],
    });
    await publish(runtime, ws.workspace, item.id);
    return item;
  };

  beforeEach(async () => {
    runtime = await testRuntime({ env: { PLATFORM_RETRY_WINDOW_SECONDS: '5' } });
    ws = await makeWorkspace(runtime);
    platform = scriptedPlatform(runtime);
  });

  it('publishes a live account through its client and records the URL, dropping the checkpoint once settled', async () => {
    await connectLiveAccount(runtime, ws.workspace, 'twitter', grant());
    const item = await queued();
    expect(await run()).toEqual(['published']);
    const row = (await contentRow(runtime, item.id))!;
    expect(row.status).toBe('published');
    expect(row.publishResults).toEqual([
      expect.objectContaining({
        platform: 'twitter',
        success: true,
        platform_post_id: 'p1',
        url: 'https://x.example/p1',
      }),
    ]);
    const [attempt] = await attemptsFor(runtime, item.id);
    // Settled, the attempt's checkpoint (which may hold upload URLs) is gone.
    expect(
      await runtime.db.select().from(publishCheckpoints).where(eq(publishCheckpoints.attemptId, attempt!.id)).get(),
    ).toBeUndefined();
  });

  it('refreshes a token that expires within 5 minutes before using it, storing the rotated pair', async () => {
    const account = await connectLiveAccount(
      runtime,
      ws.workspace,
      'twitter',
      grant({ expiresAt: new Date(runtime.clock.now().getTime() + 4 * 60_000) }),
    );
    platform.script.publish = (session) =>
      session.call(
        'create',
        platform.seeing(() => ({ platformPostId: 'p1', url: null })),
        { create: true },
      );
    await queued();
    expect(await run()).toEqual(['published']);
    expect(platform.calls.refresh).toBe(1);
    expect(platform.calls.tokensSeen).toEqual(['access-after-refresh-1']);
    expect(await readTokens(runtime, account.id)).toMatchObject({
      accessToken: 'access-after-refresh-1',
      refreshToken: 'rotated-refresh-1',
    });
  });

  it('keeps the stored refresh token when the platform answers none', async () => {
    const account = await connectLiveAccount(runtime, ws.workspace, 'twitter', grant({ expiresAt: new Date(0) }));
    platform.script.refresh = async () => ({ accessToken: 'fresh', refreshToken: '', expiresAt: null });
    await queued();
    expect(await run()).toEqual(['published']);
    expect(await readTokens(runtime, account.id)).toMatchObject({ accessToken: 'fresh', refreshToken: 'refresh-1' });
  });

  it('spends a rotating refresh token once when two publishes need a refresh at the same time', async () => {
    const account = await connectLiveAccount(runtime, ws.workspace, 'twitter', grant({ expiresAt: new Date(0) }));
    platform.script.refresh = async (refreshToken) => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      return {
        accessToken: `access-after-${refreshToken}`,
        refreshToken: 'rotated',
        expiresAt: new Date(Date.now() + HOUR),
      };
    };
    await queued();
    await queued();
    expect(await run()).toEqual(['published', 'published']);
    expect(platform.calls.refresh).toBe(1);
    expect(platform.calls.refreshTokensSpent).toEqual(['refresh-1']);
    expect((await readTokens(runtime, account.id))?.refreshToken).toBe('rotated');
  });

  it('moves the account to needs_reconnect with one event when the refresh is refused, and fails later publishes at once', async () => {
    const account = await connectLiveAccount(runtime, ws.workspace, 'twitter', grant({ expiresAt: new Date(0) }));
    platform.script.refresh = async () => {
      throw new PlatformError('reauth_required', 'X answered 400 invalid_request: the refresh token is invalid.');
    };
    platform.script.publish = (session) =>
      session.call(
        'create',
        platform.seeing(() => ({ platformPostId: 'never', url: null })),
        { create: true },
      );
    const first = await queued();
    expect(await run()).toEqual(['failed']);
    expect((await contentRow(runtime, first.id))!.publishResults[0]!.error).toMatch(
      /must be reconnected.*invalid_request/,
    );
    const stored = (await runtime.db.select().from(socialAccounts).where(eq(socialAccounts.id, account.id)).get())!;
    expect(stored.status).toBe('needs_reconnect');
    expect(stored.isActive).toBe(false);
    const events = await disconnections();
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ platform: 'twitter', reason: 'reauthorization_required' });
    expect(platform.calls.tokensSeen).toEqual([]);

    const second = await queued();
    expect(await run()).toEqual(['failed']);
    expect((await contentRow(runtime, second.id))!.publishResults[0]!.error).toMatch(/must be reconnected/);
    // Refused before its connector is called: the account is no longer active.
    expect(platform.calls).toMatchObject({ publish: 1, refresh: 1, tokensSeen: [] });
    expect(await disconnections()).toHaveLength(1);
  });

  it('fails a publish that needs a refresh the process cannot make (credentials unset) without sending the account to reconnect', async () => {
    const account = await connectLiveAccount(runtime, ws.workspace, 'twitter', grant({ expiresAt: new Date(0) }));
    platform.source.app = null;
    const item = await queued();
    expect(await run()).toEqual(['failed']);
    expect((await contentRow(runtime, item.id))!.publishResults[0]!.error).toMatch(
      /no X_CLIENT_ID and X_CLIENT_SECRET/,
    );
    expect(
      (await runtime.db.select().from(socialAccounts).where(eq(socialAccounts.id, account.id)).get())!.status,
    ).toBe('active');
    expect(await disconnections()).toHaveLength(0);
  });

  it('retries a token refresh that meets a transient failure, as it would any call before the create', async () => {
    await connectLiveAccount(runtime, ws.workspace, 'twitter', grant({ expiresAt: new Date(0) }));
    let refreshes = 0;
    platform.script.refresh = async (refreshToken) => {
      refreshes += 1;
      if (refreshes === 1)
        throw new PlatformError('transient', 'X answered 503 to the token refresh.', { status: 503 });
      return {
        accessToken: `access-after-${refreshToken}`,
        refreshToken: 'rotated',
        expiresAt: new Date(Date.now() + HOUR),
      };
    };
    await queued();
    expect(await run()).toEqual(['published']);
    expect(refreshes).toBe(2);
  });

  it('retries a 401 once with a refreshed token', async () => {
    await connectLiveAccount(runtime, ws.workspace, 'twitter', grant());
    platform.script.publish = (session) =>
      session.call(
        'create',
        platform.seeing(() => {
          if (platform.calls.tokensSeen.length === 1) throw new PlatformError('reauth_required', 'X answered 401.');
          return { platformPostId: 'p2', url: null };
        }),
        { create: true },
      );
    await queued();
    expect(await run()).toEqual(['published']);
    expect(platform.calls.tokensSeen).toEqual(['access-1', 'access-after-refresh-1']);
  });

  it('needs a reconnect when a token without a refresh token has expired (LinkedIn), without calling the platform', async () => {
    const account = await connectLiveAccount(
      runtime,
      ws.workspace,
      'twitter',
      grant({ refreshToken: null, expiresAt: new Date(runtime.clock.now().getTime() - 1000) }),
    );
    const item = await queued();
    expect(await run()).toEqual(['failed']);
    expect((await contentRow(runtime, item.id))!.publishResults[0]!.error).toMatch(
      /expired on .* must|must be reconnected: its access token expired/,
    );
    expect(platform.calls.publish).toBe(1);
    expect(platform.calls.tokensSeen).toEqual([]);
    expect(
      (await runtime.db.select().from(socialAccounts).where(eq(socialAccounts.id, account.id)).get())!.status,
    ).toBe('needs_reconnect');
  });

  it('waits out a rate limit within the retry window and sends the create again only after a definite refusal', async () => {
    await connectLiveAccount(runtime, ws.workspace, 'twitter', grant());
    let sent = 0;
    platform.script.publish = (session) =>
      session.call(
        'create',
        async () => {
          sent += 1;
          if (sent === 1) {
            throw new PlatformError('rate_limited', 'X answered 429.', {
              retryAt: new Date(runtime.clock.now().getTime() + 300),
            });
          }
          return { platformPostId: 'p3', url: null };
        },
        { create: true },
      );
    await queued();
    const started = Date.now();
    expect(await run()).toEqual(['published']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(sent).toBe(2);
  });

  it('gives up on a rate limit whose reset is past the retry window, naming it', async () => {
    await connectLiveAccount(runtime, ws.workspace, 'twitter', grant());
    platform.script.publish = (session) =>
      session.call(
        'create',
        async () => {
          throw new PlatformError('rate_limited', 'X answered 429 Too Many Requests; the limit resets later.', {
            retryAt: new Date(runtime.clock.now().getTime() + HOUR),
          });
        },
        { create: true },
      );
    const item = await queued();
    expect(await run()).toEqual(['failed']);
    expect((await contentRow(runtime, item.id))!.publishResults[0]!.error).toMatch(/429/);
  });

  it('retries a transient failure before the create call', async () => {
    await connectLiveAccount(runtime, ws.workspace, 'twitter', grant());
    let uploads = 0;
    platform.script.publish = async (session) => {
      await session.call('upload', async () => {
        uploads += 1;
        if (uploads === 1) throw new PlatformError('transient', 'X answered 503.', { status: 503 });
      });
      return session.call('create', async () => ({ platformPostId: 'p4', url: null }), { create: true });
    };
    await queued();
    expect(await run()).toEqual(['published']);
    expect(uploads).toBe(2);
  });

  it('never resends a create call that got no answer: it reconciles, or reports the outcome unknown', async () => {
    await connectLiveAccount(runtime, ws.workspace, 'twitter', grant());
    let sent = 0;
    platform.script.publish = (session) =>
      session.call(
        'create',
        async () => {
          sent += 1;
          throw new PlatformError('transient', 'X could not be reached (ECONNRESET) on /2/tweets.');
        },
        { create: true },
      );
    const lost = await queued();
    expect(await run()).toEqual(['failed']);
    expect(sent).toBe(1);
    expect((await attemptsFor(runtime, lost.id))[0]!.status).toBe('unknown');
    expect((await contentRow(runtime, lost.id))!.publishResults[0]!.error).toMatch(
      /^outcome unknown: .*ECONNRESET.*no such post/,
    );

    platform.script.reconcile = async () => ({ platformPostId: 'found', url: 'https://x.example/found' });
    const found = await queued();
    expect(await run()).toEqual(['published']);
    expect(sent).toBe(2);
    expect((await contentRow(runtime, found.id))!.publishResults[0]).toMatchObject({
      platform_post_id: 'found',
      url: 'https://x.example/found',
    });
  });

  it('never refuses a post whose create call succeeded: a later failure is looked into, or reported unknown', async () => {
    const account = await connectLiveAccount(runtime, ws.workspace, 'twitter', grant());
    platform.script.publish = async (session) => {
      const created = await session.call('create', async () => ({ platformPostId: 'made', url: null }), {
        create: true,
      });
      // Reading the post back is refused: the post stands all the same.
      await session.call('permalink', async () => {
        throw new PlatformError('reauth_required', 'X answered 401 to the permalink read.');
      });
      return created;
    };
    platform.script.refresh = async () => {
      throw new PlatformError('reauth_required', 'X answered 400 invalid_request.');
    };
    const item = await queued();
    expect(await run()).toEqual(['failed']);
    expect((await attemptsFor(runtime, item.id))[0]!.status).toBe('unknown');
    expect((await contentRow(runtime, item.id))!.publishResults[0]!.error).toMatch(
      /^outcome unknown: the post was created, then/,
    );
    expect(platform.calls.reconcile).toBe(1);
    expect(
      (await runtime.db.select().from(socialAccounts).where(eq(socialAccounts.id, account.id)).get())!.status,
    ).toBe('needs_reconnect');
  });

  it('settles a post the platform failed after creating it (processing failed) as refused, also when found by reconcile', async () => {
    await connectLiveAccount(runtime, ws.workspace, 'twitter', grant());
    platform.script.publish = async (session) => {
      await session.call('create', async () => ({ platformPostId: 'made', url: null }), { create: true });
      throw new PlatformError('media_invalid', 'X could not process the video (InvalidMedia).');
    };
    const failed = await queued();
    expect(await run()).toEqual(['failed']);
    expect((await contentRow(runtime, failed.id))!.publishResults[0]!.error).toBe(
      'X could not process the video (InvalidMedia).',
    );

    platform.script.publish = (session) =>
      session.call(
        'create',
        async () => {
          throw new PlatformError('transient', 'X could not be reached (ECONNRESET) on /2/tweets.');
        },
        { create: true },
      );
    platform.script.reconcile = async () => {
      throw new PlatformError('media_invalid', 'X could not process the video (InvalidMedia).');
    };
    const lost = await queued();
    expect(await run()).toEqual(['failed']);
    expect((await attemptsFor(runtime, lost.id))[0]!.status).toBe('rejected');
  });

  it('gives back the create mark when the platform answers the create call with a 4xx', async () => {
    await connectLiveAccount(runtime, ws.workspace, 'twitter', grant());
    const marks: (Date | null)[] = [];
    platform.script.publish = async (session) => {
      await session
        .call(
          'create',
          async () => {
            throw new PlatformError('media_invalid', 'Instagram answered 400 (9007): the media is not ready.', {
              status: 400,
            });
          },
          { create: true },
        )
        .catch(() => undefined);
      marks.push(session.createSentAt);
      return session.call('create', async () => ({ platformPostId: 'second-try', url: null }), { create: true });
    };
    await queued();
    expect(await run()).toEqual(['published']);
    expect(marks).toEqual([null]);
  });

  it('resumes a dead holder’s checkpointed attempt from its checkpoint, and only looks for the post once the create was sent', async () => {
    await connectLiveAccount(runtime, ws.workspace, 'twitter', grant());
    const seen: unknown[] = [];
    platform.script.publish = async (session) => {
      seen.push({ ...session.checkpoint.data });
      await session.checkpoint.save({ uploaded: ['m1'] });
      // The process "dies" here: the call never settles.
      return new Promise<LivePost>(() => {});
    };
    const item = await queued();
    const [claim] = (await claimDuePublishes(runtime, 1)).claims;
    void fanOut(runtime, platform.connectors, claim!);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await attemptsFor(runtime, item.id))[0]!.status).toBe('pending');

    // The lease runs out; another holder takes the item over and resumes the attempt.
    runtime.clock.advance(runtime.config.publishing.leaseSeconds * 1000 + 1);
    platform.script.publish = async (session) => {
      seen.push({ ...session.checkpoint.data });
      return session.call('create', async () => ({ platformPostId: 'resumed', url: null }), { create: true });
    };
    expect(await run()).toEqual(['published']);
    expect(seen).toEqual([{}, { uploaded: ['m1'] }]);
    expect(await attemptsFor(runtime, item.id)).toHaveLength(1);

    // A holder that died after sending the create call: the next one only reconciles.
    const sentItem = await queued();
    const [second] = (await claimDuePublishes(runtime, 1)).claims;
    platform.script.publish = (session) =>
      session.call('create', () => new Promise<LivePost>(() => {}), { create: true });
    void fanOut(runtime, platform.connectors, second!);
    await new Promise((resolve) => setTimeout(resolve, 50));
    runtime.clock.advance(runtime.config.publishing.leaseSeconds * 1000 + 1);
    const publishesBefore = platform.calls.publish;
    expect(await run()).toEqual(['failed']);
    expect(platform.calls.publish).toBe(publishesBefore);
    expect(platform.calls.reconcile).toBe(1);
    expect((await attemptsFor(runtime, sentItem.id))[0]!.status).toBe('unknown');
  });

  it('refuses external media on a private address (the escape unset) before any platform call', async () => {
    await connectLiveAccount(runtime, ws.workspace, 'twitter', grant());
    platform.script.publish = async (session) => {
      await session.media();
      return session.call(
        'create',
        platform.seeing(() => ({ platformPostId: 'never', url: null })),
        { create: true },
      );
    };
    const item = await makeContent(runtime, ws.workspace, {
      caption: 'Private picture',
      content_type: 'single_image',
      media_urls: ['http://127.0.0.1:9/internal.png'],
      target_platforms: ['twitter'],
    });
    await publish(runtime, ws.workspace, item.id);
    expect(await run()).toEqual(['failed']);
    expect((await contentRow(runtime, item.id))!.publishResults[0]!.error).toMatch(
      /media URL http:\/\/127\.0\.0\.1:9\/internal\.png was refused: it reaches 127\.0\.0\.1, a loopback address/,
    );
    expect(platform.calls.tokensSeen).toEqual([]);
  });

  it('keeps a published post’s notice, and fills in its URL when the platform makes it public later', async () => {
    await connectLiveAccount(runtime, ws.workspace, 'twitter', grant());
    platform.script.publish = (session) =>
      session.call(
        'create',
        async () => ({
          platformPostId: 'pub-1',
          url: null,
          notice: 'Posted as private (SELF_ONLY): the app is not audited.',
        }),
        { create: true },
      );
    const item = await queued();
    expect(await run()).toEqual(['published']);
    expect((await contentRow(runtime, item.id))!.publishResults[0]).toMatchObject({
      url: null,
      notice: 'Posted as private (SELF_ONLY): the app is not audited.',
    });
    const lookup = (p: string) => (p === 'twitter' ? { client: platform.client, source: platform.source } : null);
    expect(await fillLateUrls(runtime, lookup)).toBe(0);
    platform.script.lateUrl = async () => 'https://x.example/public/pub-1';
    expect(await fillLateUrls(runtime, lookup)).toBe(1);
    expect((await contentRow(runtime, item.id))!.publishResults[0]).toMatchObject({
      url: 'https://x.example/public/pub-1',
    });
    expect((await attemptsFor(runtime, item.id))[0]!.url).toBe('https://x.example/public/pub-1');
    expect(await fillLateUrls(runtime, lookup)).toBe(0);
  });

  it('fills in no late URL that is not http(s): the post keeps no link', async () => {
    await connectLiveAccount(runtime, ws.workspace, 'twitter', grant());
    platform.script.publish = (session) =>
      session.call('create', async () => ({ platformPostId: 'pub-2', url: null }), { create: true });
    const item = await queued();
    expect(await run()).toEqual(['published']);
    const lookup = (p: string) => (p === 'twitter' ? { client: platform.client, source: platform.source } : null);
    platform.script.lateUrl = async () => 'javascript:alert(1)';
    expect(await fillLateUrls(runtime, lookup)).toBe(0);
    expect((await contentRow(runtime, item.id))!.publishResults[0]!.url).toBeNull();
    expect((await attemptsFor(runtime, item.id))[0]!.url).toBeNull();
  });

  it('refreshes, in the maintenance pass, the tokens that expire within the hour and no others', async () => {
    const soon = await connectLiveAccount(
      runtime,
      ws.workspace,
      'twitter',
      grant({ expiresAt: new Date(runtime.clock.now().getTime() + 30 * 60_000) }),
      { platformUserId: '1' },
    );
    const later = await connectLiveAccount(runtime, ws.workspace, 'twitter', grant({ refreshToken: 'refresh-2' }), {
      platformUserId: '2',
    });
    expect(await refreshExpiringTokens(runtime, () => platform.source)).toEqual({ refreshed: 1, failed: 0 });
    expect((await readTokens(runtime, soon.id))?.accessToken).toBe('access-after-refresh-1');
    expect((await readTokens(runtime, later.id))?.accessToken).toBe('access-1');
  });
});
