/**
 * The optional campaign generator: any OpenAI-compatible chat-completions endpoint (`AI_BASE_URL`,
 * `AI_API_KEY`, `AI_MODEL`; configured, it is tried before the built-in one). One request per batch of slots
 * asks for strict JSON with one post per slot; whatever comes back goes through `draftProblems`
 * like the built-in generator's output. A malformed answer, an invalid draft, a 429, a 5xx, a
 * network error or a timeout is retried with backoff; after the retries, or at once on any other
 * 4xx, it throws `GeneratorError`, which the engine answers by writing that batch with the
 * built-in generator.
 *
 * The client is Node's global `fetch` rather than a package, so the core imports no transport
 * (eslint.config.js): this is an outbound client to a model provider, not one of our doors.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../../config.ts';
import { PLATFORM_RULES, X_LINK_WEIGHT } from '../../platforms/rules.ts';
import {
  draftProblems,
  MAX_GENERATED_HASHTAGS,
  type BrandBrief,
  type CaptionGenerator,
  type Draft,
  type GenerationRequest,
} from '../generator.ts';

export type AiConfig = Config['ai'];

export interface OpenAiGeneratorOptions {
  /** The first retry waits about this long, doubling each time up to `backoffCapMs` (default 250). */
  backoffBaseMs?: number;
  /** Default 5,000. */
  backoffCapMs?: number;
  /** A 429's `retry-after` is honoured up to this long (default 10,000). */
  retryAfterCapMs?: number;
  /** Default 0.7: varied posts that still follow the rules. */
  temperature?: number;
}

/** Why the endpoint gave no usable drafts for a batch, after the retries (or at once for a 4xx other than 429). */
export class GeneratorError extends Error {
  constructor(
    message: string,
    /** Requests made for the batch. */
    readonly requests: number,
  ) {
    super(message);
    this.name = 'GeneratorError';
  }
}

/** Used when only a key is configured. */
const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * The generator behind `config`. Without `baseUrl` it talks to OpenAI itself. A caller's `signal`
 * aborting ends the batch with the signal's reason, not a `GeneratorError`: nothing should fall back.
 */
export function openAiGenerator(config: AiConfig, options: OpenAiGeneratorOptions = {}): CaptionGenerator {
  const url = `${(config.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '')}/chat/completions`;
  const backoffBaseMs = options.backoffBaseMs ?? 250;
  const backoffCapMs = options.backoffCapMs ?? 5_000;
  const retryAfterCapMs = options.retryAfterCapMs ?? 10_000;
  const temperature = options.temperature ?? 0.7;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  // A provider may echo the key (or part of it) in an error body; it must not reach our messages or logs.
  const redact = (text: string) => (config.apiKey ? text.split(config.apiKey).join('[redacted]') : text);

  return {
    name: 'openai',
    maxSlotsPerCall: 20,
    async generate(request: GenerationRequest, signal?: AbortSignal): Promise<Draft[]> {
      if (request.slots.length === 0) return [];
      const messages: ChatMessage[] = [
        { role: 'system', content: systemPrompt(request.brand) },
        { role: 'user', content: slotsPrompt(request) },
      ];

      const requestOnce = async (chat: ChatMessage[]): Promise<Outcome> => {
        const deadline = AbortSignal.timeout(config.timeoutMs);
        const both = signal ? AbortSignal.any([signal, deadline]) : deadline;
        const body = JSON.stringify({
          model: config.model,
          messages: chat,
          temperature,
          response_format: { type: 'json_object' },
        });
        try {
          const response = await fetch(url, { method: 'POST', headers, body, signal: both });
          // The deadline covers the body too: a server that sends headers and stalls is a timeout.
          const text = await response.text();
          if (response.ok) return { kind: 'answer', body: text };
          const reason = `the endpoint answered ${response.status}${errorDetail(redact(text))}`;
          if (response.status === 429)
            return { kind: 'retry', reason, retryAfterMs: retryAfter(response.headers, retryAfterCapMs) };
          if (response.status >= 500) return { kind: 'retry', reason, retryAfterMs: null };
          return { kind: 'fatal', reason };
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          if (deadline.aborted)
            return { kind: 'retry', reason: `no answer within ${config.timeoutMs} ms`, retryAfterMs: null };
          return { kind: 'retry', reason: `the request failed: ${redact(networkError(error))}`, retryAfterMs: null };
        }
      };

      let lastReason = '';
      /** Set when the model's last answer was unusable: the retry tells it why, so it does not give the same answer again. */
      let rejected: string | null = null;
      for (let attempt = 0; attempt <= config.maxRetries; attempt++) {
        signal?.throwIfAborted();
        const chat =
          rejected === null
            ? messages
            : [
                ...messages,
                {
                  role: 'user' as const,
                  content: `Your previous answer was rejected: ${rejected}. Answer again, following every rule.`,
                },
              ];
        const outcome = await requestOnce(chat);
        let retryAfterMs: number | null = null;
        if (outcome.kind === 'answer') {
          const drafts = readDrafts(outcome.body, request);
          if (typeof drafts !== 'string') return drafts;
          lastReason = rejected = drafts;
        } else if (outcome.kind === 'fatal') {
          throw new GeneratorError(outcome.reason, attempt + 1);
        } else {
          lastReason = outcome.reason;
          retryAfterMs = outcome.retryAfterMs;
        }
        if (attempt === config.maxRetries) break;
        const step = Math.min(backoffCapMs, backoffBaseMs * 2 ** attempt);
        // Equal jitter: at least half the step, so retries from several batches spread out but still back off.
        const delay = retryAfterMs ?? step / 2 + Math.random() * (step / 2);
        try {
          await sleep(delay, undefined, { signal });
        } catch (error) {
          throw signal?.aborted ? signal.reason : error;
        }
      }
      const requests = config.maxRetries + 1;
      throw new GeneratorError(
        `gave up after ${requests} request${requests === 1 ? '' : 's'}: ${lastReason}`,
        requests,
      );
    },
  };
}

interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

type Outcome =
  | { kind: 'answer'; body: string }
  | { kind: 'retry'; reason: string; retryAfterMs: number | null }
  | { kind: 'fatal'; reason: string };

/** The drafts in a chat-completions response body, in slot order, or why there are none. */
function readDrafts(body: string, request: Pick<GenerationRequest, 'slots' | 'brand'>): Draft[] | string {
  const completion = parseJson(body);
  const choice = isRecord(completion) && Array.isArray(completion.choices) ? completion.choices[0] : undefined;
  const message = isRecord(choice) ? choice.message : undefined;
  if (!isRecord(message)) return 'the response has no choices[0].message';
  if (typeof message.content !== 'string') {
    return typeof message.refusal === 'string'
      ? `the model refused: ${message.refusal.slice(0, 200)}`
      : 'the message has no content';
  }
  if (isRecord(choice) && choice.finish_reason === 'length') return "the model's answer was cut off at its token limit";
  // json_object mode should give bare JSON, but some compatible servers still wrap it in a code fence.
  const answer = parseJson(message.content.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/i, '$1'));
  if (answer === undefined) return "the model's answer is not JSON";
  if (!isRecord(answer) || !Array.isArray(answer.posts)) return 'the model\'s answer has no "posts" list';
  const slots = request.slots.length;
  if (answer.posts.length !== slots) return `the model returned ${answer.posts.length} posts for ${slots} slots`;
  const drafts: Draft[] = [];
  for (const [i, post] of answer.posts.entries()) {
    const n = i + 1;
    if (!isRecord(post)) return `post ${n} is not an object`;
    if (typeof post.caption !== 'string') return `post ${n} has no caption`;
    const hashtags = post.hashtags ?? [];
    if (!Array.isArray(hashtags) || !hashtags.every((tag) => typeof tag === 'string'))
      return `post ${n}'s hashtags are not a list of words`;
    if (post.topic !== undefined && post.topic !== null && typeof post.topic !== 'string')
      return `post ${n}'s topic is not text`;
    const topic = typeof post.topic === 'string' && post.topic.trim() !== '' ? post.topic.trim() : null;
    // A leading # is the one slip worth forgiving: the tag is stored without it and posted with it.
    const draft: Draft = {
      caption: post.caption.trim(),
      hashtags: hashtags.map((tag: string) => tag.trim().replace(/^#+/, '')),
      topic,
    };
    const problems = draftProblems(draft, request.brand);
    if (problems.length > 0) return `post ${n}: ${problems.join('; ')}`;
    drafts.push(draft);
  }
  return drafts;
}

/** The brand brief and the hard rules, compactly; only what the brand has set. */
function systemPrompt(brand: BrandBrief): string {
  const lines = [
    'You write social media posts for one brand. Answer with a single JSON object and nothing else:',
    '{"posts":[{"caption":"…","hashtags":["…"],"topic":"…"}]} with exactly one entry per slot, in slot order.',
    '',
    'Brand:',
  ];
  const add = (label: string, value: string | null) => {
    if (value && value.trim()) lines.push(`- ${label}: ${value.trim()}`);
  };
  const list = (items: string[]) => (items.length > 0 ? items.map((item) => JSON.stringify(item)).join(', ') : null);
  add('Name', brand.brand_name);
  add('Industry', brand.industry);
  add('About', brand.company_description);
  add('Website', brand.website_url);
  add('Voice', brand.voice);
  add('Audience', [brand.audience, brand.target_audience].filter((a) => a && a.trim()).join('; ') || null);
  add('Style notes', brand.style_notes);
  add('Tone', toneWords(brand));
  add('Topics to lean into', list(brand.topics_to_lean_into));
  add('Vocabulary to use', list(brand.vocabulary));
  add('Hashtag strategy', brand.hashtag_strategy);
  if (brand.example_posts.length > 0) {
    lines.push('- Example posts in the brand voice:');
    for (const example of brand.example_posts.slice(0, 5))
      lines.push(`  > ${example.slice(0, 500).replace(/\s*\n\s*/g, ' ')}`);
  }
  lines.push(
    '',
    'Hard rules (a post that breaks one is rejected):',
    `- The caption, a blank line, then the hashtags written as #tag words must together fit ${PLATFORM_RULES.twitter.maxText} characters as X counts them (an emoji or CJK character counts 2, a URL ${X_LINK_WEIGHT}).`,
    `- At most ${MAX_GENERATED_HASHTAGS} hashtags, each a single word of letters, digits or _, given without the #; no hashtags inside the caption.`,
    '- "topic" says what the post is about in a few words.',
  );
  if (brand.forbidden_words.length > 0)
    lines.push(`- Never use these words, not even in a hashtag or the topic: ${list(brand.forbidden_words)}.`);
  if (brand.topics_to_avoid.length > 0) lines.push(`- Never touch these topics: ${list(brand.topics_to_avoid)}.`);
  return lines.join('\n');
}

/** The campaign, the workspace's templates and one line per slot: its content type and when it goes out. */
function slotsPrompt(request: Pick<GenerationRequest, 'campaign' | 'templates' | 'slots'>): string {
  const { campaign } = request;
  const lines = [`Campaign: ${campaign.name}${campaign.description ? ` (${campaign.description})` : ''}`];
  if (request.templates.length > 0)
    lines.push(`Post structures you may follow: ${request.templates.map((t) => JSON.stringify(t)).join(', ')}`);
  lines.push(`Write ${request.slots.length} posts, one for each slot:`);
  for (const [i, slot] of request.slots.entries()) {
    const when = slot.scheduledFor;
    const day = when.toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' });
    lines.push(`${i + 1}. ${slot.contentType}, ${day} ${when.toISOString().slice(0, 16).replace('T', ' ')} UTC`);
  }
  return lines.join('\n');
}

/** The 0-to-10 sliders as words a model follows better than numbers. */
function toneWords(brand: Pick<BrandBrief, 'tone_formality' | 'tone_humor' | 'tone_energy'>): string {
  const band = (value: number) => (value <= 1 ? 0 : value <= 3 ? 1 : value <= 6 ? 2 : value <= 8 ? 3 : 4);
  const formality = ['very casual', 'casual', 'neither formal nor casual', 'formal', 'very formal'];
  const humor = ['entirely serious', 'mostly serious', 'lightly humorous', 'humorous', 'playful and funny'];
  const energy = ['very calm', 'calm', 'moderately energetic', 'energetic', 'high-energy'];
  return [formality[band(brand.tone_formality)], humor[band(brand.tone_humor)], energy[band(brand.tone_energy)]].join(
    ', ',
  );
}

/**
 * How long a 429 asks us to wait, capped: OpenAI's `retry-after-ms`, else `retry-after` in seconds
 * or as an HTTP date. Null when it says nothing usable (the backoff applies).
 */
function retryAfter(headers: Headers, capMs: number): number | null {
  const ms = Number(headers.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return Math.min(ms, capMs);
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, capMs);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.min(Math.max(0, date - Date.now()), capMs);
}

/** The provider's own error message when it sent one (`{"error":{"message":…}}`), shortened. */
function errorDetail(text: string): string {
  const parsed = parseJson(text);
  const message =
    isRecord(parsed) && isRecord(parsed.error) && typeof parsed.error.message === 'string'
      ? parsed.error.message
      : text;
  const short = message.replace(/\s+/g, ' ').trim().slice(0, 200);
  return short ? `: ${short}` : '';
}

/** fetch rejects with "fetch failed" and puts the reason (ECONNREFUSED, a reset) in `cause`. */
function networkError(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
