/** Engine lifecycle lines: the engine's PID is `enginePid`, so the gateway's `pid` is not shadowed in the same object. */
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { EngineProcesses } from './engine-processes.ts'
import { createLogger } from './logger.ts'

describe('EngineProcesses log lines', () => {
  it('carry one pid key (the gateway) and the engine process as enginePid', async () => {
    const stream = new PassThrough()
    const raw: string[] = []
    stream.on('data', (chunk: Buffer) => raw.push(...chunk.toString().trim().split('\n')))
    const processes = new EngineProcesses(createLogger({ destination: stream }))
    processes.observe({ type: 'spawn', pid: 999_999_1, profile: 'claude' })
    processes.observe({ type: 'exit', pid: 999_999_1, profile: 'claude', code: 0, signal: null, requested: true })
    await new Promise((r) => setImmediate(r))
    expect(raw).toHaveLength(2)
    for (const line of raw) {
      expect(line.match(/"pid":/g)).toHaveLength(1)
      expect(JSON.parse(line)).toMatchObject({ kind: 'engine', pid: process.pid, enginePid: 9_999_991, profile: 'claude' })
    }
  })
})
