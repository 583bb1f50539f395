/**
 * The provider runner's turn state and the pure conversions around it: the shapes a snapshot
 * carries (plain JSON, so a parked turn can be rebuilt in another process) and how one leg's
 * calls become transcript events and model history, side by side so the two never drift.
 */
import type { ModelMessage } from 'ai'
import type { ApiMessage, ContentBlock, Usage } from '../../protocol/index.ts'
import type { OutgoingAttachment } from '../../sessions/attachments.ts'
import type { ToolOutput, ToolSpec } from './tools.ts'
import type { LegToolCall } from './turn.ts'

/** Attachment bytes as base64, so a parked turn's queue stays plain JSON. */
export type UserPart = { type: 'text'; text: string } | { type: 'image'; image: string; mediaType: string } | { type: 'file'; data: string; mediaType: string }
export type Task = { kind: 'message'; text: string; parts?: UserPart[]; hops?: number } | { kind: 'clear' }

/** One tool call of the current leg, with its answer once known. */
export interface CallRecord extends LegToolCall {
  executionId: string
  kind: ToolSpec['kind'] | 'unknown'
  expiresAt?: number
  output?: ToolOutput
}

export interface TurnState {
  startedAt: number
  usage: Usage
  legs: number
  lastText: string
  calls: CallRecord[]
  interrupted?: boolean
  /** Relays behind the message this turn answers; a reply relayed on counts one more. */
  hops?: number
}

/** The engine-private part of a snapshot (opaque to the server). */
export interface EngineState {
  sdkSessionId: string
  history: ModelMessage[]
  numTurns: number
  model?: string
  queue: Task[]
  turn?: TurnState
}

/** The assistant message of one leg: its text and tool calls, for the transcript and for the model. */
export function assistantEntry(text: string, calls: LegToolCall[], model: string, usage: Usage): { message: ApiMessage; history: ModelMessage } | undefined {
  const content: ContentBlock[] = []
  if (text) content.push({ type: 'text', text })
  for (const c of calls) content.push({ type: 'tool_use', id: c.toolCallId, name: c.toolName, input: c.input })
  if (!content.length) return undefined
  const parts: Exclude<ModelMessage & { role: 'assistant' }, { content: string }>['content'] = []
  if (text) parts.push({ type: 'text', text })
  for (const c of calls) parts.push({ type: 'tool-call', toolCallId: c.toolCallId, toolName: c.toolName, input: c.input })
  return { message: { role: 'assistant', content, model, usage }, history: { role: 'assistant', content: parts } }
}

/** The answers of one leg's calls, in call order: a synthetic user message and the model's tool message. */
export function toolResultEntry(calls: CallRecord[]): { message: ApiMessage; history: ModelMessage } {
  const blocks: ContentBlock[] = []
  const parts: Array<{ type: 'tool-result'; toolCallId: string; toolName: string; output: { type: 'json'; value: never } | { type: 'error-text'; value: string } }> = []
  for (const call of calls) {
    const output = call.output ?? { ok: false, error: 'no result' }
    // Protocol 7 hands the model the answer's value as a JSON tool result, whatever type it came with.
    const failure = output.ok ? '' : output.modelText ?? output.error
    blocks.push({ type: 'tool_result', tool_use_id: call.toolCallId, content: output.ok ? JSON.stringify(output.value ?? null) : failure, is_error: !output.ok })
    parts.push({
      type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName,
      output: output.ok ? { type: 'json', value: (output.value ?? null) as never } : { type: 'error-text', value: failure },
    })
  }
  return { message: { role: 'user', content: blocks }, history: { role: 'tool', content: parts } }
}

/** Text attachments are inlined; images and PDFs go as the model API's own part types. */
export function partOf(a: OutgoingAttachment): UserPart {
  const base64 = Buffer.from(a.data).toString('base64')
  if (a.mediaType.startsWith('image/')) return { type: 'image', image: base64, mediaType: a.mediaType }
  if (a.mediaType === 'application/pdf') return { type: 'file', data: base64, mediaType: a.mediaType }
  return { type: 'text', text: `<attachment name="${a.name}">\n${Buffer.from(a.data).toString('utf8')}\n</attachment>\n` }
}

export function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

/** Sums a leg's usage into the turn's: legs across parks add up into one turn (engine-facts §3). */
export function addUsage(into: Usage, leg: Usage): void {
  for (const [key, value] of Object.entries(leg) as Array<[keyof Usage, number | undefined]>) {
    if (typeof value === 'number') (into as Record<string, number>)[key] = ((into as Record<string, number>)[key] ?? 0) + value
  }
}
