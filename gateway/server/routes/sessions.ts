/** `/sessions` and `/sessions/:id` (sessions.*). */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { GatewayContext } from '../context.ts'
import { readJsonBody, sendJson, sendRawJson, sendRefusal } from '../http.ts'
import type { Principal } from '../principal.ts'
import { isRefusal, METHOD_NOT_ALLOWED, refuse } from '../refusal.ts'
import { validateCreate } from '../create-request.ts'
import { commandRunner, gateSession } from './session-gate.ts'

export async function handleSessionCollection(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, principal: Principal): Promise<void> {
  if (req.method === 'GET') return listSessions(ctx, res, principal)
  if (req.method === 'POST') return createSession(ctx, req, res, principal)
  sendRefusal(res, METHOD_NOT_ALLOWED)
}

function listSessions(ctx: GatewayContext, res: ServerResponse, principal: Principal): void {
  const { registry, visibility } = ctx
  if (!ctx.options.authorizeSession && (!principal.scope || !Object.keys(principal.scope).length)) {
    return sendRawJson(res, 200, registry.fullListBody())
  }
  const rows: string[] = []
  for (const id of registry.ids()) {
    const info = registry.info(id)
    if (!info || !visibility.canSee(principal, info)) continue
    const json = registry.json(id)
    if (json) rows.push(json)
  }
  sendRawJson(res, 200, `{"sessions":[${rows.join(',')}]}`)
}

async function createSession(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, principal: Principal): Promise<void> {
  const body = await readJsonBody(req, ctx.resolved.maxBodyBytes)
  if (!body.ok) return sendRefusal(res, body.refusal)
  const valid = await validateCreate(body.value, principal, ctx.createPolicy)
  if (isRefusal(valid)) return sendRefusal(res, valid)
  const runner = await ctx.factory.create(valid)
  if (isRefusal(runner)) return sendRefusal(res, runner)
  await ctx.fleetClaimed?.(runner.id)
  // The row's JSON the registry cached on registration. Not its encoded single body: that is
  // built on the first GET, so a session nobody reads keeps no Buffer (idle memory).
  const created = ctx.registry.singleText(runner.id)
  if (created !== undefined) return sendRawJson(res, 201, created)
  sendJson(res, 201, { session: runner.info() })
}

export async function handleSession(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, principal: Principal, id: string): Promise<void> {
  const runner = gateSession(ctx, principal, id)
  if (isRefusal(runner)) return sendRefusal(res, runner)
  switch (req.method) {
    case 'GET': {
      const body = ctx.registry.singleBody(id)
      return body ? sendRawJson(res, 200, body) : sendRefusal(res, refuse('internal_error', 'internal error'))
    }
    case 'PATCH': {
      const body = await readJsonBody(req, ctx.resolved.maxBodyBytes)
      if (!body.ok) return sendRefusal(res, body.refusal)
      const live = await commandRunner(ctx, id, runner, 'session is parked (wake it before renaming)')
      if (isRefusal(live)) return sendRefusal(res, live)
      const value = body.value ?? {}
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        return sendRefusal(res, refuse('invalid_request', 'request body must be a JSON object'))
      }
      if ('title' in value) {
        const { title } = value as { title: unknown }
        if (title !== null && typeof title !== 'string') {
          return sendRefusal(res, refuse('invalid_request', 'title must be a string or null'))
        }
        // A rename is metadata only; the engine never hears of it (updatesessionrequest.2).
        live.setTitle(typeof title === 'string' && title.trim() ? title.trim() : undefined)
        ctx.registry.invalidate(id)
      }
      const renamed = ctx.registry.singleText(id)
      return renamed === undefined ? sendRefusal(res, refuse('internal_error', 'internal error')) : sendRawJson(res, 200, renamed)
    }
    case 'DELETE': {
      ctx.registry.remove(id)
      ctx.attachments.drop(id)
      // Answered once the stored record is gone (and, in a fleet, the directory row): another
      // process asked next reads the store, and must not find the session there (session-status-values.5).
      await ctx.parking.writesSettled(id)
      await ctx.fleetSettled?.(id)
      return sendJson(res, 200, { session: runner.info() })
    }
    default:
      sendRefusal(res, METHOD_NOT_ALLOWED)
  }
}
