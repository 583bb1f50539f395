/**
 * Tool execution outputs (other-shapes.1, commands.1): protocol 7 sends a result as a typed value
 * object, `{type: 'text', value: string}` or `{type: 'json', value}`, and the agent loop receives
 * the value, never the wrapper. One rule for every path a result takes (a bridged
 * `tool_call_result`, `POST /executions/:id/result`), so the model sees the same thing either way.
 */

export type ToolExecutionOutput = { type: 'text'; value: string } | { type: 'json'; value: unknown }

/** A typed value object: `type` is `text` or `json` and `value` is present. */
export function isToolExecutionOutput(output: unknown): output is ToolExecutionOutput {
  if (typeof output !== 'object' || output === null || Array.isArray(output)) return false
  const { type } = output as { type?: unknown }
  return (type === 'text' || type === 'json') && Object.hasOwn(output, 'value')
}

/**
 * What the agent loop receives for an answer. A typed value object gives its `value`; anything else
 * (the bare value older clients of this gateway sent as `result`) is passed as it stands.
 */
export function outputValue(output: unknown): unknown {
  return isToolExecutionOutput(output) ? output.value : output
}

/** The typed form of a value, for `execution_result.output`: strings are `text`, the rest `json`. */
export function typedOutput(value: unknown): ToolExecutionOutput {
  return typeof value === 'string' ? { type: 'text', value } : { type: 'json', value: value ?? null }
}
