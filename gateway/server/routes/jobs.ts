/**
 * `/jobs`, `/jobs/:id` and `/queue` (jobs-and-queue.*). Creation goes through the one create
 * validator shared with sessions; job visibility is the session rule applied to `JobInfo.scope`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { CreateJobRequest, JobInfo, SessionInfo } from '../../protocol/index.ts'
import { QueueRefusal, type JobQueue } from '../../queue/job-queue.ts'
import type { GatewayContext } from '../context.ts'
import { validateCreate } from '../create-request.ts'
import { readJsonBody, sendJson, sendRefusal } from '../http.ts'
import type { Principal } from '../principal.ts'
import { isRefusal, METHOD_NOT_ALLOWED, NOT_FOUND, refuse } from '../refusal.ts'

const JOB_NOT_FOUND = refuse('not_found', 'job not found')

/** Jobs are authorized against a stub built from the job, with the same predicate as sessions. */
export function canSeeJob(ctx: GatewayContext, principal: Principal, job: JobInfo): boolean {
  const stub = { id: job.sessionId ?? job.id, profile: job.profile ?? '', scope: job.scope, status: 'idle', meta: { ...job.meta, jobId: job.id } } as unknown as SessionInfo
  return ctx.visibility.canSee(principal, stub)
}

export async function handleJobs(ctx: GatewayContext, queue: JobQueue, req: IncomingMessage, res: ServerResponse, principal: Principal, family: string, rest: string[]): Promise<void> {
  if (family === 'queue') {
    if (rest.length) return sendRefusal(res, NOT_FOUND)
    if (req.method !== 'GET') return sendRefusal(res, METHOD_NOT_ALLOWED)
    if (!ctx.visibility.isOperator(principal)) return sendRefusal(res, NOT_FOUND) // authentication.4
    return sendJson(res, 200, { stats: await queue.stats() })
  }
  if (rest.length > 1) return sendRefusal(res, NOT_FOUND)
  if (rest.length === 0) {
    if (req.method === 'GET') {
      const jobs = (await queue.list()).filter((job) => canSeeJob(ctx, principal, job))
      return sendJson(res, 200, { jobs })
    }
    if (req.method !== 'POST') return sendRefusal(res, METHOD_NOT_ALLOWED)
    return submit(ctx, queue, req, res, principal)
  }
  const record = await queue.get(rest[0])
  if (!record || !canSeeJob(ctx, principal, record.info)) return sendRefusal(res, JOB_NOT_FOUND)
  if (req.method === 'GET') return sendJson(res, 200, { job: record.info })
  if (req.method === 'DELETE') return sendJson(res, 200, { job: await queue.cancel(record.info.id) })
  sendRefusal(res, METHOD_NOT_ALLOWED)
}

async function submit(ctx: GatewayContext, queue: JobQueue, req: IncomingMessage, res: ServerResponse, principal: Principal): Promise<void> {
  const body = await readJsonBody(req, ctx.resolved.maxBodyBytes)
  if (!body.ok) return sendRefusal(res, body.refusal)
  const request = body.value as Partial<CreateJobRequest> | undefined
  if (!request || typeof request !== 'object' || Array.isArray(request)) return sendRefusal(res, refuse('invalid_request', 'request body must be a JSON object'))
  if (!request.session || typeof request.session !== 'object' || Array.isArray(request.session)) return sendRefusal(res, refuse('invalid_request', 'session is required'))
  if (typeof request.session.prompt !== 'string' || !request.session.prompt.trim()) return sendRefusal(res, refuse('invalid_request', 'session.prompt is required'))
  const webhook = request.webhook
  if (webhook !== undefined && (typeof webhook !== 'object' || webhook === null || typeof webhook.url !== 'string' || !/^https?:\/\//.test(webhook.url))) {
    return sendRefusal(res, refuse('invalid_request', 'webhook.url must be an http(s) URL'))
  }
  for (const key of ['attempts', 'retryDelayMs', 'maxTokens', 'maxDurationMs'] as const) {
    if (request[key] !== undefined && typeof request[key] !== 'number') return sendRefusal(res, refuse('invalid_request', `${key} must be a number`))
  }
  const valid = await validateCreate(request.session, principal, ctx.createPolicy)
  if (isRefusal(valid)) return sendRefusal(res, valid)
  const session = { ...valid.request, profile: valid.profile.name, cwd: valid.cwd, prompt: request.session.prompt } as CreateJobRequest['session']
  // An Idempotency-Key makes a retried submission (after a 503, or a lost answer) find its job.
  const idempotencyKey = req.headers['idempotency-key']
  if (idempotencyKey !== undefined && (typeof idempotencyKey !== 'string' || !idempotencyKey || idempotencyKey.length > 255)) {
    return sendRefusal(res, refuse('invalid_request', 'Idempotency-Key must be one non-empty header of at most 255 characters'))
  }
  try {
    const job = await queue.submit({ ...(request as CreateJobRequest), session }, valid.scope, idempotencyKey)
    sendJson(res, 201, { job })
  } catch (err) {
    if (err instanceof QueueRefusal) return sendRefusal(res, refuse('invalid_request', err.message))
    throw err
  }
}
