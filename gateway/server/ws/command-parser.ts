/**
 * Parses one client frame into a SessionCommand (commands.*). Bad input of any
 * kind becomes a `protocol_error` message, never a thrown error or a closed socket.
 */
import * as z from 'zod'
import { isToolExecutionOutput, typedOutput, type SessionCommand } from '../../protocol/index.ts'
import { parseClientJson } from '../json-limits.ts'

/** A frame larger than this is refused without parsing. */
export const MAX_FRAME_BYTES = 1024 * 1024

/** Built at the first command rather than at start (building zod schemas is a visible part of the start). */
const buildSchemas = () => ({
  user_message: z.object({ type: z.literal('user_message'), text: z.string(), attachmentIds: z.array(z.string()).optional() }),
  permission_decision: z.discriminatedUnion('behavior', [
    z.object({ type: z.literal('permission_decision'), requestId: z.string().min(1), behavior: z.literal('allow'), updatedInput: z.unknown().optional() }),
    z.object({ type: z.literal('permission_decision'), requestId: z.string().min(1), behavior: z.literal('deny'), message: z.string().optional(), interrupt: z.boolean().optional() }),
  ]),
  interrupt: z.object({ type: z.literal('interrupt') }),
  set_permission_mode: z.object({ type: z.literal('set_permission_mode'), mode: z.string().min(1) }),
  set_model: z.object({ type: z.literal('set_model'), model: z.string().min(1).optional() }),
  clear_context: z.object({ type: z.literal('clear_context') }),
  close: z.object({ type: z.literal('close') }),
  // Protocol 7 names the answer `output` (a typed value object); `result`, this gateway's earlier
  // name, is an alias. One of them is required: an answer without one would poison the transcript.
  tool_call_result: z.object({ type: z.literal('tool_call_result'), executionId: z.string().min(1), output: z.unknown().optional(), result: z.unknown().optional(), logs: z.array(z.string()).optional() })
    .refine((c) => c.output !== undefined || c.result !== undefined, { message: 'output is required', path: ['output'] })
    .transform(({ output, result, ...rest }) => {
      const answer = output !== undefined ? output : result
      // A bare value (an older client of this gateway) becomes the typed form protocol 7 sends.
      return { ...rest, output: isToolExecutionOutput(answer) ? answer : typedOutput(answer) }
    }),
  tool_call_error: z.object({ type: z.literal('tool_call_error'), executionId: z.string().min(1), reason: z.string().optional(), error: z.string(), logs: z.array(z.string()).optional() }),
}) as const
let built: ReturnType<typeof buildSchemas> | undefined

export type ParsedFrame = { ok: true; command: SessionCommand } | { ok: false; message: string }

export function parseCommand(data: string): ParsedFrame {
  if (data.length > MAX_FRAME_BYTES) return { ok: false, message: 'frame too large' }
  // The same parser as a REST body's (syntax, then depth and breadth); a frame's answer names less.
  const json = parseClientJson(data)
  if (!json.ok) return { ok: false, message: json.refusal.code === 'invalid_json' ? 'invalid JSON frame' : json.refusal.error }
  const value = json.value
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: 'a command must be a JSON object' }
  }
  const type = (value as { type?: unknown }).type
  if (typeof type !== 'string') return { ok: false, message: 'a command needs a string type' }
  const schemas = (built ??= buildSchemas())
  if (!Object.hasOwn(schemas, type)) return { ok: false, message: `unknown command: ${type.slice(0, 64)}` }
  const parsed = schemas[type as keyof typeof schemas].safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    return { ok: false, message: `invalid ${type} command: ${issue.path.join('.') || 'body'}: ${issue.message}` }
  }
  return { ok: true, command: parsed.data as SessionCommand }
}
