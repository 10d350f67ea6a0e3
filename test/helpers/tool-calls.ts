import { expect } from 'vitest';

/**
 * What the helpers need of a client: callTool. Both the SDK v2 client and the SDK 1.x client (the
 * tests that prove a 2025-11-25 client still works) fit.
 */
export interface Client {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<object>;
}

interface CallToolResult {
  content?: unknown;
  isError?: boolean;
  structuredContent?: unknown;
}

export interface ToolOutcome {
  isError: boolean;
  /** A success's structuredContent; undefined on an error. */
  structuredContent: any;
  /** content[0].text parsed as JSON. */
  textJson: any;
}

/**
 * Calls a tool and checks the shape every answer shares: one text block of JSON; a success has the
 * same JSON as structuredContent, an error has no structuredContent (it would have to match the
 * tool's outputSchema, which describes a success).
 */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const content = result.content as Array<{ type: string; text: string }>;
  expect(content).toHaveLength(1);
  expect(content[0].type).toBe('text');
  const textJson: unknown = JSON.parse(content[0].text);
  const isError = result.isError === true;
  if (isError) expect(result.structuredContent).toBeUndefined();
  else expect(textJson).toEqual(result.structuredContent);
  return { isError, structuredContent: result.structuredContent, textJson };
}

/** A successful call's structuredContent. */
export async function toolResult(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const outcome = await callTool(client, name, args);
  expect(outcome.isError, JSON.stringify(outcome.textJson)).toBe(false);
  return outcome.structuredContent;
}

/** A failed call's `error` object, after checking it is a tool error with the expected code. */
export async function toolError(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  code: string,
): Promise<any> {
  const outcome = await callTool(client, name, args);
  expect(outcome.isError, JSON.stringify(outcome.textJson)).toBe(true);
  expect(Object.keys(outcome.textJson)).toEqual(['error']);
  const { error } = outcome.textJson;
  expect(error.code).toBe(code);
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  return error;
}
