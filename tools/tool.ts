import { operationErrorCodes, type Operation } from '../src/core/operation.ts';

/** MCP tool annotations (hints to the assistant, not guarantees). */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * A tool is data: its name, what an agent needs to know to use it well, and the core operation
 * it calls, the same one its REST route calls, with the same argument names. The operation carries
 * the rest of the contract: the output schema and the errors it answers.
 */
export interface ToolDescriptor {
  name: `service_${string}`;
  title: string;
  /** What is written for an assistant, followed by the "Errors: …" sentence made from the operation. */
  description: string;
  operation: Operation;
  annotations: ToolAnnotations;
  /**
   * A creating tool: it takes an optional `idempotency_key` argument with the semantics of REST's
   * Idempotency-Key header (the MCP door adds the argument; the rule is in core/idempotency.ts).
   */
  idempotencyKey?: true;
}

/**
 * "Errors: code (when), …." from the operation's own errors, or nothing when it declares none; the
 * codes every call can meet (keys, plans, rate limits, an unknown id) are told once, in the server's
 * instructions, not in every tool.
 */
export function errorsSentence(operation: Pick<Operation, 'errors'>): string {
  const codes = operationErrorCodes(operation);
  if (codes.length === 0) return '';
  return `Errors: ${codes.map((code) => `${code} (${operation.errors[code]})`).join(', ')}.`;
}

/** The descriptor, its description completed with the errors sentence. */
export const defineTool = (tool: ToolDescriptor): ToolDescriptor => {
  const errors = errorsSentence(tool.operation);
  return { ...tool, description: errors ? `${tool.description} ${errors}` : tool.description };
};

/** Reads touch nothing outside the service. */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
