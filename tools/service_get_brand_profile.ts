import { getBrandProfile } from '../src/core/brand-profile/operations.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_get_brand_profile',
  title: 'Get the brand profile',
  description:
    'Returns the brand profile, which shapes every generated post. Call it before writing captions so ' +
    'posts match the voice and never use a forbidden word or an avoided topic. Unset text is null, unset ' +
    'lists [], unset tones 5.',
  operation: getBrandProfile,
  annotations: READ_ONLY,
});
