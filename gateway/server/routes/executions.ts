/**
 * `POST /executions/:executionId/result` (session-status-values.3-4, errors.2): an outside system
 * answers a deferred execution. An id unknown here, or whose session the caller may not see or
 * whose profile is outside the caller's `allowedProfiles`, is the same 404.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { isToolExecutionOutput } from '../../protocol/index.ts'
import type { ExecutionOutcome } from '../../sessions/runner.ts'
import type { GatewayContext } from '../context.ts'
import { readJsonBody, sendJson, sendRefusal } from '../http.ts'
import type { Principal } from '../principal.ts'
import { METHOD_NOT_ALLOWED, refuse, type Refusal } from '../refusal.ts'

const EXECUTION_NOT_FOUND = refuse('execution_not_found', 'execution not found (unknown id, or its session has ended)')

export async function handleExecutions(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, principal: Principal, rest: string[]): Promise<void> {
  if (rest.length !== 2 || rest[1] !== 'result') return sendRefusal(res, refuse('not_found', 'not found'))
  if (req.method !== 'POST') return sendRefusal(res, METHOD_NOT_ALLOWED)
  const body = await readJsonBody(req, ctx.resolved.maxBodyBytes)
  if (!body.ok) return sendRefusal(res, body.refusal)
  const outcome = parseOutcome(body.value)
  if ('code' in outcome) return sendRefusal(res, outcome)
  const executionId = rest[0]
  // Known here, or parked by another process on a shared store.
  const info = await ctx.parking.sessionOfExecution(executionId)
  // Fleet: a session live on another process keeps its open executions there.
  if (!info && ctx.fleetExecution && (await ctx.fleetExecution(req, res, body.value))) return
  // Fleet: the session may run on another process now (its park woken there): the directory decides.
  if (info && ctx.fleetExecutionOwner && (await ctx.fleetExecutionOwner(req, res, body.value, principal, info.id))) return
  if (!info || !ctx.visibility.canSee(principal, info) || (principal.allowedProfiles && !principal.allowedProfiles.includes(info.profile))) {
    return sendRefusal(res, EXECUTION_NOT_FOUND)
  }
  let result
  try {
    result = await ctx.parking.submitResult(executionId, outcome)
  } catch (err) {
    return sendRefusal(res, refuse('engine_failed', `the session could not be rebuilt: ${(err as Error).message}`))
  }
  if (!result) return sendRefusal(res, EXECUTION_NOT_FOUND)
  sendJson(res, 200, result)
}

/** Protocol 7's optional `logs` (guest-visible log lines), kept only when it is a string array. */
function logsOf(logs: unknown): { logs?: string[] } {
  return Array.isArray(logs) && logs.every((l) => typeof l === 'string') ? { logs } : {}
}

/** `{status:'ok', output}` (the loop receives `output.value` when present) or `{status:'failed', reason, error}`. */
function parseOutcome(value: unknown): ExecutionOutcome | Refusal {
  const body = (typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {}) as Record<string, unknown>
  if (body.status === 'ok') {
    const { output } = body
    if (typeof output !== 'object' || output === null || Array.isArray(output)) return refuse('invalid_request', "output is required for status 'ok' and must be an object")
    const logs = logsOf(body.logs)
    return { status: 'ok', output: 'value' in output ? (output as { value: unknown }).value : output, ...(isToolExecutionOutput(output) ? { typed: output } : {}), ...logs }
  }
  if (body.status === 'failed') {
    if (typeof body.reason !== 'string' || typeof body.error !== 'string') return refuse('invalid_request', "reason and error are required for status 'failed'")
    return { status: 'failed', reason: body.reason, error: body.error, ...logsOf(body.logs) }
  }
  return refuse('invalid_request', "status must be 'ok' or 'failed'")
}
