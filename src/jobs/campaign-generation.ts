import {
  abandonGeneration,
  claimDueGenerations,
  generateCampaign,
  generationLeaseMs,
  nextGenerationDueAfter,
  renewGenerationLeases,
  type BatchWriter,
  type GenerationClaim,
  type GenerationOutcome,
} from '../core/campaigns/generation.ts';
import type { Runtime } from '../core/context.ts';
import { startDraftThread } from './draft-thread.ts';
import { startLeasedWorker, type LeasedJob, type Worker } from './leased-worker.ts';

/** Campaigns generated at once by one process; each writes its batches one after another. */
const CONCURRENT_CAMPAIGNS = 4;

/**
 * Campaign generation: up to four campaigns at once, each writing its batches with `writer`. Leases
 * are renewed while a generator writes a batch.
 */
export function campaignGenerationJob(
  runtime: Runtime,
  writer: BatchWriter,
): LeasedJob<GenerationClaim, GenerationOutcome> {
  return {
    name: 'campaign generation',
    capacity: CONCURRENT_CAMPAIGNS,
    claim: async (free) => claimDueGenerations(runtime, free),
    process: (claim, stopping) => generateCampaign(runtime, claim, writer, stopping),
    abandon: (claim, error) => abandonGeneration(runtime, claim, error),
    nextDueAfter: async (now) => nextGenerationDueAfter(runtime, now),
    renew: { everyMs: generationLeaseMs(runtime) / 3, run: async (claims) => renewGenerationLeases(runtime, claims) },
    listen: (wake) => runtime.wakeups.listen('generation', wake),
  };
}

/**
 * The campaign generation run of this process: woken by a launch, polled once a second as the
 * backstop for launches made by other processes and for campaigns whose run died (see
 * leased-worker.ts). Batches are written on the draft thread (draft-thread.ts), which runs only
 * while there is generation to do.
 */
export function startCampaignGeneration(runtime: Runtime): Worker {
  const drafts = startDraftThread(runtime.config.ai, { log: runtime.log });
  const worker = startLeasedWorker(runtime, campaignGenerationJob(runtime, drafts));
  return {
    async stop(deadline) {
      const left = await worker.stop(deadline);
      // A batch still being written at the deadline is left to the process's exit, as after a
      // crash: closing the thread would fail it, and the failure would be recorded as the campaign's.
      if (left === 0) await drafts.close();
      return left;
    },
  };
}
