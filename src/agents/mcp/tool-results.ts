import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { QrailApiError } from '../../../packages/client/src/index.js';

/**
 * How a tool answers: the object as structured content (it conforms to the tool's outputSchema)
 * and, as text (what most agent frameworks hand the model), the same JSON or a short summary
 * where the JSON is large. A refusal by the API is a tool error (`isError`) carrying the API's own
 * code, message, status and details as JSON text, so a model can act on it (raise the ceiling, top
 * up, use a new key); it is never a protocol error. It has no structured content: that must
 * conform to the success schema, which an error does not (the SDK's client checks it even then).
 */
export function toolResult(value: Record<string, unknown>, text = JSON.stringify(value)): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: value };
}

export interface ToolFailure {
  readonly code: string;
  readonly message: string;
  readonly status?: number;
  readonly details?: unknown;
  readonly request_id?: string;
}

function failure(e: unknown): ToolFailure | undefined {
  if (e instanceof QrailApiError) {
    return {
      code: e.code,
      message: e.serverMessage,
      status: e.status,
      ...(e.details === undefined ? {} : { details: e.details }),
      ...(e.requestId === undefined ? {} : { request_id: e.requestId }),
    };
  }
  // No answer at all (fetch's own failure: the service is down or unreachable), with the cause's words.
  if (e instanceof TypeError && e.message === 'fetch failed') {
    const cause = (e.cause as { message?: string } | undefined)?.message;
    return { code: 'REQUEST_FAILED', message: `The qrail service did not answer: ${cause ?? e.message}` };
  }
  return undefined;
}

/** The tool error for an API refusal or an unreachable service; anything else is rethrown (the SDK reports it as a tool error with its message). */
export function toolError(e: unknown): CallToolResult {
  const error = failure(e);
  if (error === undefined) throw e;
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }] };
}

/** Runs a tool's body; whatever it throws becomes a tool error. `summary` gives the text when the JSON is too large to repeat. */
export async function answer<T extends Record<string, unknown>>(run: () => Promise<T>, summary?: (value: T) => string | undefined): Promise<CallToolResult> {
  try {
    const value = await run();
    return toolResult(value, summary?.(value) ?? JSON.stringify(value));
  } catch (e) {
    return toolError(e);
  }
}
