import { getBrandProfile } from '../src/core/brand-profile/operations.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_get_brand_profile',
  title: 'Get the brand profile',
  description:
    'Returns the workspace brand profile (GET /api/v1/brand-profile), which shapes every AI-generated post: voice, ' +
    'audience, topics_to_lean_into, topics_to_avoid, style_notes, example_posts, brand_name, industry, target_audience, ' +
    'company_description, website_url, tone_formality, tone_humor and tone_energy (0 to 10), vocabulary, forbidden_words, ' +
    'primary_color, secondary_color, accent_color, hashtag_strategy and updated_at. Call it first, before writing captions ' +
    'or creating content, so posts match the brand and never use a forbidden word or an avoided topic. Unset text fields ' +
    'are null, unset lists [] and unset tones 5. Takes no arguments.',
  operation: getBrandProfile,
  annotations: READ_ONLY,
});
