import {
  abandonGeneration,
  claimDueGenerations,
  generateCampaign,
  generationLeaseMs,
  nextGenerationDueAfter,
  renewGenerationLeases,
  type GenerationClaim,
} from '../core/campaigns/generation.ts';
import type { CaptionGenerator } from '../core/campaigns/generator.ts';
import type { Runtime } from '../core/context.ts';
import { startLeasedWorker, type Worker } from './leased-worker.ts';

/** Campaigns generated at once by one process; each writes its batches one after another. */
const CONCURRENT_CAMPAIGNS = 4;

/**
 * The campaign generation run of this process: woken by a launch, polled once a second as the
 * backstop for launches made by other processes and for campaigns whose run died (see
 * leased-worker.ts). Leases are renewed while a generator writes a batch.
 */
export function startCampaignGeneration(runtime: Runtime, generators: CaptionGenerator[]): Worker {
  return startLeasedWorker<GenerationClaim>(runtime, {
    name: 'campaign generation',
    capacity: CONCURRENT_CAMPAIGNS,
    claim: (free) => claimDueGenerations(runtime, free),
    process: (claim, stopping) => generateCampaign(runtime, claim, generators, stopping),
    abandon: (claim, error) => abandonGeneration(runtime, claim, error),
    nextDueAfter: (now) => nextGenerationDueAfter(runtime, now),
    renew: { everyMs: generationLeaseMs(runtime) / 3, run: (claims) => renewGenerationLeases(runtime, claims) },
    listen: (wake) => runtime.wakeups.listen('generation', wake),
  });
}
