import { Router } from 'express';
import { pingDatabase } from '../../../db/client.ts';
import type { Runtime } from '../../core/context.ts';
import { ERROR_REFERENCE } from '../errors.ts';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** Unauthenticated endpoints: the health probe and the error reference every docs_url points to. */
export function systemRoutes(runtime: Runtime): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', database: pingDatabase(runtime.db) ? 'ok' : 'unavailable', time: runtime.clock.now().toISOString() });
  });
  router.get('/docs/errors', (_req, res) => {
    const rows = Object.entries(ERROR_REFERENCE)
      .map(([code, { status, meaning }]) => `<tr id="${code}"><td>${status}</td><td><code>${code}</code></td><td>${escapeHtml(meaning)}</td></tr>`)
      .join('\n');
    res.type('html').send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Error reference</title></head>
<body><h1>Error reference</h1>
<p>Every failure body is <code>{"error":{"code","message","docs_url"}}</code>; validation failures add
<code>details</code> with <code>formErrors</code> and <code>fieldErrors</code>. A 429 answers
<code>{"object":"error","type":"rate_limit_exceeded","message","retry_after"}</code> instead.
Only <code>internal</code> is worth retrying blind.</p>
<table><thead><tr><th>Status</th><th>Code</th><th>Meaning</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>`);
  });
  return router;
}
