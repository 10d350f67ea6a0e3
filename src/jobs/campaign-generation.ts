import {
  abandonGeneration,
  claimDueGenerations,
  generateCampaign,
  generationLeaseMs,
  nextGenerationDueAfter,
  renewGenerationLeases,
  type GenerationClaim,
} from '../core/campaigns/generation.ts';
import type { Runtime } from '../core/context.ts';
import { startDraftThread } from './draft-thread.ts';
import { startLeasedWorker, type Worker } from './leased-worker.ts';

/** Campaigns generated at once by one process; each writes its batches one after another. */
const CONCURRENT_CAMPAIGNS = 4;

/**
 * The campaign generation run of this process: woken by a launch, polled once a second as the
 * backstop for launches made by other processes and for campaigns whose run died (see
 * leased-worker.ts). Leases are renewed while a generator writes a batch. Batches are written on
 * the draft thread (draft-thread.ts), which runs only while there is generation to do.
 */
export function startCampaignGeneration(runtime: Runtime): Worker {
  const drafts = startDraftThread(runtime.config.ai, { log: runtime.log });
  const worker = startLeasedWorker<GenerationClaim>(runtime, {
    name: 'campaign generation',
    capacity: CONCURRENT_CAMPAIGNS,
    claim: (free) => claimDueGenerations(runtime, free),
    process: (claim, stopping) => generateCampaign(runtime, claim, drafts, stopping),
    abandon: (claim, error) => abandonGeneration(runtime, claim, error),
    nextDueAfter: (now) => nextGenerationDueAfter(runtime, now),
    renew: { everyMs: generationLeaseMs(runtime) / 3, run: (claims) => renewGenerationLeases(runtime, claims) },
    listen: (wake) => runtime.wakeups.listen('generation', wake),
  });
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
