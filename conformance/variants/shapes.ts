/**
 * The shape rewrites of the variation proxy: SessionInfo, session events, JobInfo, JobEvents,
 * session notifications and error bodies, each applied only when its variation is switched on
 * (variations.ts names the clause that allows each). Pure functions over parsed JSON.
 */
import type { EventNumbering } from './event-numbering.ts'
import { argsToModel, renamedTool, type ToolShapeOptions } from './tool-shapes.ts'
import type { VariationName } from './variations.ts'

export interface ShapeContext {
  on: Set<VariationName>
  numbering: EventNumbering
  /** Bearer tokens of principals carrying a scope (for `scoped-refusal-403`). */
  scopedTokens: Set<string>
}

/** Routes a scoped principal is refused (authentication.4). */
const OPERATOR_ROUTES = /^\/(fs\/|sdk-sessions$|queue$|queue\/ws$)/

/** Whether an answer is the refusal of a scoped principal on an operator route, to be answered 403. */
export function scopedRefusal(route: string, authorization: unknown, status: number, c: ShapeContext): boolean {
  if (!c.on.has('scoped-refusal-403') || status !== 404 || !OPERATOR_ROUTES.test(route)) return false
  const token = typeof authorization === 'string' && authorization.startsWith('Bearer ') ? authorization.slice(7).trim() : ''
  return c.scopedTokens.has(token)
}

type Json = Record<string, any>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

export function sessionInfo(info: unknown, c: ShapeContext): unknown {
  if (!isObject(info) || typeof info.id !== 'string') return info
  const out: Json = { ...info }
  if (c.on.has('session-fields-omitted')) {
    if (out.canBypassPermissions === false) delete out.canBypassPermissions
    if (Array.isArray(out.subagents) && out.subagents.length === 0) delete out.subagents
    if (out.sdkSessionId === null || out.sdkSessionId === undefined) delete out.sdkSessionId
    delete out.createdAt
  }
  if (c.on.has('provider-events-dropped') && typeof out.lastSeq === 'number') out.lastSeq = c.numbering.map(out.id, out.lastSeq)
  return out
}

/** A session event relayed to a client: undefined when dropped, else the event (renumbered, fields omitted). */
export function sessionEvent(sessionId: string, engine: unknown, event: unknown, c: ShapeContext): Json | undefined {
  if (!isObject(event)) return event as undefined
  if (c.on.has('provider-events-dropped')) {
    if (c.numbering.drop(sessionId, engine, event)) return undefined
    if (typeof event.seq === 'number') event = { ...event, seq: c.numbering.map(sessionId, event.seq) }
  }
  const out: Json = toolBlocks({ ...(event as Json) }, c)
  if (c.on.has('close-reason-renamed') && out.type === 'session_closed' && typeof out.reason === 'string' && out.reason !== 'client') out.reason = 'removed'
  if (c.on.has('execution-output-wrapped') && out.type === 'execution_result' && 'output' in out) out.output = { type: 'json', value: out.output }
  if (c.on.has('event-fields-omitted') && (out.type === 'user_message' || out.type === 'assistant_message')) {
    if (out.parentToolUseId === null) delete out.parentToolUseId
    delete out.uuid
  }
  return out
}

export function toolShapes(c: ShapeContext): ToolShapeOptions {
  return { reshape: c.on.has('tool-schemas-reshaped'), handover: c.on.has('deliver-file-handover') }
}

/** A tool as the client sees it: the other implementation's name and arguments. */
function toolUse(name: unknown, input: unknown, c: ShapeContext): { name: unknown; input: unknown } {
  if (typeof name !== 'string' || !c.on.has('tool-schemas-reshaped')) return { name, input }
  return { name: renamedTool(name, toolShapes(c)), input: isObject(input) ? argsToModel(name, input, toolShapes(c)) : input }
}

/** A `tool_call_request` frame or an assistant message's `tool_use` blocks, with the tools renamed. */
export function toolFrame(frame: Json, c: ShapeContext): Json {
  if (frame.type !== 'tool_call_request') return frame
  const { name, input } = toolUse(frame.toolName, frame.input, c)
  return { ...frame, toolName: name, input }
}

function toolBlocks(event: Json, c: ShapeContext): Json {
  const content = event.message?.content
  if (event.type !== 'assistant_message' || !Array.isArray(content)) return event
  return { ...event, message: { ...event.message, content: content.map((b: any) => (b?.type === 'tool_use' ? { ...b, ...toolUse(b.name, b.input, c) } : b)) } }
}

export function jobInfo(job: unknown, c: ShapeContext): unknown {
  if (!isObject(job)) return job
  if (c.on.has('job-terminal-renamed') && job.status === 'succeeded') return { ...job, status: 'completed' }
  return job
}

export function jobEvent(event: unknown, c: ShapeContext): unknown {
  if (!isObject(event)) return event
  const out: Json = { ...event }
  if ('job' in out) out.job = jobInfo(out.job, c)
  if (c.on.has('job-event-id-nested') && typeof out.jobId === 'string') {
    out.job = isObject(out.job) ? out.job : { id: out.jobId }
    delete out.jobId
  }
  return out
}

export function notification(body: unknown, c: ShapeContext): unknown {
  if (!isObject(body) || typeof body.sessionId !== 'string') return body
  const out: Json = { ...body }
  if ('session' in out) out.session = sessionInfo(out.session, c)
  if (c.on.has('provider-events-dropped') && typeof out.seq === 'number') out.seq = c.numbering.map(out.sessionId, out.seq)
  if (c.on.has('close-reason-renamed') && out.type === 'session_closed' && typeof out.reason === 'string' && out.reason !== 'client') out.reason = 'removed'
  return out
}

/** A JSON REST answer: envelopes of sessions and jobs rewritten, error bodies reshaped. */
export function restBody(status: number, body: unknown, c: ShapeContext): unknown {
  if (!isObject(body)) return body
  if (status >= 400 && c.on.has('error-body-reshaped') && typeof body.error === 'string') {
    const { error, ...rest } = body
    return { ...rest, code: status, message: error }
  }
  const out: Json = { ...body }
  if ('session' in out) out.session = sessionInfo(out.session, c)
  if (Array.isArray(out.sessions)) out.sessions = out.sessions.map((s: unknown) => sessionInfo(s, c))
  if ('job' in out) out.job = jobInfo(out.job, c)
  if (Array.isArray(out.jobs)) out.jobs = out.jobs.map((j: unknown) => jobInfo(j, c))
  return out
}

/** A success status the spec leaves open, answered from the other allowed set. */
export function restStatus(method: string, route: string, status: number, c: ShapeContext): number {
  if (!c.on.has('create-statuses-swapped')) return status
  if (method === 'POST' && status === 201 && (route === '/jobs' || /^\/sessions\/[^/]+\/attachments$/.test(route))) return 200
  if (method === 'POST' && status === 200 && route === '/profiles') return 201
  if (method === 'DELETE' && status === 200 && /^\/sessions\/[^/]+$/.test(route)) return 204
  return status
}

/** Statuses of answers the route tables give none for: a preflight, a method a route lacks. */
export function protocolStatus(method: string, preflight: boolean, status: number, c: ShapeContext): number {
  if (c.on.has('preflight-200') && method === 'OPTIONS' && preflight && status === 204) return 200
  if (c.on.has('wrong-method-404') && status === 405) return 404
  return status
}
