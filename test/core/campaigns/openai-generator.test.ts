/**
 * The OpenAI-compatible generator against a fake chat-completions server on loopback: what it
 * sends, what it accepts, and when it retries or gives up.
 */
import http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { BrandBrief, GenerationRequest } from '../../../src/core/campaigns/generator.ts';
import { GeneratorError, openAiGenerator, type AiConfig } from '../../../src/core/campaigns/generators/openai.ts';
import { loadConfig } from '../../../src/core/config.ts';
import { refusedUrl } from '../../helpers/webhook-receiver.ts';

type Reply = 'hang' | { status?: number; headers?: Record<string, string>; body: string };

interface FakeServer {
  /** `http://127.0.0.1:<port>/v1`, as AI_BASE_URL would be set. */
  baseUrl: string;
  requests: { path: string; headers: IncomingHttpHeaders; body: any }[];
  close(): Promise<void>;
}

/** Answers the n-th request with `replies[n]`, and every request past the list with the last one. */
async function startFake(replies: Reply[]): Promise<FakeServer> {
  const requests: FakeServer['requests'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({
        path: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      });
      const reply = replies[Math.min(requests.length - 1, replies.length - 1)]!;
      if (reply === 'hang') return;
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body);
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const fake: FakeServer = {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(fake);
  return fake;
}

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A chat completion whose message content is `content` (an object is sent as its JSON). */
function completion(content: unknown, finishReason = 'stop'): Reply {
  const text = typeof content === 'string' ? content : JSON.stringify(content);
  return {
    body: JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: 'test-model',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: finishReason }],
    }),
  };
}

const GOOD_POSTS = [
  { caption: 'Three ways to brew better coffee at home.', hashtags: ['coffee', '#HomeBrew'], topic: 'brewing tips' },
  { caption: 'Swipe through our new roasts.', hashtags: ['roasts'], topic: 'new roasts' },
  { caption: 'Why we roast in small batches.', hashtags: [], topic: null },
];

const brand: BrandBrief = {
  brand_name: 'Bean There',
  industry: 'Coffee roasting',
  company_description: 'A small-batch roastery.',
  website_url: 'https://beanthere.example',
  voice: 'Warm and knowledgeable',
  audience: 'Home baristas',
  target_audience: null,
  style_notes: 'Short sentences.',
  example_posts: ['Fresh beans, every Monday.'],
  topics_to_lean_into: ['single origin'],
  topics_to_avoid: ['politics'],
  vocabulary: ['roast'],
  forbidden_words: ['cheap', 'guarantee'],
  hashtag_strategy: 'Two or three niche tags',
  tone_formality: 2,
  tone_humor: 7,
  tone_energy: 10,
};

const request: GenerationRequest = {
  campaign: { id: 'cmp_1', name: 'Spring roasts', description: 'Launch of the spring line', totalPosts: 3 },
  brand,
  templates: ['Hook / three tips / call to action'],
  slots: [
    { index: 0, contentType: 'reel', scheduledFor: new Date('2030-03-04T09:00:00Z') },
    { index: 1, contentType: 'carousel', scheduledFor: new Date('2030-03-05T13:30:00Z') },
    { index: 2, contentType: 'text_only', scheduledFor: new Date('2030-03-06T17:00:00Z') },
  ],
};

const KEY = 'sk-test-0123456789';

function configFor(fake: { baseUrl: string }, overrides: Partial<AiConfig> = {}): AiConfig {
  return { baseUrl: fake.baseUrl, apiKey: KEY, model: 'test-model', timeoutMs: 2_000, maxRetries: 3, ...overrides };
}

/** Backoff of a millisecond, so retries cost no time unless a test says otherwise. */
const fast = { backoffBaseMs: 1, backoffCapMs: 5 };

async function generatorError(promise: Promise<unknown>): Promise<GeneratorError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GeneratorError);
  return error as GeneratorError;
}

