import { updateBrandProfile } from '../src/core/brand-profile/operations.ts';
import { defineTool } from './tool.ts';

export default defineTool({
  name: 'service_update_brand_profile',
  title: 'Update the brand profile',
  description:
    'Changes the workspace brand profile (PATCH /api/v1/brand-profile); send only the fields to change, the others keep ' +
    'their values. The profile is read before every AI generation (campaign posts), so it steers all generated content. ' +
    'Lists (topics, example_posts, vocabulary, forbidden_words) replace the stored list; null clears a text field or a ' +
    'colour; brand_name cannot be cleared. Returns the whole profile.',
  operation: updateBrandProfile,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
