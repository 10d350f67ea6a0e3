/**
 * Live publishing, black box: the real server in its own process, the real OAuth flow through the
 * fake platforms' consent pages, real publishing runs against the fakes' APIs. The tests share one
 * world and run in order: connect, publish, rotate, rate-limit, revoke, then the leak check over
 * everything that came before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoMedia, png } from '../fixtures/media/files.ts';
import type { Receiver } from '../helpers/webhook-receiver.ts';
import {
  connectThroughConsent,
  finished,
  publishNow,
  uploadMedia,
  type LiveWorld,
  receivedEvents,
  startLiveWorldWatchingAccounts,
} from './harness.ts';

const SLOW = 120_000;

describe('live publishing through the real server and the fake platforms', () => {
  let world: LiveWorld;
  let receiver: Receiver;
  const accounts: Record<string, any> = {};

  beforeAll(async () => {
    ({ world, receiver } = await startLiveWorldWatchingAccounts());
  }, SLOW);
  afterAll(async () => {
    await world?.close();
    await receiver?.close();
  });

  const webhookEvents = (type: string) => receivedEvents(receiver, type);

  for (const [platform, fake] of [
    ['twitter', () => world.x],
    ['linkedin', () => world.linkedin],
  ] as const) {
    it(
      `${platform}: connects through consent, then publishes a text, an image and a video post, each created once with its URL`,
      async () => {
        const account = await connectThroughConsent(world, platform);
        accounts[platform] = account;
        expect(account).toMatchObject({ mode: 'live', status: 'active', is_active: true });
        expect(account.scopes.length).toBeGreaterThan(0);
        expect(account.token_expires_at).not.toBeNull();

        const image = await uploadMedia(world, png(64, 64), 'photo.png');
        const video = await uploadMedia(world, isoMedia('mp42', ['isom', 'mp42']), 'clip.mp4');
        const ids = [
          await publishNow(world, platform, { caption: `Plain text on ${platform}` }),
          await publishNow(world, platform, {
            caption: `An image on ${platform}`,
            content_type: 'single_image',
            media_urls: [image],
          }),
          await publishNow(world, platform, {
            caption: `A video on ${platform}`,
            content_type: 'reel',
            media_urls: [video],
          }),
        ];
        const urlPattern =
          platform === 'twitter'
            ? new RegExp(`^https://x\\.com/${account.username}/status/\\d+$`)
            : /^https:\/\/www\.linkedin\.com\/feed\/update\/urn:li:(share|ugcPost):\d+$/;
        for (const id of ids) {
          const item = await finished(world, id);
          expect(item.status, JSON.stringify(item.publish_results)).toBe('published');
          expect(item.publish_results).toEqual([
            expect.objectContaining({ platform, success: true, url: expect.stringMatching(urlPattern) }),
          ]);
        }
        expect(fake().log.creates()).toHaveLength(3);
        expect(fake().posts).toHaveLength(3);
        await receiver.waitForRequests(platform === 'twitter' ? 1 : 2);
        expect(
          webhookEvents('social_account.connected').map((event) => event.data.platform ?? event.data.account?.platform),
        ).toContain(platform);
      },
      SLOW,
    );
  }

  it(
    'X: an access token past expiry is refreshed once and the rotated pair is used; the old refresh token stays spent',
    async () => {
      const x = world.x;
      const tokenAnswers = () => x.log.calls('token').filter((call) => call.status === 200);
      const connectGrant = tokenAnswers()[0]!.responseBody as { refresh_token: string };
      // Two hours on at X: the access token the service holds is now refused.
      x.clock.advance(2 * 3600 * 1000 + 1000);
      const first = await finished(world, await publishNow(world, 'twitter', { caption: 'After the expiry' }));
      expect(first.status, JSON.stringify(first.publish_results)).toBe('published');
      const refreshes = x.log.calls('token').filter((call) => (call.body as any)?.grant_type === 'refresh_token');
      expect(refreshes).toHaveLength(1);
      expect((refreshes[0]!.body as any).refresh_token).toBe(connectGrant.refresh_token);

      const second = await finished(world, await publishNow(world, 'twitter', { caption: 'With the new pair' }));
      expect(second.status).toBe('published');
      expect(x.log.calls('token').filter((call) => (call.body as any)?.grant_type === 'refresh_token')).toHaveLength(1);
      const rotated = (refreshes[0]!.responseBody as { access_token: string }).access_token;
      expect(x.log.last('tweets.create')!.headers.authorization).toBe(`Bearer ${rotated}`);

      const reuse = await fetch(`${x.url}/2/oauth2/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${x.clientId}:${x.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: connectGrant.refresh_token }),
      });
      expect(reuse.status).toBe(400);
    },
    SLOW,
  );

  it(
    'X: a 429 with a reset 2 s ahead ends in one post after the reset',
    async () => {
      const x = world.x;
      const createsBefore = x.log.creates().length;
      // X's reset is wall-clock time (this fake's clock was moved on by the expiry test).
      x.script.rateLimit('tweets.create', 1, { resetAtSecs: Math.ceil(Date.now() / 1000) + 2 });
      const started = Date.now();
      const item = await finished(world, await publishNow(world, 'twitter', { caption: 'Patient post' }));
      expect(item.status, JSON.stringify(item.publish_results)).toBe('published');
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
      expect(x.log.calls('tweets.create').filter((call) => call.status === 429)).toHaveLength(1);
      expect(x.log.creates()).toHaveLength(createsBefore + 1);
    },
    SLOW,
  );

  it(
    'X: a revoked app makes the account needs_reconnect with one disconnected webhook, and the next publish fails at once',
    async () => {
      const x = world.x;
      x.script.revoke(x.users[0]!.id);
      const failed = await finished(world, await publishNow(world, 'twitter', { caption: 'Refused' }));
      expect(failed.status).toBe('approved');
      expect(failed.publish_results[0]).toMatchObject({ success: false, error: expect.stringMatching(/reconnect/i) });

      const listed = await world.api('GET', '/api/v1/social-accounts');
      const account = listed.json.data.find((a: any) => a.id === accounts.twitter.id);
      expect(account).toMatchObject({ status: 'needs_reconnect', is_active: false });
      await receiver.waitForRequests(3);
      const disconnected = webhookEvents('social_account.disconnected');
      expect(disconnected).toHaveLength(1);
      expect(disconnected[0].data).toMatchObject({ platform: 'twitter', reason: 'reauthorization_required' });

      const calls = x.log.entries.length;
      const next = await finished(world, await publishNow(world, 'twitter', { caption: 'Also refused' }));
      expect(next.publish_results[0]).toMatchObject({ success: false, error: expect.stringMatching(/reconnect/i) });
      expect(x.log.entries).toHaveLength(calls);
    },
    SLOW,
  );

  it('refuses a forged state with a 400 page and stores nothing', async () => {
    const before = await world.api('GET', '/api/v1/social-accounts');
    const forged = await fetch(`${world.url}/callbacks/twitter/oauth?code=anything&state=forged-state-value`);
    const page = await forged.text();
    world.bodies.push(page);
    expect(forged.status).toBe(400);
    expect(forged.headers.get('content-type')).toMatch(/text\/html/);
    expect((await world.api('GET', '/api/v1/social-accounts')).json).toEqual(before.json);
  });

  it('never lets a token or a client secret out: no response body, no log line at trace level', () => {
    const secrets = new Set<string>([world.x.clientSecret, world.linkedin.clientSecret]);
    for (const fake of [world.x, world.linkedin]) {
      for (const call of fake.log.calls('token')) {
        const answer = call.responseBody as Record<string, unknown> | undefined;
        for (const field of ['access_token', 'refresh_token'])
          if (typeof answer?.[field] === 'string') secrets.add(answer[field] as string);
      }
    }
    expect(secrets.size).toBeGreaterThan(4);
    const logs = world.logs();
    expect(logs.length).toBeGreaterThan(1000);
    const seen = [...world.bodies, logs, ...receiver.requests.map((request) => request.body)].join('\n');
    for (const secret of secrets)
      expect(seen.includes(secret), `a secret starting ${secret.slice(0, 6)} leaked`).toBe(false);
  });
});
