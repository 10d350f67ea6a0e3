/**
 * The REST limit: a bare Express 5 app with the two routes the REST benchmark drives and nothing
 * else (no auth, rate limits, validation or database). GET serves the object in BENCH_OBJECT_FILE
 * with res.json; POST parses the JSON body and answers 201 with an object of the resource's shape.
 * Run as a child: `node --import tsx bench/baseline-express.ts`, PORT=0 picks a free port.
 */
import express from 'express';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

const item = JSON.parse(readFileSync(process.env.BENCH_OBJECT_FILE!, 'utf8')) as Record<string, unknown>;

const app = express();
app.disable('x-powered-by');
app.set('etag', false);

app.get('/api/v1/content/:id', (req, res) => {
  res.json({ ...item, id: req.params.id });
});

app.post('/api/v1/content', express.json({ limit: 1024 * 1024 }), (req, res) => {
  const body = req.body as Record<string, any>;
  const now = new Date().toISOString();
  res.status(201).json({
    id: randomUUID(),
    object: 'content',
    caption: body.caption,
    hashtags: (body.hashtags ?? []).map((tag: string) => tag.replace(/^#/, '')),
    content_type: body.content_type ?? 'single_image',
    target_platforms: body.target_platforms ?? [],
    media_urls: body.media_urls ?? [],
    topic: body.topic ?? null,
    platform_specific: body.platform_specific ?? {},
    aspect_ratio: body.aspect_ratio ?? null,
    scheduled_for: null,
    published_at: null,
    status: body.status ?? 'draft',
    campaign_id: null,
    publish_queued: false,
    publish_results: [],
    created_at: now,
    updated_at: now,
  });
});

const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`Listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
});
