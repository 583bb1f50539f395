/**
 * The lifecycle lines `gateway serve` writes: one per queue transition (never per progress event,
 * the embedder's own onEvent still called), and per session start, park, failure, engine readiness,
 * engine error and close, read from the registry's seams with fakes standing in for the server.
 */
import type { Logger } from 'pino'
import { describe, expect, it } from 'vitest'
import type { GatewayServer } from '../server/create-server.ts'
import type { GatewayServerOptions } from '../server/options.ts'
import { createLogger } from './logger.ts'
import { logQueueTransitions, logSessionLifecycle } from './lifecycle-log.ts'
import { PassThrough } from 'node:stream'

function capture(): { logger: Logger; lines: () => Promise<Array<Record<string, unknown>>> } {
  const stream = new PassThrough()
  const lines: Array<Record<string, unknown>> = []
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)))
  return { logger: createLogger({ level: 'info', destination: stream }), lines: async () => { await new Promise((r) => setImmediate(r)); return lines } }
}

describe('logQueueTransitions', () => {
  it('writes a line per job transition but none per progress event, and still calls the embedder\'s onEvent', async () => {
    const { logger, lines } = capture()
    const seen: string[] = []
    const options = { queue: { onEvent: (e: { type: string }) => seen.push(e.type) } } as unknown as GatewayServerOptions
    logQueueTransitions(options, logger)
    const job = { profile: 'main', status: 'completed' }
    for (const type of ['job_submitted', 'job_progress', 'job_completed']) options.queue!.onEvent!({ type, jobId: 'j1', job } as never)
    expect(seen).toEqual(['job_submitted', 'job_progress', 'job_completed'])
    expect((await lines()).map((l) => [l.kind, l.event, l.jobId, l.msg])).toEqual([['queue', 'job_submitted', 'j1', 'job submitted'], ['queue', 'job_completed', 'j1', 'job completed']])
  })
})

describe('logSessionLifecycle', () => {
  it('writes a session\'s start, park, engine readiness and error, and close; nothing for other events', async () => {
    const { logger, lines } = capture()
    let register: ((runner: unknown) => void) | undefined
    const gateway = { context: { registry: { onRegister: (cb: (runner: unknown) => void) => { register = cb } } } } as unknown as GatewayServer
    logSessionLifecycle(gateway, logger)
    let emit: ((event: Record<string, unknown>) => void) | undefined
    register!({ id: 's1', info: () => ({ profile: 'main', engine: 'provider', status: 'starting', lastSeq: 0 }), subscribe: (fn: typeof emit) => { emit = fn } })
    for (const event of [
      { type: 'system_init' }, { type: 'status_changed', status: 'running' }, { type: 'session_error', message: 'x' },
      { type: 'status_changed', status: 'parked' }, { type: 'assistant_message' }, { type: 'session_closed', reason: 'deleted' },
    ]) emit!(event)
    expect((await lines()).map((l) => [l.level, l.kind, l.sessionId, l.msg])).toEqual([
      [30, 'session', 's1', 'session started'],
      [30, 'engine', 's1', 'engine process ready'],
      [40, 'engine', 's1', 'engine error'],
      [30, 'session', 's1', 'session parked'],
      [30, 'session', 's1', 'session closed'],
    ])
  })
})
