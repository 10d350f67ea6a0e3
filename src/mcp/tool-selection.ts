import { TOOLS, type ToolDescriptor } from '../../tools/index.ts';
import type { Config } from '../core/config.ts';

/**
 * The tools this process exposes over MCP (SERVICE_READ_ONLY, SERVICE_TOOLS), always in the order
 * of TOOLS, so an assistant sees the same list whatever the selection. Called once at start-up by
 * each transport: a name that is not a tool stops start-up, naming it, rather than leaving an
 * operator to wonder why a tool never appears; so does a selection that leaves no tool at all.
 */
export function exposedTools(
  selection: Config['mcpTools'],
  tools: readonly ToolDescriptor[] = TOOLS,
): readonly ToolDescriptor[] {
  const known = new Set<string>(tools.map((tool) => tool.name));
  const unknown = (selection.names ?? []).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new Error(
      `Invalid configuration: SERVICE_TOOLS: ${unknown.length === 1 ? 'no tool is named' : 'no tools are named'} ${unknown.join(', ')}. ` +
        `The tools are ${[...known].join(', ')}.`,
    );
  }
  const named = selection.names === null ? null : new Set(selection.names);
  const exposed = tools.filter(
    (tool) =>
      (!selection.readOnly || tool.annotations.readOnlyHint === true) && (named === null || named.has(tool.name)),
  );
  if (exposed.length === 0) {
    throw new Error(
      `Invalid configuration: SERVICE_TOOLS names only tools that write (${selection.names?.join(', ')}), and read-only mode ` +
        '(SERVICE_READ_ONLY=true or --read-only) exposes only tools that read: no tool would be left.',
    );
  }
  return exposed;
}
