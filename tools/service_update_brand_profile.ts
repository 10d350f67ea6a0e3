import { updateBrandProfile } from '../src/core/brand-profile/operations.ts';
import { defineTool } from './tool.ts';

export default defineTool({
  name: 'service_update_brand_profile',
  title: 'Update the brand profile',
  description:
    'Changes the brand profile: send only the fields to change. It is read before every AI generation, ' +
    'so it steers all generated content. A list replaces the stored one ([] clears it); null clears a ' +
    'text field or colour.',
  operation: updateBrandProfile,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
});
