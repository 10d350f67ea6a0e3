import type { RequestHandler, Router } from 'express';
import { z } from 'zod';
import { migrationsApplied, pingDatabase } from '../../../db/client.ts';
import type { Runtime } from '../../core/context.ts';
import { DATABASE_RETRY_AFTER_SECONDS, ERROR_CATALOGUE, type ErrorCode } from '../../core/errors.ts';
import { publicEndpoint, routerFor } from '../endpoints.ts';
import { ERROR_STATUS } from '../../http/errors.ts';
import { escapeHtml } from '../../http/message-page.ts';

const Health = z.object({
  status: z.literal('ok'),
  engine: z.enum(['sqlite', 'postgres']).describe('The database engine the process runs on (DATABASE_URL chooses).'),
  database: z.enum(['ok', 'unavailable']).describe('Whether the database answers a query now.'),
  time: z.iso.datetime({ precision: 3 }),
});

/** A load balancer's probe waits for its answer: a database that does not answer by then is not ready. */
const READINESS_WAIT_MS = 2000;

const Readiness = z.object({
  status: z.enum(['ready', 'not_ready']),
  engine: Health.shape.engine,
  database: z
    .enum(['ok', 'unavailable'])
    .describe(`Whether the database answered within ${READINESS_WAIT_MS / 1000} seconds.`),
  migrations: z
    .enum(['applied', 'pending', 'unknown'])
    .describe("Whether the database has every migration this process's build ships (unknown while it cannot be read)."),
  time: Health.shape.time,
});

/** Whether the database answers in time and has this build's migrations. */
async function readiness(runtime: Runtime): Promise<Pick<z.infer<typeof Readiness>, 'database' | 'migrations'>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the database did not answer in time')), READINESS_WAIT_MS);
  });
  try {
    const applied = await Promise.race([migrationsApplied(runtime.db), late]);
    return { database: 'ok', migrations: applied ? 'applied' : 'pending' };
  } catch {
    return { database: 'unavailable', migrations: 'unknown' };
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the database answers: an error (PostgreSQL unreachable, a closed store) is an answer too, `false`. */
async function databaseAnswers(runtime: Runtime): Promise<boolean> {
  try {
    return await pingDatabase(runtime.db);
  } catch {
    return false;
  }
}

/** The error reference every docs_url points to: each code of the core's catalogue, with its status. */
function errorReferencePage(): string {
  const rows = (Object.entries(ERROR_CATALOGUE) as Array<[ErrorCode, { meaning: string; action: string }]>)
    .map(
      ([code, { meaning, action }]) =>
        `<tr id="${code}"><td>${ERROR_STATUS[code]}</td><td><code>${code}</code></td><td>${escapeHtml(meaning)}</td><td>${escapeHtml(action)}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Error reference</title></head>
<body><h1>Error reference</h1>
<p>Every failure body is <code>{"error":{"code","message","docs_url"}}</code>; validation failures add
<code>details</code> with <code>formErrors</code> and <code>fieldErrors</code>. A 429 answers
<code>{"object":"error","type":"rate_limit_exceeded","message","retry_after"}</code> instead, with a
<code>Retry-After</code> header. Branch on <code>code</code>, never on the message. Only
<code>internal</code> is worth retrying blind, and <code>service_unavailable</code> after its <code>Retry-After</code>;
the others repeat until the request or the account changes.
The OpenAPI document is at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.</p>
<table><thead><tr><th>Status</th><th>Code</th><th>Meaning</th><th>What to do</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>`;
}

/** Unauthenticated endpoints: the health probe and the error reference. */
export const systemEndpoints = [
  publicEndpoint({
    method: 'get',
    path: '/healthz',
    summary: 'Health probe',
    description:
      'Answers 200 while the process serves; engine names the database engine (sqlite or postgres), database says whether it answers.',
    handlers: (runtime) => [
      (async (_req, res) => {
        res.json({
          status: 'ok',
          engine: runtime.db.$store.engine,
          database: (await databaseAnswers(runtime)) ? 'ok' : 'unavailable',
          time: runtime.clock.now().toISOString(),
        });
      }) satisfies RequestHandler,
    ],
    responses: { 200: { description: 'The process is up.', json: Health } },
    errors: [],
    answersWithoutDatabase: true,
  }),
  publicEndpoint({
    method: 'get',
    path: '/readyz',
    summary: 'Readiness probe',
    description:
      "For a load balancer: 200 while the process can serve (its database answers and has this build's migrations), else 503 with Retry-After, so traffic goes to other hosts until it recovers by itself. A process shutting down stops listening, so its probe is refused.",
    handlers: (runtime) => [
      (async (_req, res) => {
        const { database, migrations } = await readiness(runtime);
        const ready = database === 'ok' && migrations === 'applied';
        if (!ready) res.status(503).set('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
        res.set('Cache-Control', 'no-store').json({
          status: ready ? 'ready' : 'not_ready',
          engine: runtime.db.$store.engine,
          database,
          migrations,
          time: runtime.clock.now().toISOString(),
        });
      }) satisfies RequestHandler,
    ],
    responses: {
      200: { description: 'The process can serve.', json: Readiness },
      503: { description: 'The database does not answer, or lacks a migration: not ready.', json: Readiness },
    },
    errors: [],
    answersWithoutDatabase: true,
  }),
  publicEndpoint({
    method: 'get',
    path: '/docs/errors',
    summary: 'Error reference',
    description:
      'The page every docs_url points to: every error code with its HTTP status, its meaning and what to do.',
    handlers: () => {
      const page = errorReferencePage();
      return [((_req, res) => void res.type('html').send(page)) satisfies RequestHandler];
    },
    responses: { 200: { description: 'The reference page.', mediaType: 'text/html' } },
    errors: [],
    answersWithoutDatabase: true,
  }),
];

export const systemRoutes = (runtime: Runtime): Router => routerFor(runtime, systemEndpoints);
