import type { Runtime } from '../context.ts';
import { claimDueGenerations, generateCampaign, type BatchWriter, type GenerationOutcome } from './generation.ts';

/**
 * Generates every campaign due now and waits for it: the sequential form of the generation run that
 * tests drive with a manual clock (the worker overlaps campaigns instead).
 */
export async function generateDue(runtime: Runtime, writer: BatchWriter): Promise<GenerationOutcome[]> {
  const outcomes: GenerationOutcome[] = [];
  for (;;) {
    const claims = claimDueGenerations(runtime, 8);
    if (claims.length === 0) return outcomes;
    outcomes.push(...(await Promise.all(claims.map((claim) => generateCampaign(runtime, claim, writer)))));
  }
}
