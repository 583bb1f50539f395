/** The logger's two redactions: by path (headers, keys the configuration adds) and by value (credential variables). */
import { spawnSync } from 'node:child_process'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { pino } from 'pino'
import { LogDestination } from './log-destination.ts'
import { createLogger, flatLinesLogger, LOG_BUFFER_BYTES, LOG_FLUSH_INTERVAL_MS } from './logger.ts'

function capture(options: Parameters<typeof createLogger>[0]) {
  const stream = new PassThrough()
  const lines: any[] = []
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().trim().split('\n').map((l) => JSON.parse(l))))
  return { logger: createLogger({ ...options, destination: stream }), lines }
}

describe('createLogger', () => {
  it('redacts credential values wherever they appear, and configured paths', async () => {
    const { logger, lines } = capture({ level: 'info', secrets: ['sk-live-123456'], redact: ['custom.field'] })
    logger.info({ headers: { authorization: 'Bearer abc' }, custom: { field: 'hidden' }, note: 'key sk-live-123456 leaked' }, 'message with sk-live-123456')
    logger.error({ err: new Error('upstream said sk-live-123456') }, 'failed')
    await new Promise((r) => setImmediate(r))
    expect(lines[0]).toMatchObject({ headers: { authorization: '[REDACTED]' }, custom: { field: '[REDACTED]' }, note: 'key [REDACTED] leaked', msg: 'message with [REDACTED]' })
    expect(JSON.stringify(lines)).not.toContain('sk-live-123456')
    expect(lines[1].err.message).toBe('upstream said [REDACTED]')
  })

  it('logs an object or array that refers to itself, scrubbed as deep as the scrub goes, without throwing', async () => {
    const { logger, lines } = capture({ level: 'info', secrets: ['sk-live-123456'] })
    const loop: Record<string, unknown> = { note: 'sk-live-123456' }
    loop.self = loop
    const list: unknown[] = ['sk-live-123456']
    list.push(list)
    expect(() => logger.info({ loop }, 'cyclic')).not.toThrow()
    expect(() => logger.info({ list }, 'cyclic list')).not.toThrow()
    await new Promise((r) => setImmediate(r))
    expect(lines[0]).toMatchObject({ msg: 'cyclic', loop: { note: '[REDACTED]', self: { note: '[REDACTED]' } } })
    expect(lines[1]).toMatchObject({ msg: 'cyclic list', list: ['[REDACTED]', ['[REDACTED]', expect.anything()]] })
  })

  it('honours the level', async () => {
    const { logger, lines } = capture({ level: 'warn' })
    logger.info('quiet')
    logger.warn('loud')
    await new Promise((r) => setImmediate(r))
    expect(lines.map((l) => l.msg)).toEqual(['loud'])
  })

  it('writes stdout through a buffered, asynchronous destination (a write per batch, not per line)', () => {
    // Not a terminal here, so not pino-pretty: the plain JSON destination serve and dev use.
    const logger = createLogger({ level: 'info' })
    const stream = (logger as any)[pino.symbols.streamSym]
    expect(stream).toBeInstanceOf(LogDestination)
    expect(stream).toMatchObject({ fd: 1, options: { batchBytes: LOG_BUFFER_BYTES, flushIntervalMs: LOG_FLUSH_INTERVAL_MS } })
  })

  it('writes flat lines (the access log) as the root logger does, still scrubbing credential values and the configured paths', async () => {
    const { logger, lines } = capture({ level: 'info', secrets: ['sk-live-123456'], redact: ['principal'] })
    const line = { kind: 'http', requestId: 'r-1', route: '/v1/sessions/sk-live-123456', status: 200, principal: 'ops' }
    logger.info(line, 'request')
    flatLinesLogger(logger).info(line, 'request')
    await new Promise((r) => setImmediate(r))
    const [root, flat] = lines.map(({ time, ...rest }) => rest)
    expect(flat).toEqual(root)
    expect(flat).toMatchObject({ route: '/v1/sessions/[REDACTED]', principal: '[REDACTED]' })
    expect(flatLinesLogger(logger)).not.toBe(logger)
  })

  it('loses no buffered line when the process dies of an uncaught exception', () => {
    // A process of its own: the lines are still in the buffer (far below a batch) when it throws.
    const script = `
      const { createLogger } = await import(${JSON.stringify(fileURLToPath(new URL('./logger.ts', import.meta.url)))})
      const logger = createLogger({ level: 'info' })
      for (let i = 0; i < 5; i++) logger.info({ kind: 'http', n: i }, 'request')
      setTimeout(() => { throw new Error('boom') }, 1)`
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 })
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('boom')
    expect(run.stdout.trim().split('\n').map((l) => JSON.parse(l).n)).toEqual([0, 1, 2, 3, 4])
  })

  it('an orderly exit (flushLog) waits for a write still in flight, which a synchronous flush would lose', () => {
    // One libuv thread, kept busy: the batch that filled the buffer waits in the pool's queue when the process exits.
    const script = `
      const { pbkdf2 } = await import('node:crypto')
      const { createLogger, flushLog } = await import(${JSON.stringify(fileURLToPath(new URL('./logger.ts', import.meta.url)))})
      const logger = createLogger({ level: 'info' })
      pbkdf2('secret', 'salt', 300000, 64, 'sha512', () => {})
      for (let i = 0; i < 60; i++) logger.info({ kind: 'http', n: i, pad: 'x'.repeat(200) }, 'request')
      await flushLog(logger, 20000) // longer than the default second: the pool's task is slow on a busy machine
      process.exit(0)`
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, UV_THREADPOOL_SIZE: '1' } })
    expect(run.status).toBe(0)
    expect(run.stdout.trim().split('\n').map((l) => JSON.parse(l).n)).toEqual(Array.from({ length: 60 }, (_, i) => i))
  })
})
