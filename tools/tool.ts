import type { Operation } from '../src/core/operation.ts';

/** MCP tool annotations (hints to the assistant, not guarantees). */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * A tool is data: its name, what an agent needs to know to use it well, and the core operation
 * it calls, the same one its REST route calls, with the same argument names.
 */
export interface ToolDescriptor {
  name: `service_${string}`;
  title: string;
  description: string;
  operation: Operation;
  annotations: ToolAnnotations;
  /**
   * A creating tool: it takes an optional `idempotency_key` argument with the semantics of REST's
   * Idempotency-Key header (the MCP door adds the argument; the rule is in core/idempotency.ts).
   */
  idempotencyKey?: true;
}

export const defineTool = (tool: ToolDescriptor): ToolDescriptor => tool;

/** Reads touch nothing outside the service. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
