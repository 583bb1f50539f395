/**
 * A real gateway process with a file store is killed with SIGKILL (no shutdown
 * hook runs) and started again; parked and persisted-live sessions come back with their
 * transcripts and seq numbering, and the parked ones wake on their results.
 */
import type { ChildProcess } from 'node:child_process'
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { until } from './harness.ts'
import { startGateway as startRestartable } from './restartable-gateway.ts'

const children: ChildProcess[] = []
let dir: string | undefined
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL')
  // Engine processes of a killed gateway may still be exiting; give the removal a few tries.
  if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 })
})

const startGateway = (work: string, run: number) => startRestartable(work, run, children)

describe('restart with a file store (session-status-values.7-8, embedding-rules.14)', () => {
  it('brings back three parked and two live sessions after kill -9, transcripts and seq intact', async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-restart-'))
    const first = await startGateway(dir, 1)
    const parked: Array<{ id: string; executionId: string }> = []
    for (let i = 0; i < 3; i++) {
      const session = (await first.call('POST', '/sessions', { prompt: 'scenario:deferred' })).body.session
      const ws = await first.attach(session.id)
      const { executionId } = await ws.waitForEvent('execution_dispatched')
      ws.close()
      parked.push({ id: session.id, executionId })
    }
    const live: string[] = []
    for (let i = 0; i < 2; i++) {
      const session = (await first.call('POST', '/sessions', { prompt: `live ${i}` })).body.session
      await until(() => first.call('GET', `/sessions/${session.id}`), (r) => r.body.session.status === 'idle', 'idle')
      live.push(session.id)
    }
    for (const { id } of parked) await until(() => first.call('GET', `/sessions/${id}`), (r) => r.body.session.status === 'parked', 'parked')
    await until(() => readdir(join(dir!, 'store')), (files) => files.filter((f) => f.endsWith('.json')).length === 5, 'five records on disk')
    // A parked row is reported at once, its record written after: a session woken by the first
    // attach left a live record (reserving seqs ahead), and a kill before the park record lands
    // brings it back numbering after that reservation — legal (seq only increases), but not the
    // contiguous numbering this test checks. Kill only once every park is durable.
    const kindOnDisk = (id: string) => readFile(join(dir!, 'store', `${encodeURIComponent(id)}.json`), 'utf8').then((t) => JSON.parse(t).kind, () => undefined)
    for (const { id } of parked) await until(() => kindOnDisk(id), (kind) => kind === 'park', 'the park record on disk')
    const before = new Map<string, number>()
    for (const id of [...parked.map((p) => p.id), ...live]) before.set(id, (await first.call('GET', `/sessions/${id}`)).body.session.lastSeq)
    first.child.kill('SIGKILL')

    const second = await startGateway(dir, 2)
    const listed = (await second.call('GET', '/sessions')).body.sessions
    for (const [id, lastSeq] of before) expect(listed.find((s: any) => s.id === id)).toMatchObject({ lastSeq })
    for (const { id } of parked) expect(listed.find((s: any) => s.id === id).status).toBe('parked')

    for (const { id, executionId } of parked) {
      const res = await second.call('POST', `/executions/${executionId}/result`, { status: 'ok', output: { type: 'text', value: `answer for ${id}` } })
      expect(res.body).toEqual({ applied: true, sessionId: id })
      await until(() => second.call('GET', `/sessions/${id}`), (r) => r.body.session.status === 'idle', 'idle after the result')
      const ws = await second.attach(id)
      const result = await ws.waitForEvent('turn_result')
      expect(result.result).toBe(`The task answered: "answer for ${id}"`)
      const seqs = ws.events().map((e) => e.seq)
      expect(seqs).toEqual(seqs.map((_, i) => i + 1))
      ws.close()
    }
    for (const id of live) {
      const ws = await second.attach(id)
      const replayed = await ws.waitForEvent('turn_result')
      expect(replayed.result).toMatch(/^echo: live/)
      ws.send({ type: 'user_message', text: 'after the restart' })
      const next = await ws.waitForEvent('turn_result', (e) => e.result === 'echo: after the restart')
      expect(next.seq).toBeGreaterThan(before.get(id)!)
      expect(next.numTurns).toBe(2)
      ws.close()
    }
  }, 60_000)
})
