import { updateBrandProfile } from '../src/core/brand-profile/operations.ts';
import { defineTool } from './tool.ts';

export default defineTool({
  name: 'service_update_brand_profile',
  title: 'Update the brand profile',
  description:
    'Changes the workspace brand profile (PATCH /api/v1/brand-profile); send only the fields to change, the others keep ' +
    'their values. The profile is read before every AI generation (campaign posts), so it steers all generated content. ' +
    'Lists (topics, example_posts, vocabulary, forbidden_words) replace the stored list; null clears a text field or a ' +
    'colour; brand_name cannot be cleared. A value of the wrong type or format (a tone that is not a whole number, a ' +
    'website_url that is not http(s), a colour that is not #rgb or #rrggbb) answers invalid_body; a value over a length, ' +
    'count or range limit answers unprocessable_entity; both carry details.fieldErrors naming the fields. A call with no ' +
    'recognised field answers no_updates. Returns the whole profile.',
  operation: updateBrandProfile,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
