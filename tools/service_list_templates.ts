import { listTemplates } from '../src/core/templates/operations.ts';
import { defineTool, READ_ONLY } from './tool.ts';

export default defineTool({
  name: 'service_list_templates',
  title: 'List post templates',
  description:
    "Lists a shared library of post templates that performed well. Pick ones matching the brand's niche " +
    "and platform, follow their structure (hook, body, call to action) in the brand's voice, and use " +
    'example_caption only as a model of length and rhythm, never a copy.',
  operation: listTemplates,
  annotations: READ_ONLY,
});
