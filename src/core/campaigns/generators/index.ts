import type { CaptionGenerator } from '../generator.ts';
import { builtinGenerator } from './builtin/index.ts';
import { openAiGenerator, type AiConfig } from './openai.ts';

/**
 * The generators a campaign is written with, in the order they are tried: the OpenAI-compatible
 * endpoint when one is configured (`AI_BASE_URL` or `AI_API_KEY`), then always the built-in one,
 * which writes any batch the endpoint could not.
 */
export function generatorsFor(ai: AiConfig): CaptionGenerator[] {
  return ai.baseUrl !== null || ai.apiKey !== null ? [openAiGenerator(ai), builtinGenerator] : [builtinGenerator];
}
