/**
 * Route families whose features are off in this build or this configuration. They still exist
 * and answer the spec's 404 after authentication (errors.2), never a catch-all 405 or HTML.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { sendRefusal } from '../http.ts'
import { refuse } from '../refusal.ts'

const QUEUE_OFF = refuse('not_found', 'job queue not configured')

export function handleUnconfigured(family: string, _req: IncomingMessage, res: ServerResponse, _rest: string[]): void {
  switch (family) {
    case 'jobs':
    case 'queue':
      return sendRefusal(res, QUEUE_OFF)
    default:
      return sendRefusal(res, refuse('not_found', 'not found'))
  }
}
