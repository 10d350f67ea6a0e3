import type { Runtime } from '../context.ts';
import { claimDuePublishes, type ClaimResult } from './claim.ts';
import type { Connectors } from './connector.ts';
import { fanOut, type FanOutResult } from './fan-out.ts';

export interface PublishPass {
  claimed: number;
  refused: number;
  deferred: number;
  outcomes: FanOutResult[];
}

/**
 * Publishes everything due now and waits for it: claims up to the configured concurrency, fans the
 * batch out, and repeats until nothing due is left (items deferred by an empty publish bucket stay
 * queued). The scheduler overlaps batches instead; this sequential form is what tests drive with a
 * manual clock, and what a one-shot worker would run.
 */
export async function publishDue(runtime: Runtime, connectors: Connectors): Promise<PublishPass> {
  const pass: PublishPass = { claimed: 0, refused: 0, deferred: 0, outcomes: [] };
  for (;;) {
    const batch: ClaimResult = claimDuePublishes(runtime, runtime.config.publishing.concurrency);
    pass.claimed += batch.claims.length;
    pass.refused += batch.refused;
    pass.deferred = batch.deferred;
    if (batch.claims.length === 0) return pass;
    pass.outcomes.push(...(await Promise.all(batch.claims.map((claim) => fanOut(runtime, connectors, claim)))));
  }
}
