import type { CaptionGenerator, Draft } from '../../generator.ts';
import { writeDraft } from './composition.ts';
import { planFor } from './plan.ts';

/**
 * The built-in caption generator: no network, no model, and the same draft for the same campaign,
 * slot and brand every time, so a generation interrupted by a crash resumes with the drafts it would
 * have written anyway. A caption is composed from the phrasebook's parts (phrasebook.json) (opener, message, tip or
 * benefit, call to action, question), chosen by a PRNG seeded from the campaign id and slot index,
 * filtered by the brand's tone and bans, and shaped by the content type or one of the workspace's
 * template structures. Every draft it returns passes `draftProblems`.
 */
export const builtinGenerator: CaptionGenerator = {
  name: 'builtin',
  async generate(request, signal) {
    const plan = planFor(request);
    const drafts: Draft[] = [];
    for (const slot of request.slots) {
      signal?.throwIfAborted();
      drafts.push(writeDraft(plan, slot.index, slot.contentType));
    }
    return drafts;
  },
};
