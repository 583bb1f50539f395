/**
 * Route families whose features are off in this build or this configuration. They still exist
 * and answer the spec's 404 after authentication (errors.2), never a catch-all 405 or HTML.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { sendRefusal } from '../http.ts'
import { METHOD_NOT_ALLOWED, refuse } from '../refusal.ts'

const QUEUE_OFF = refuse('not_found', 'job queue not configured')
const FS_OFF = refuse('not_found', 'host file access is not configured on this server')
const EXECUTION_NOT_FOUND = refuse('execution_not_found', 'execution not found (unknown id, or its session has ended)')

export function handleUnconfigured(family: string, req: IncomingMessage, res: ServerResponse, rest: string[]): void {
  switch (family) {
    case 'jobs':
    case 'queue':
      return sendRefusal(res, QUEUE_OFF)
    case 'fs':
    case 'sdk-sessions':
      return sendRefusal(res, FS_OFF)
    case 'executions':
      if (rest.length !== 2 || rest[1] !== 'result') return sendRefusal(res, refuse('not_found', 'not found'))
      if (req.method !== 'POST') return sendRefusal(res, METHOD_NOT_ALLOWED)
      return sendRefusal(res, EXECUTION_NOT_FOUND)
    default:
      return sendRefusal(res, refuse('not_found', 'not found'))
  }
}
