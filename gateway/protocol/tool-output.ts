/**
 * Tool execution outputs (other-shapes.1, commands.1): protocol 7 sends a result as a typed value
 * object, `{type: 'text', value: string}` or `{type: 'json', value}`, and the agent loop receives
 * the value, never the wrapper, whichever path a result takes (a bridged `tool_call_result`,
 * `POST /executions/:id/result`).
 */

export type ToolExecutionOutput = { type: 'text'; value: string } | { type: 'json'; value: unknown }

/** A typed value object: `{type: 'text', value: string}`, or `{type: 'json', value}` with a value. */
export function isToolExecutionOutput(output: unknown): output is ToolExecutionOutput {
  if (typeof output !== 'object' || output === null || Array.isArray(output)) return false
  const { type, value } = output as { type?: unknown; value?: unknown }
  return type === 'text' ? typeof value === 'string' : type === 'json' && Object.hasOwn(output, 'value')
}

/** The typed form of a value, for `execution_result.output`: strings are `text`, the rest `json`. */
export function typedOutput(value: unknown): ToolExecutionOutput {
  return typeof value === 'string' ? { type: 'text', value } : { type: 'json', value: value ?? null }
}
