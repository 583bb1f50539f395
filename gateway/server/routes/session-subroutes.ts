/**
 * Sub-resources of a session that this build answers minimally: every one passes the scope gate
 * first, so a miss is the same 404 on every `/sessions/:id/*` route (authentication.3).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { GatewayContext } from '../context.ts'
import { readJsonBody, sendJson, sendRefusal } from '../http.ts'
import type { Principal } from '../principal.ts'
import { isRefusal, METHOD_NOT_ALLOWED, NOT_FOUND, refuse } from '../refusal.ts'
import { commandRunner, gateSession } from './session-gate.ts'
import { serveScratchFile } from './scratch-files.ts'
import { handleMcp } from './mcp.ts'
import { handleAttachments } from './attachments.ts'
import { serveProjectIcon } from './project-icon.ts'
import { handleProduced } from './produced-files.ts'
import { serveToolResult } from './tool-results.ts'

export async function handleSessionSubroute(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, principal: Principal, id: string, rest: string[]): Promise<void> {
  const runner = gateSession(ctx, principal, id)
  if (isRefusal(runner)) return sendRefusal(res, runner)
  const info = ctx.registry.info(id)!
  const [head, second] = rest
  switch (head) {
    case 'ws':
      return sendRefusal(res, refuse('upgrade_required', 'this route needs a WebSocket upgrade'))
    case 'permissions': {
      if (rest.length !== 2) return sendRefusal(res, NOT_FOUND)
      if (req.method !== 'POST') return sendRefusal(res, METHOD_NOT_ALLOWED)
      const body = await readJsonBody(req, ctx.resolved.maxBodyBytes)
      if (!body.ok) return sendRefusal(res, body.refusal)
      const decision = body.value as { behavior?: unknown; updatedInput?: unknown; message?: unknown; interrupt?: unknown } | undefined
      if (!decision || typeof decision !== 'object' || (decision.behavior !== 'allow' && decision.behavior !== 'deny')) {
        return sendRefusal(res, refuse('invalid_request', "behavior must be 'allow' or 'deny'"))
      }
      const live = await commandRunner(ctx, id, runner, 'session is parked (it has no pending permission requests)')
      if (isRefusal(live)) return sendRefusal(res, live)
      const resolved = live.resolvePermission(second, {
        behavior: decision.behavior,
        updatedInput: decision.behavior === 'allow' ? decision.updatedInput : undefined,
        message: decision.behavior === 'deny' && typeof decision.message === 'string' ? decision.message : undefined,
        interrupt: decision.behavior === 'deny' && decision.interrupt === true,
      }, 'client') // protocol 7 has no REST value: a REST answer is a client's answer (docs/compatibility.md)
      if (!resolved) return sendRefusal(res, refuse('permission_request_not_found', 'permission request not found (already resolved or expired)'))
      return sendJson(res, 200, { resolved: true })
    }
    case 'mcp':
    {
      const live = await commandRunner(ctx, id, runner, 'session is parked (attach to wake it first)')
      if (isRefusal(live)) return sendRefusal(res, live)
      return handleMcp(req, res, live, ctx.registry.info(id) ?? info, rest, ctx.resolved.maxBodyBytes)
    }
    case 'files':
      if (req.method !== 'GET') return sendRefusal(res, METHOD_NOT_ALLOWED)
      return serveScratchFile(res, info.capabilities.scratchFiles ? runner.files?.() : undefined, rest.slice(1))
    case 'attachments':
      return handleAttachments(req, res, ctx.attachments, info, rest)
    case 'events':
      return serveToolResult(req, res, runner, rest)
    case 'produced':
      return handleProduced(req, res, runner, rest)
    case 'project':
      if (rest.length !== 2 || rest[1] !== 'icon') return sendRefusal(res, NOT_FOUND)
      if (req.method !== 'GET') return sendRefusal(res, METHOD_NOT_ALLOWED)
      return serveProjectIcon(req, res, info)
    default:
      return sendRefusal(res, NOT_FOUND)
  }
}
