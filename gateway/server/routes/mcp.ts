/**
 * `GET /sessions/:id/mcp` and `POST /sessions/:id/mcp/:name` (sessions.9-10, errors.9): what the
 * engine reports, environment and headers already stripped by the runner; 501 where the
 * engine's record says it has no such surface. No configuration file is ever written.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { SessionInfo } from '../../protocol/index.ts'
import type { Runner } from '../../sessions/runner.ts'
import { readJsonBody, sendJson, sendRefusal } from '../http.ts'
import { METHOD_NOT_ALLOWED, NOT_FOUND, refuse } from '../refusal.ts'

const ACTIONS = ['reconnect', 'enable', 'disable'] as const
const NO_STATUS = refuse('not_implemented', 'this session does not report MCP servers')

export async function handleMcp(req: IncomingMessage, res: ServerResponse, runner: Runner, info: SessionInfo, rest: string[], maxBodyBytes: number): Promise<void> {
  if (rest.length === 1) {
    if (req.method !== 'GET') return sendRefusal(res, METHOD_NOT_ALLOWED)
    if (!info.capabilities.mcpStatus) return sendRefusal(res, NO_STATUS)
    // An engine with the surface but nothing wired answers an empty list, never "unsupported".
    const servers = runner.mcpServers ? await runner.mcpServers() : []
    if (servers === undefined) return sendRefusal(res, NO_STATUS)
    return sendJson(res, 200, { servers })
  }
  if (rest.length !== 2) return sendRefusal(res, NOT_FOUND)
  if (req.method !== 'POST') return sendRefusal(res, METHOD_NOT_ALLOWED)
  const body = await readJsonBody(req, maxBodyBytes)
  if (!body.ok) return sendRefusal(res, body.refusal)
  const action = (body.value as { action?: unknown } | undefined)?.action
  if (!ACTIONS.includes(action as never)) return sendRefusal(res, refuse('invalid_request', "action must be 'reconnect', 'enable' or 'disable'"))
  if (!info.capabilities.mcpServerActions || !runner.mcpServerAction) return sendRefusal(res, refuse('not_implemented', 'this session does not support MCP server actions'))
  try {
    await runner.mcpServerAction(rest[1], action as (typeof ACTIONS)[number])
  } catch (err) {
    return sendRefusal(res, refuse('invalid_request', (err as Error).message || 'the engine refused the action'))
  }
  sendJson(res, 200, { servers: (await runner.mcpServers?.()) ?? [] })
}