describe('openAiGenerator', () => {
  it('sends one chat-completions request carrying the model, the brief and the slots, and returns the drafts in slot order', async () => {
    const fake = await startFake([completion({ posts: GOOD_POSTS })]);
    const generator = openAiGenerator(configFor(fake), fast);
    expect(generator.name).toBe('openai');

    const drafts = await generator.generate(request);

    expect(drafts).toEqual([
      { caption: GOOD_POSTS[0]!.caption, hashtags: ['coffee', 'HomeBrew'], topic: 'brewing tips' },
      { caption: GOOD_POSTS[1]!.caption, hashtags: ['roasts'], topic: 'new roasts' },
      { caption: GOOD_POSTS[2]!.caption, hashtags: [], topic: null },
    ]);
    expect(fake.requests).toHaveLength(1);
    const [sent] = fake.requests;
    expect(sent!.path).toBe('/v1/chat/completions');
    expect(sent!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent!.body.model).toBe('test-model');
    expect(sent!.body.response_format).toEqual({ type: 'json_object' });
    expect(sent!.body.temperature).toBeGreaterThan(0);
    expect(sent!.body.temperature).toBeLessThan(1.5);
    const [system, user] = sent!.body.messages;
    expect(system.role).toBe('system');
    for (const phrase of [
      'Bean There',
      'Warm and knowledgeable',
      '"cheap"',
      '"guarantee"',
      '"politics"',
      '"single origin"',
      '280',
      'casual',
      'high-energy',
    ]) {
      expect(system.content).toContain(phrase);
    }
    expect(user.role).toBe('user');
    expect(user.content).toMatch(/1\. reel, Monday 2030-03-04 09:00 UTC/);
    expect(user.content).toMatch(/2\. carousel, Tuesday 2030-03-05 13:30 UTC/);
    expect(user.content).toMatch(/3\. text_only, Wednesday 2030-03-06 17:00 UTC/);
    expect(user.content).toContain('Hook / three tips / call to action');
  });

  it('sends no Authorization header when no key is configured', async () => {
    const fake = await startFake([completion({ posts: GOOD_POSTS })]);
    await openAiGenerator(configFor(fake, { apiKey: null }), fast).generate(request);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('retries malformed output and tells the model what was wrong', async () => {
    const fake = await startFake([completion('Sure! Here are your posts: …'), completion({ posts: GOOD_POSTS })]);
    const drafts = await openAiGenerator(configFor(fake), fast).generate(request);
    expect(drafts.map((d) => d.caption)).toEqual(GOOD_POSTS.map((p) => p.caption));
    expect(fake.requests).toHaveLength(2);
    const retryMessages = fake.requests[1]!.body.messages;
    expect(retryMessages).toHaveLength(3);
    expect(retryMessages[2].content).toContain('not JSON');
  });

  it('gives up with a GeneratorError after maxRetries + 1 requests of malformed output', async () => {
    const fake = await startFake([completion({ posts: GOOD_POSTS.slice(0, 2) })]);
    const error = await generatorError(openAiGenerator(configFor(fake, { maxRetries: 2 }), fast).generate(request));
    expect(error.message).toMatch(/gave up after 3 requests: the model returned 2 posts for 3 slots/);
    expect(error.requests).toBe(3);
    expect(fake.requests).toHaveLength(3);
  });

  it.each([
    ['not JSON', completion('{"posts": ['), /not JSON/],
    ['no posts list', completion({ drafts: GOOD_POSTS }), /no "posts" list/],
    ['no choices', { body: JSON.stringify({ object: 'chat.completion', choices: [] }) }, /no choices\[0\]\.message/],
    ['a body that is not JSON', { body: '<html>gateway</html>' }, /no choices\[0\]\.message/],
    ['a cut-off answer', completion({ posts: GOOD_POSTS }, 'length'), /cut off/],
    [
      'a post without a caption',
      completion({ posts: [GOOD_POSTS[0], { hashtags: [] }, GOOD_POSTS[2]] }),
      /post 2 has no caption/,
    ],
    [
      'a forbidden word',
      completion({ posts: [GOOD_POSTS[0], { caption: 'Our CHEAP beans.', hashtags: [], topic: null }, GOOD_POSTS[2]] }),
      /post 2: uses the forbidden word "cheap"/,
    ],
    [
      'an avoided topic as a hashtag',
      completion({
        posts: [GOOD_POSTS[0], GOOD_POSTS[1], { caption: 'Coffee talk.', hashtags: ['Politics'], topic: null }],
      }),
      /post 3: touches the avoided topic "politics"/,
    ],
    [
      'a caption too long for X',
      completion({
        posts: [{ caption: 'word '.repeat(60).trim(), hashtags: [], topic: null }, GOOD_POSTS[1], GOOD_POSTS[2]],
      }),
      /post 1: twitter: text is 299 weighted characters; the limit is 280/,
    ],
    [
      'too many hashtags',
      completion({
        posts: [
          { caption: 'Tags.', hashtags: Array.from({ length: 11 }, (_, i) => `tag${i}`), topic: null },
          GOOD_POSTS[1],
          GOOD_POSTS[2],
        ],
      }),
      /post 1: more than 10 hashtags/,
    ],
  ])('rejects %s', async (_label, reply, message) => {
    const fake = await startFake([reply]);
    const error = await generatorError(openAiGenerator(configFor(fake, { maxRetries: 0 }), fast).generate(request));
    expect(error.message).toMatch(message);
    expect(fake.requests).toHaveLength(1);
  });

  it('retries a draft with a forbidden word and returns the clean answer', async () => {
    const dirty = {
      posts: [GOOD_POSTS[0], GOOD_POSTS[1], { caption: 'We guarantee freshness.', hashtags: [], topic: null }],
    };
    const fake = await startFake([completion(dirty), completion({ posts: GOOD_POSTS })]);
    const drafts = await openAiGenerator(configFor(fake), fast).generate(request);
    expect(drafts[2]!.caption).toBe(GOOD_POSTS[2]!.caption);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.body.messages[2].content).toContain('post 3: uses the forbidden word "guarantee"');
  });

  it('honours a 429 retry-after in seconds, capped', async () => {
    const tooMany: Reply = {
      status: 429,
      headers: { 'retry-after': '30' },
      body: JSON.stringify({ error: { message: 'Rate limit reached' } }),
    };
    const fake = await startFake([tooMany, completion({ posts: GOOD_POSTS })]);
    const started = performance.now();
    const drafts = await openAiGenerator(configFor(fake), { ...fast, retryAfterCapMs: 400 }).generate(request);
    const elapsed = performance.now() - started;
    expect(drafts).toHaveLength(3);
    expect(fake.requests).toHaveLength(2);
    // Read as milliseconds, 30 would barely wait; uncapped, 30 seconds would time the test out.
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(3_000);
  });

  it('honours a 429 retry-after-ms', async () => {
    const fake = await startFake([
      { status: 429, headers: { 'retry-after-ms': '300' }, body: '{}' },
      completion({ posts: GOOD_POSTS }),
    ]);
    const started = performance.now();
    await openAiGenerator(configFor(fake), fast).generate(request);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(fake.requests).toHaveLength(2);
  });

  it('retries a 500 and returns the next answer', async () => {
    const fake = await startFake([
      { status: 500, body: '{"error":{"message":"overloaded"}}' },
      completion({ posts: GOOD_POSTS }),
    ]);
    const drafts = await openAiGenerator(configFor(fake), fast).generate(request);
    expect(drafts).toHaveLength(3);
    expect(fake.requests).toHaveLength(2);
  });

  it('gives up after maxRetries + 1 requests that all answer 503', async () => {
    const fake = await startFake([{ status: 503, body: '{"error":{"message":"overloaded"}}' }]);
    const error = await generatorError(openAiGenerator(configFor(fake, { maxRetries: 2 }), fast).generate(request));
    expect(error.message).toBe('gave up after 3 requests: the endpoint answered 503: overloaded');
    expect(fake.requests).toHaveLength(3);
  });

  it('backs off exponentially between retries', async () => {
    const fake = await startFake([{ status: 500, body: '' }]);
    const started = performance.now();
    await generatorError(
      openAiGenerator(configFor(fake, { maxRetries: 3 }), { backoffBaseMs: 100, backoffCapMs: 5_000 }).generate(
        request,
      ),
    );
    // Waits of at least 50, 100 and 200 ms (half of 100, 200, 400: equal jitter).
    expect(performance.now() - started).toBeGreaterThanOrEqual(340);
    expect(fake.requests).toHaveLength(4);
  });

  it('retries a request that hangs past the timeout', async () => {
    const fake = await startFake(['hang', completion({ posts: GOOD_POSTS })]);
    const drafts = await openAiGenerator(configFor(fake, { timeoutMs: 200 }), fast).generate(request);
    expect(drafts).toHaveLength(3);
    expect(fake.requests).toHaveLength(2);
  });

  it('gives up when every request hangs past the timeout', async () => {
    const fake = await startFake(['hang']);
    const started = performance.now();
    const error = await generatorError(
      openAiGenerator(configFor(fake, { timeoutMs: 200, maxRetries: 1 }), fast).generate(request),
    );
    expect(error.message).toBe('gave up after 2 requests: no answer within 200 ms');
    expect(fake.requests).toHaveLength(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
  });

  it('retries when the endpoint refuses connections, then gives up', async () => {
    const error = await generatorError(
      openAiGenerator(configFor({ baseUrl: `${await refusedUrl()}/v1` }, { maxRetries: 1 }), fast).generate(request),
    );
    expect(error.message).toMatch(/^gave up after 2 requests: the request failed: .*ECONNREFUSED/);
  });

  it('fails at once on a 401, without retrying and without repeating the key', async () => {
    const body = JSON.stringify({
      error: { message: `Incorrect API key provided: ${KEY}.`, type: 'invalid_request_error' },
    });
    const fake = await startFake([{ status: 401, body }, completion({ posts: GOOD_POSTS })]);
    const error = await generatorError(openAiGenerator(configFor(fake), fast).generate(request));
    expect(error.message).toBe('the endpoint answered 401: Incorrect API key provided: [redacted].');
    expect(error.message).not.toContain(KEY);
    expect(error.requests).toBe(1);
    expect(fake.requests).toHaveLength(1);
  });

  it("stops when the caller's signal aborts, with the signal's reason rather than a GeneratorError", async () => {
    const fake = await startFake(['hang']);
    const controller = new AbortController();
    const reason = new Error('campaign paused');
    setTimeout(() => controller.abort(reason), 100);
    const generation = openAiGenerator(configFor(fake, { timeoutMs: 5_000 }), fast).generate(
      request,
      controller.signal,
    );
    await expect(generation).rejects.toBe(reason);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fake.requests).toHaveLength(1);
  });
});

describe('AI configuration', () => {
  it('defaults to no endpoint, no key, gpt-4o-mini, 30 s and 3 retries', () => {
    expect(loadConfig({}).ai).toEqual({
      baseUrl: null,
      apiKey: null,
      model: 'gpt-4o-mini',
      timeoutMs: 30_000,
      maxRetries: 3,
    });
  });

  it('reads AI_BASE_URL, AI_API_KEY, AI_MODEL, AI_TIMEOUT_MS and AI_MAX_RETRIES', () => {
    const env = {
      AI_BASE_URL: 'http://127.0.0.1:11434/v1/',
      AI_API_KEY: 'sk-x',
      AI_MODEL: 'llama3.1',
      AI_TIMEOUT_MS: '5000',
      AI_MAX_RETRIES: '0',
    };
    expect(loadConfig(env).ai).toEqual({
      baseUrl: 'http://127.0.0.1:11434/v1',
      apiKey: 'sk-x',
      model: 'llama3.1',
      timeoutMs: 5_000,
      maxRetries: 0,
    });
  });

  it('refuses a base URL that is not a URL and a negative retry count', () => {
    expect(() => loadConfig({ AI_BASE_URL: 'not a url' })).toThrow(/AI_BASE_URL/);
    expect(() => loadConfig({ AI_MAX_RETRIES: '-1' })).toThrow(/AI_MAX_RETRIES/);
  });
});
