/**
 * Media upload memory: the server's resident set while it receives a 50 MB upload, against its idle
 * resident set. Uploads are streamed to disk (busboy -> the meter -> a file), so the growth should
 * be a small fraction of the file; a buffered upload would grow by at least the file's size.
 *
 * RSS is read from /proc/<pid>/status of the server child: VmRSS polled every 5 ms during the
 * upload, and VmHWM (the kernel's high-water mark, reset through clear_refs just before the
 * upload) after it; the peak is the larger of the two. Linux only.
 */
import { openAsBlob, writeFileSync, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { crc32 } from 'node:zlib';
import { createWorkspaceViaCli } from './fixtures.ts';
import { childEnv, fmt, RAISED_LIMITS, startHttpChild, statusField, table, tempDir, type Row } from './lib.ts';
import { png } from '../test/fixtures/media/files.ts';

const MB = 1024 * 1024;

/**
 * A well-formed PNG of exactly `size` bytes, written without holding it in memory: a 64x64 image whose
 * filler rides in a private ancillary chunk before IEND (the upload's structural check reads every
 * chunk up to IEND and refuses bytes after it), its CRC computed as the filler streams out.
 */
async function writeUploadFile(path: string, size: number): Promise<void> {
  const image = png(64, 64);
  const iend = image.subarray(-12);
  const fillerLength = size - image.length - 12;
  if (fillerLength < 0) throw new Error(`An upload of ${size} bytes is too small for the filler chunk`);
  const out = createWriteStream(path);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(fillerLength, 0);
  header.write('fiLl', 4, 'latin1');
  out.write(image.subarray(0, -12));
  out.write(header);
  let crc = crc32(header.subarray(4));
  const chunk = Buffer.alloc(MB, 0x5a);
  for (let written = 0; written < fillerLength;) {
    const part = chunk.subarray(0, Math.min(chunk.length, fillerLength - written));
    written += part.length;
    crc = crc32(part, crc);
    if (!out.write(part)) await once(out, 'drain');
  }
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(crc, 0);
  out.write(trailer);
  out.end(iend);
  await once(out, 'finish');
}

async function uploadFile(
  baseUrl: string,
  apiKey: string,
  path: string,
  filename: string,
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append('file', await openAsBlob(path), filename);
  form.append('tags', 'bench');
  const res = await fetch(`${baseUrl}/api/v1/media_assets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    body: form,
  });
  return { status: res.status, body: await res.json() };
}

export async function benchMedia(options: { sizeMb: number; rounds: number }): Promise<Row[]> {
  console.log(
    `\n== Media upload memory: ${options.sizeMb} MB uploads, server RSS idle vs peak, ${options.rounds} round(s) ==`,
  );
  const data = tempDir('media');
  try {
    const fixture = await createWorkspaceViaCli(data.path);
    const server = await startHttpChild(
      'service',
      'src/cli/main.ts',
      ['serve'],
      childEnv({
        PORT: '0',
        DATA_DIR: data.path,
        MEDIA_MAX_BYTES: String((options.sizeMb + 1) * MB),
        ...RAISED_LIMITS,
      }),
    );
    const pid = server.child.pid!;
    try {
      const small = join(data.path, 'small.png');
      writeFileSync(small, png(8, 8));
      const big = join(data.path, 'big.png');
      const size = options.sizeMb * MB;
      await writeUploadFile(big, size);

      // Warm: load the upload path, then one 16 MB upload, whose first run grows the heap's young
      // generation and the stream buffers once (15 to 33 MB measured, whatever the file's size: the
      // same at 50 and 200 MB). Its growth is printed; the rounds then measure the steady state.
      const warm = await uploadFile(server.url, fixture.apiKey, small, 'warm.png');
      if (warm.status !== 201)
        throw new Error(`warm-up upload answered ${warm.status}: ${JSON.stringify(warm.body)}\n${server.log()}`);
      const warmFile = join(data.path, 'warm.png');
      await writeUploadFile(warmFile, 16 * MB);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const coldIdle = statusField(pid, 'VmRSS');
      let coldPeak = coldIdle;
      const coldPoll = setInterval(() => {
        coldPeak = Math.max(coldPeak, statusField(pid, 'VmRSS'));
      }, 5);
      try {
        const res = await uploadFile(server.url, fixture.apiKey, warmFile, 'warm.png');
        if (res.status !== 201)
          throw new Error(`16 MB warm-up upload answered ${res.status}: ${JSON.stringify(res.body)}`);
      } finally {
        clearInterval(coldPoll);
      }
      console.log(
        `first 16 MB upload after start (cold): idle ${fmt(coldIdle / MB, 1)} MB, peak ${fmt(coldPeak / MB, 1)} MB, growth ${fmt((coldPeak - coldIdle) / MB, 1)} MB`,
      );
      const results: Array<{ idle: number; peak: number }> = [];
      for (let round = 0; round < options.rounds; round++) {
        global.gc?.();
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        const idle = statusField(pid, 'VmRSS');
        let hwmReset = true;
        try {
          writeFileSync(`/proc/${pid}/clear_refs`, '5');
        } catch {
          hwmReset = false;
        }
        let polled = idle;
        const poll = setInterval(() => {
          polled = Math.max(polled, statusField(pid, 'VmRSS'));
        }, 5);
        const started = performance.now();
        let res: Awaited<ReturnType<typeof uploadFile>>;
        try {
          res = await uploadFile(server.url, fixture.apiKey, big, 'big.png');
        } finally {
          clearInterval(poll);
        }
        const ms = performance.now() - started;
        if (res.status !== 201 || res.body.size_bytes !== size) {
          throw new Error(`upload answered ${res.status}: ${JSON.stringify(res.body)}\n${server.log()}`);
        }
        const peak = Math.max(polled, hwmReset ? statusField(pid, 'VmHWM') : 0);
        results.push({ idle, peak });
        console.log(
          `round ${round + 1}: idle ${fmt(idle / MB, 1)} MB, peak ${fmt(peak / MB, 1)} MB (polled ${fmt(polled / MB, 1)}, ` +
            `${hwmReset ? 'VmHWM reset' : 'VmHWM not resettable'}), growth ${fmt((peak - idle) / MB, 1)} MB, upload ${fmt(ms)} ms`,
        );
      }
      // The worst round speaks for the server.
      const worst = results.reduce((a, b) => (b.peak - b.idle > a.peak - a.idle ? b : a));
      console.log(
        table(
          ['figure', 'MB'],
          [
            ['idle RSS', fmt(worst.idle / MB, 1)],
            [`peak RSS during the ${options.sizeMb} MB upload`, fmt(worst.peak / MB, 1)],
            ['growth', fmt((worst.peak - worst.idle) / MB, 1)],
          ],
        ),
      );
      return [
        {
          name: `media upload ${options.sizeMb} MB: peak RSS vs idle RSS`,
          unit: 'MB',
          project: worst.peak / MB,
          limit: worst.idle / MB,
          ratio: worst.peak / worst.idle,
          target: { op: '<=', value: 1.25 },
        },
        {
          name: `media upload ${options.sizeMb} MB: RSS growth vs file size`,
          unit: 'MB',
          project: (worst.peak - worst.idle) / MB,
          limit: size / MB,
          ratio: (worst.peak - worst.idle) / size,
          // Buffering the upload would grow by the whole file (ratio >= 1); streaming leaves the
          // garbage of a few young-generation cycles of 64 KiB chunks, which does not grow with the file.
          target: { op: '<=', value: 0.5 },
        },
      ];
    } finally {
      await server.stop();
    }
  } finally {
    data.cleanup();
  }
}
