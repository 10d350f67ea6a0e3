import { Worker } from 'node:worker_threads';
import { batchWriter, type BatchPlan, type BatchWriter, type WrittenSlot } from '../core/campaigns/generation.ts';
import { generatorsFor } from '../core/campaigns/generators/index.ts';
import type { AiConfig } from '../core/campaigns/generators/openai.ts';

/** What the draft thread is sent, and what it answers. */
export interface DraftThreadRequest {
  id: number;
  plan: BatchPlan;
}
export type DraftThreadAnswer = { ready: true } | { id: number; written: WrittenSlot[] } | { id: number; error: string };

export interface DraftThread extends BatchWriter {
  /** Settles once the thread has loaded the generators, or fails if it could not start. */
  ready: Promise<void>;
  /** Ends the thread; writes in hand fail. */
  close(): Promise<void>;
}

/**
 * A batch writer on a worker thread: the generators (`generatorsFor(ai)`, tried in order), the
 * check of every draft they write and the serialising of the items' events run there, exactly as
 * `batchWriter` runs them on the main thread. That is the CPU-heavy half of generation, and it
 * needs no database, so the engine has the thread write the next batch while the main thread
 * commits the current one (measured in bench/RESULTS.md). A thread that dies fails the writes it
 * had (the engine retries the campaign later) and is started again on the next write. It keeps the
 * process alive only while it has work.
 */
export function startDraftThread(ai: AiConfig): DraftThread {
  const { batchSize } = batchWriter(generatorsFor(ai));
  const waiting = new Map<number, { resolve(written: WrittenSlot[]): void; reject(error: Error): void }>();
  let lastId = 0;
  let closed = false;
  let thread = spawn();

  function spawn() {
    const worker = new Worker(bootstrap, { eval: true, workerData: { ai }, name: 'draft writer' });
    worker.unref();
    let started!: () => void;
    let failedToStart!: (error: Error) => void;
    const ready = new Promise<void>((resolve, reject) => ((started = resolve), (failedToStart = reject)));
    // Observed here so a thread nobody awaits the start of cannot raise an unhandled rejection.
    ready.catch(() => {});
    const fail = (error: Error) => {
      if (thread.worker === worker) thread = { worker: undefined, ready };
      failedToStart(error);
      for (const { reject } of waiting.values()) reject(error);
      waiting.clear();
    };
    worker.on('message', (answer: DraftThreadAnswer) => {
      if ('ready' in answer) return started();
      const writer = waiting.get(answer.id);
      waiting.delete(answer.id);
      if (waiting.size === 0) worker.unref();
      if ('error' in answer) writer?.reject(new Error(answer.error));
      else writer?.resolve(answer.written);
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(closed ? 'the draft thread was closed' : `the draft thread stopped (exit code ${code})`)));
    return { worker: worker as Worker | undefined, ready };
  }

  return {
    batchSize,
    get ready() {
      return thread.ready;
    },
    write(plan) {
      if (closed) return Promise.reject(new Error('the draft thread was closed'));
      if (!thread.worker) thread = spawn();
      const { worker } = thread;
      const id = ++lastId;
      return new Promise<WrittenSlot[]>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker!.ref();
        worker!.postMessage({ id, plan } satisfies DraftThreadRequest);
      });
    },
    async close() {
      closed = true;
      await thread.worker?.terminate();
    },
  };
}

/**
 * The thread's first code. Run from TypeScript sources (`npm start`, the tests) the entry is a .ts
 * file, and tsx's loader hooks are not inherited by a worker, so it registers them first; a build
 * (`npm run build`) runs the compiled .js entry as it is.
 */
const bootstrap = ((): string => {
  const fromSources = import.meta.url.endsWith('.ts');
  const entry = new URL(`./draft-thread-entry${fromSources ? '.ts' : '.js'}`, import.meta.url).href;
  if (!fromSources) return `import(${JSON.stringify(entry)})`;
  const tsx = import.meta.resolve('tsx/esm/api');
  return `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
})();
