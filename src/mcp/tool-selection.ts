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

/** What one HTTP connection asks for: `/mcp/readonly` or `X-MCP-Readonly: true`, and `X-MCP-Tools`. */
export interface ConnectionSelection {
  readOnly: boolean;
  /** The names of `X-MCP-Tools`, or null when the header is absent. */
  names: readonly string[] | null;
}

/** Parses `X-MCP-Tools: name,name` (spaces around names allowed); absent or blank selects nothing out. */
export function parseToolNames(header: string | undefined): string[] | null {
  if (header === undefined) return null;
  const names = header
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return names.length === 0 ? null : names;
}

/**
 * Narrows the process's tools (already cut by SERVICE_READ_ONLY and SERVICE_TOOLS) to what one
 * connection asked for. A name that is no tool at all is refused by the caller with 400 (see
 * unknownToolNames), since a typo would otherwise hide a tool silently; a real tool that the process
 * does not expose simply stays out, as the selections intersect. Scopes are applied separately, since
 * a tool hidden by scope answers 403 rather than "unknown tool".
 */
export function connectionTools(
  processTools: readonly ToolDescriptor[],
  selection: ConnectionSelection,
): readonly ToolDescriptor[] {
  const named = selection.names === null ? null : new Set(selection.names);
  return processTools.filter(
    (tool) =>
      (!selection.readOnly || tool.annotations.readOnlyHint === true) && (named === null || named.has(tool.name)),
  );
}

/** The names in `X-MCP-Tools` that are not tools of this service. */
export function unknownToolNames(names: readonly string[] | null, tools: readonly ToolDescriptor[] = TOOLS): string[] {
  const known = new Set<string>(tools.map((tool) => tool.name));
  return (names ?? []).filter((name) => !known.has(name));
}
