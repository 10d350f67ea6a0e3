/** The draft thread (draft-thread.ts): writes and checks drafts with the same writer as the main thread would. */
import { parentPort, workerData } from 'node:worker_threads';
import { draftWriter } from '../core/campaigns/generation.ts';
import { generatorsFor } from '../core/campaigns/generators/index.ts';
import type { AiConfig } from '../core/campaigns/generators/openai.ts';
import type { DraftThreadAnswer, DraftThreadRequest } from './draft-thread.ts';

const port = parentPort!;
const writer = draftWriter(generatorsFor((workerData as { ai: AiConfig }).ai));

port.on('message', ({ id, request }: DraftThreadRequest) => {
  writer.write(request).then(
    (drafts) => port.postMessage({ id, drafts } satisfies DraftThreadAnswer),
    (error: unknown) => port.postMessage({ id, error: error instanceof Error ? error.message : String(error) } satisfies DraftThreadAnswer),
  );
});
port.postMessage({ ready: true } satisfies DraftThreadAnswer);
