/**
 * `/fs/roots`, `/fs/list`, `/fs/find`, `/fs/read` and `PUT /fs/write` (engine-session-stores-and-
 * host-files). Operators only; a scoped principal gets the same 404 as an unconfigured server.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { FileRefusal, HOST_FILES_DEFAULTS } from '../../host/host-files.ts'
import type { ListHostRootsResponse } from '../../protocol/index.ts'
import type { GatewayContext } from '../context.ts'
import { readJsonBody, sendJson, sendRefusal } from '../http.ts'
import type { Principal } from '../principal.ts'
import { METHOD_NOT_ALLOWED, refuse, type Refusal } from '../refusal.ts'

const FS_OFF = refuse('not_found', 'host file access is not configured on this server')
const CODES = { 400: 'invalid_request', 403: 'forbidden', 404: 'not_found', 409: 'conflict', 413: 'body_too_large' } as const

export async function handleHostFiles(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, principal: Principal, rest: string[]): Promise<void> {
  const files = ctx.hostFiles
  if (!files || !ctx.visibility.isOperator(principal)) return sendRefusal(res, FS_OFF)
  if (rest.length !== 1) return sendRefusal(res, refuse('not_found', 'not found'))
  const query = new URL(req.url ?? '/', 'http://gateway.invalid').searchParams
  const op = rest[0]
  if (op === 'write') {
    if (req.method !== 'PUT') return sendRefusal(res, METHOD_NOT_ALLOWED)
    const body = await readJsonBody(req, ctx.resolved.maxBodyBytes)
    if (!body.ok) return sendRefusal(res, body.refusal)
    return answer(res, await files.write(body.value))
  }
  if (!['roots', 'list', 'find', 'read'].includes(op)) return sendRefusal(res, refuse('not_found', 'not found'))
  if (req.method !== 'GET') return sendRefusal(res, METHOD_NOT_ALLOWED)
  switch (op) {
    case 'roots':
      return sendJson(res, 200, { roots: files.roots(), canWrite: files.canWrite } satisfies ListHostRootsResponse)
    case 'list':
      return answer(res, await files.list(query.get('path')))
    case 'read':
      return answer(res, await files.read(query.get('path')))
    default: {
      const limit = Math.min(Math.max(1, Number(query.get('limit')) || HOST_FILES_DEFAULTS.findLimit), HOST_FILES_DEFAULTS.findMax)
      return answer(res, await files.find(query.get('path'), query.get('q') ?? '', limit))
    }
  }
}

function answer(res: ServerResponse, result: unknown): void {
  if (result instanceof FileRefusal) return sendRefusal(res, refusalOf(result))
  sendJson(res, 200, result)
}

function refusalOf(r: FileRefusal): Refusal {
  return refuse(CODES[r.status], r.message)
}
