/**
 * The transcript reducer: `reduceTranscript(state, event)` folds session events into what a UI
 * renders directly, without mutating the state it was given (each change returns new objects
 * along its path, so React-style equality checks see it). Rows come in event order: messages,
 * tool calls (matched to their results by `tool_use_id`, and to their executions by
 * `executionId`, which is the tool call's own id in protocol 7), permissions (pending until
 * resolved), turn ends and errors. `streaming` holds the live text of the reply being streamed.
 * Sub-agent traffic (a `parentToolUseId`) is left out of the main rows, as transcriptActivity does.
 */
import {
  streamedText, type ApiMessage, type ContentBlock, type EventOf, type MessageAttachment, type MessageOrigin, type PermissionRequest,
  type ResolvedBy, type SessionEvent, type SessionStatus, type ToolExecutionOutput, type Usage,
} from '../gateway/protocol/index.ts'

export interface ToolExecution {
  executionId: string
  backend: string
  deferred: boolean
  status: 'running' | 'succeeded' | 'failed'
  output?: ToolExecutionOutput
  reason?: string
  error?: string
  logs?: string[]
}

export type TranscriptRow =
  | { kind: 'user'; seq: number; text: string; attachments?: MessageAttachment[]; origin?: MessageOrigin }
  | { kind: 'assistant'; seq: number; text: string; thinking?: string }
  | { kind: 'tool_call'; seq: number; toolUseId: string; name: string; input: unknown; result?: { content: unknown; isError: boolean; seq: number }; execution?: ToolExecution }
  | { kind: 'permission'; seq: number; request: PermissionRequest; resolution?: { behavior: 'allow' | 'deny'; resolvedBy: ResolvedBy; message?: string; seq: number } }
  | { kind: 'turn_end'; seq: number; subtype: string; isError: boolean; result?: string; numTurns: number; totalCostUsd: number; usage?: Usage }
  | { kind: 'file'; seq: number; path: string; fileId?: string; mediaType?: string }
  | { kind: 'error'; seq: number; message: string }
  | { kind: 'reset'; seq: number }

export interface TranscriptState {
  rows: TranscriptRow[]
  /** Live text of the assistant reply being streamed (from `stream_delta`); '' when none is. */
  streaming: string
  /** Permission requests not answered yet, by request id. */
  pendingPermissions: Record<string, PermissionRequest>
  status: SessionStatus | undefined
  /** The last seq folded in; an event at or below it is ignored (a replay's overlap). */
  lastSeq: number
  closed: boolean
}

export function emptyTranscript(): TranscriptState {
  return { rows: [], streaming: '', pendingPermissions: {}, status: undefined, lastSeq: 0, closed: false }
}

/** The transcript of a whole event list. */
export function buildTranscript(events: Iterable<SessionEvent>, from: TranscriptState = emptyTranscript()): TranscriptState {
  let state = from
  for (const event of events) state = reduceTranscript(state, event)
  return state
}

export function reduceTranscript(state: TranscriptState, event: SessionEvent): TranscriptState {
  if (event.seq <= state.lastSeq) return state
  const next: TranscriptState = { ...state, lastSeq: event.seq }
  const sub = 'parentToolUseId' in event && event.parentToolUseId != null
  switch (event.type) {
    case 'status_changed':
      return { ...next, status: event.status }
    case 'stream_delta': {
      const text = sub ? undefined : streamedText(event.event)
      return text ? { ...next, streaming: next.streaming + text } : next
    }
    case 'user_message':
      return sub ? next : userRows(next, event)
    case 'assistant_message':
      return sub ? next : assistantRows(next, event.message, event.seq)
    case 'execution_dispatched':
      return withExecution(next, event.executionId, () => ({ executionId: event.executionId, backend: event.backend, deferred: event.deferred === true, status: 'running' }))
    case 'execution_result':
      return withExecution(next, event.executionId, (e) => ({ ...baseExecution(e, event.executionId), status: 'succeeded', output: event.output, ...(event.logs ? { logs: event.logs } : {}) }))
    case 'execution_failed':
      return withExecution(next, event.executionId, (e) => ({ ...baseExecution(e, event.executionId), status: 'failed', reason: event.reason, error: event.error, ...(event.logs ? { logs: event.logs } : {}) }))
    case 'permission_requested':
      return {
        ...next,
        rows: [...next.rows, { kind: 'permission', seq: event.seq, request: event.request }],
        pendingPermissions: { ...next.pendingPermissions, [event.request.id]: event.request },
      }
    case 'permission_resolved':
      return resolvePermission(next, event)
    case 'turn_result':
      return {
        ...next,
        streaming: '',
        rows: [...next.rows, { kind: 'turn_end', seq: event.seq, subtype: event.subtype, isError: event.isError, numTurns: event.numTurns, totalCostUsd: event.totalCostUsd, ...(event.result === undefined ? {} : { result: event.result }), ...(event.usage ? { usage: event.usage } : {}) }],
      }
    case 'file_delivered':
      return { ...next, rows: [...next.rows, { kind: 'file', seq: event.seq, path: event.path, ...(event.mediaType ? { mediaType: event.mediaType } : {}) }] }
    case 'file_produced':
      return { ...next, rows: [...next.rows, { kind: 'file', seq: event.seq, path: event.path, fileId: event.fileId, ...(event.mediaType ? { mediaType: event.mediaType } : {}) }] }
    case 'session_error':
      return { ...next, streaming: '', rows: [...next.rows, { kind: 'error', seq: event.seq, message: event.message }] }
    case 'session_closed':
      return { ...next, streaming: '', closed: true, pendingPermissions: {} }
    case 'conversation_reset':
      // Cleared in place: what came before is no longer the conversation (events.20).
      return { ...next, streaming: '', rows: [{ kind: 'reset', seq: event.seq }] }
    default:
      return next
  }
}

