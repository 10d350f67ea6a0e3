import { Worker } from 'node:worker_threads';
import {
  batchWriter,
  type BatchPlan,
  type BatchWriter,
  type GeneratorFailure,
  type WrittenSlot,
} from '../core/campaigns/generation.ts';
import { generatorsFor } from '../core/campaigns/generators/index.ts';
import type { AiConfig } from '../core/campaigns/generators/openai.ts';
import type { Logger } from '../core/log.ts';

/** What the draft thread is sent, and what it answers. */
export interface DraftThreadRequest {
  id: number;
  plan: BatchPlan;
}
export type DraftThreadAnswer =
  | { ready: true }
  | { id: number; written: WrittenSlot[] }
  | { id: number; error: string }
  /** A generator passed over for a batch, for the main thread's log. */
  | { passedOver: GeneratorFailure };

export interface DraftThread extends BatchWriter {
  /** Starts the thread if it is not running, and settles once it has loaded the generators (or failed to). */
  ready: Promise<void>;
  /** Ends the thread; writes in hand fail, and so does every write after. */
  close(): Promise<void>;
}

/**
 * A thread left without work this long is stopped: it holds some 30 MB (about 60 MB run from the
 * TypeScript sources, with tsx's loader thread), which a process that generates no campaign should
 * not carry. The next batch starts it again, in under a second.
 */
const IDLE_MS = 60_000;

/**
 * A batch writer on a worker thread (draft-thread-entry.ts): the generators (`generatorsFor(ai)`,
 * tried in order), the check of every draft they write and the serialising of the items' events run
 * there, exactly as `batchWriter` runs them on the main thread. That is the CPU-heavy half of
 * generation, and it needs no database, so the engine has the thread write the next batch while
 * the main thread commits the current one (measured in bench/RESULTS.md). The thread starts with
 * the first write and stops after `idleMs` without one. A thread that dies fails the writes it had
 * (the engine retries the campaign later); the next write starts another. It keeps the process
 * alive only while it has work.
 */
export function startDraftThread(ai: AiConfig, options: { idleMs?: number; log?: Logger } = {}): DraftThread {
  const idleMs = options.idleMs ?? IDLE_MS;
  // Said of every generator that fails a batch, the last one too: then the batch fails with its error.
  const passedOver = (failure: GeneratorFailure) =>
    options.log?.warn(
      { generator: failure.generator, campaign_id: failure.campaignId, err: failure.error },
      `campaign generation: the ${failure.generator} generator failed a batch and was passed over`,
    );
  let running: RunningThread | undefined;
  let closed = false;
  const thread = (): RunningThread =>
    (running ??= runThread(ai, idleMs, passedOver, (gone) => running === gone && (running = undefined)));
  const closedError = () => new Error('the draft thread was closed');
  return {
    batchSize: batchWriter(generatorsFor(ai)).batchSize,
    get ready() {
      return closed ? Promise.reject(closedError()) : thread().ready;
    },
    write: (plan) => (closed ? Promise.reject(closedError()) : thread().write(plan)),
    async close() {
      closed = true;
      await running?.stop(closedError());
    },
  };
}

interface RunningThread {
  ready: Promise<void>;
  write(plan: BatchPlan): Promise<WrittenSlot[]>;
  /** Terminates the thread, failing the writes in hand with `reason`. */
  stop(reason: Error): Promise<void>;
}

/** One worker thread; `gone` is told when it stops (idle, failed or terminated), so the next write starts another. */
function runThread(
  ai: AiConfig,
  idleMs: number,
  passedOver: (failure: GeneratorFailure) => void,
  gone: (thread: RunningThread) => void,
): RunningThread {
  const worker = new Worker(bootstrap, { eval: true, workerData: { ai }, name: 'draft writer' });
  worker.unref();
  const waiting = new Map<number, { resolve(written: WrittenSlot[]): void; reject(error: Error): void }>();
  let lastId = 0;
  let idle: NodeJS.Timeout | undefined;
  let started!: () => void;
  let failedToStart!: (error: Error) => void;
  const ready = new Promise<void>((resolve, reject) => ((started = resolve), (failedToStart = reject)));
  // Observed here so a thread nobody awaits the start of cannot raise an unhandled rejection.
  ready.catch(() => {});

  const end = (error: Error) => {
    clearTimeout(idle);
    gone(self);
    failedToStart(error);
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
  };
  const self: RunningThread = {
    ready,
    write(plan) {
      clearTimeout(idle);
      const id = ++lastId;
      return new Promise<WrittenSlot[]>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.ref();
        worker.postMessage({ id, plan } satisfies DraftThreadRequest);
      });
    },
    async stop(reason) {
      end(reason);
      await worker.terminate();
    },
  };
  worker.on('message', (answer: DraftThreadAnswer) => {
    if ('ready' in answer) return started();
    if ('passedOver' in answer) return passedOver(answer.passedOver);
    const writer = waiting.get(answer.id);
    waiting.delete(answer.id);
    if (waiting.size === 0) {
      worker.unref();
      idle = setTimeout(() => void self.stop(new Error('the draft thread was stopped while idle')), idleMs).unref();
    }
    if ('error' in answer) writer?.reject(new Error(answer.error));
    else writer?.resolve(answer.written);
  });
  worker.on('error', end);
  worker.on('exit', (code) => end(new Error(`the draft thread stopped (exit code ${code})`)));
  return self;
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
