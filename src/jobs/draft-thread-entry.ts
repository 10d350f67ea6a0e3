/** The draft thread (draft-thread.ts): writes batches with the same writer as the main thread would. */
import { parentPort, workerData } from 'node:worker_threads';
import { batchWriter } from '../core/campaigns/generation.ts';
import { generatorsFor } from '../core/campaigns/generators/index.ts';
import type { AiConfig } from '../core/campaigns/generators/openai.ts';
import type { DraftThreadAnswer, DraftThreadRequest } from './draft-thread.ts';

const port = parentPort!;
const writer = batchWriter(generatorsFor((workerData as { ai: AiConfig }).ai), (failure) =>
  port.postMessage({ passedOver: failure } satisfies DraftThreadAnswer),
);

port.on('message', ({ id, plan }: DraftThreadRequest) => {
  writer.write(plan).then(
    (written) => port.postMessage({ id, written } satisfies DraftThreadAnswer),
    (error: unknown) =>
      port.postMessage({
        id,
        error: error instanceof Error ? error.message : String(error),
      } satisfies DraftThreadAnswer),
  );
});
port.postMessage({ ready: true } satisfies DraftThreadAnswer);