function textOf(content: ApiMessage['content']): string {
  if (typeof content === 'string') return content
  return content.filter((b): b is Extract<ContentBlock, { type: 'text' }> => b.type === 'text' && typeof (b as { text?: unknown }).text === 'string').map((b) => b.text).join('')
}

/** A human or peer message is a row; a synthetic one carries tool results for the calls above it. */
function userRows(state: TranscriptState, event: EventOf<'user_message'>): TranscriptState {
  const { content } = event.message
  if (!event.synthetic) {
    const row: TranscriptRow = { kind: 'user', seq: event.seq, text: textOf(content), ...(event.attachments?.length ? { attachments: event.attachments } : {}), ...(event.origin ? { origin: event.origin } : {}) }
    return { ...state, rows: [...state.rows, row] }
  }
  if (typeof content === 'string') return state
  let rows = state.rows
  for (const block of content) {
    if (block.type !== 'tool_result') continue
    const result = block as Extract<ContentBlock, { type: 'tool_result' }>
    rows = updateToolCall(rows, result.tool_use_id, (row) => ({ ...row, result: { content: result.content, isError: result.is_error === true, seq: event.seq } }))
  }
  return rows === state.rows ? state : { ...state, rows }
}

function assistantRows(state: TranscriptState, message: ApiMessage, seq: number): TranscriptState {
  let rows = [...state.rows]
  if (typeof message.content === 'string') {
    if (message.content) rows.push({ kind: 'assistant', seq, text: message.content })
  } else {
    const text = textOf(message.content)
    const thinking = message.content.filter((b) => b.type === 'thinking').map((b) => (b as { thinking?: string }).thinking ?? '').join('')
    if (text || thinking) rows.push({ kind: 'assistant', seq, text, ...(thinking ? { thinking } : {}) })
    for (const block of message.content) {
      if (block.type !== 'tool_use') continue
      const call = block as Extract<ContentBlock, { type: 'tool_use' }>
      // An execution event may have come first (it made a bare row): name that row instead.
      const early = rows.some((r) => r.kind === 'tool_call' && r.toolUseId === call.id)
      if (early) rows = updateToolCall(rows, call.id, (row) => ({ ...row, name: call.name, input: call.input }))
      else rows.push({ kind: 'tool_call', seq, toolUseId: call.id, name: call.name, input: call.input })
    }
  }
  // The finished message replaces the live text it was streamed as.
  return { ...state, streaming: '', rows }
}

function baseExecution(existing: ToolExecution | undefined, executionId: string): ToolExecution {
  return existing ?? { executionId, backend: 'server', deferred: false, status: 'running' }
}

/** Sets a tool call's execution; an execution whose call was not seen yet gets a row of its own. */
function withExecution(state: TranscriptState, executionId: string, make: (existing: ToolExecution | undefined) => ToolExecution): TranscriptState {
  const found = state.rows.some((r) => r.kind === 'tool_call' && r.toolUseId === executionId)
  if (found) return { ...state, rows: updateToolCall(state.rows, executionId, (row) => ({ ...row, execution: make(row.execution) })) }
  return { ...state, rows: [...state.rows, { kind: 'tool_call', seq: state.lastSeq, toolUseId: executionId, name: '', input: undefined, execution: make(undefined) }] }
}

function updateToolCall(rows: TranscriptRow[], toolUseId: string, update: (row: Extract<TranscriptRow, { kind: 'tool_call' }>) => TranscriptRow): TranscriptRow[] {
  const index = rows.findLastIndex((r) => r.kind === 'tool_call' && r.toolUseId === toolUseId)
  if (index === -1) return rows
  const copy = [...rows]
  copy[index] = update(rows[index] as Extract<TranscriptRow, { kind: 'tool_call' }>)
  return copy
}

function resolvePermission(state: TranscriptState, event: EventOf<'permission_resolved'>): TranscriptState {
  const index = state.rows.findLastIndex((r) => r.kind === 'permission' && r.request.id === event.requestId)
  const rows = [...state.rows]
  const resolution = { behavior: event.behavior, resolvedBy: event.resolvedBy, seq: event.seq, ...(event.message === undefined ? {} : { message: event.message }) }
  if (index !== -1) rows[index] = { ...(rows[index] as Extract<TranscriptRow, { kind: 'permission' }>), resolution }
  const { [event.requestId]: _answered, ...pendingPermissions } = state.pendingPermissions
  return { ...state, rows, pendingPermissions }
}
