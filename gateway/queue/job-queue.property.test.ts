/**
 * Property: under random sequences of submit, cancel, fail, succeed, park, result and clock
 * advances, the queue keeps its invariants (done means): running ≤ maxConcurrency, no job
 * runs twice at once, every job ends in exactly one terminal status, and each job's webhook
 * sequence follows started, progress*, (parked, resumed)*, then retrying or completed.
 */
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { CreateSessionRequest, JobEvent } from '../protocol/index.ts'
import type { WebhookDeliverer } from '../sessions/webhooks.ts'
import { JobQueue } from './job-queue.ts'
import { ScriptedRunner } from './testing/scripted-runner.ts'

const op = fc.oneof(
  fc.record({ kind: fc.constant('submit' as const), attempts: fc.integer({ min: 1, max: 3 }), retryDelayMs: fc.integer({ min: 0, max: 40 }) }),
  fc.record({ kind: fc.constantFrom('cancel' as const, 'fail' as const, 'succeed' as const, 'park' as const, 'result' as const), pick: fc.nat(20) }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 100 }) }),
)

const ORDER = /^(S(P|KR)*K?Y)*(S(P|KR)*K?)?C$/
const LETTER: Record<string, string> = { job_started: 'S', job_progress: 'P', job_parked: 'K', job_resumed: 'R', job_retrying: 'Y', job_completed: 'C' }

beforeEach(() => { vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] }) })
afterEach(() => { vi.useRealTimers() })

describe('JobQueue under random operations', () => {
  it('keeps its invariants', async () => {
    await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 40 }), fc.integer({ min: 1, max: 3 }), async (ops, maxConcurrency) => {
      const delivered = new Map<string, string>()
      const live = new Map<string, ScriptedRunner[]>()
      let sessions = 0
      let violation: string | undefined
      const deliverer = { deliver: (_k: string, _t: unknown, e: JobEvent) => delivered.set(e.jobId, (delivered.get(e.jobId) ?? '') + LETTER[e.type]) } as unknown as WebhookDeliverer
      const queue = new JobQueue({ maxConcurrency, killGraceMs: 10 }, {
        deliverer,
        async startSession(request: CreateSessionRequest) {
          const jobId = String(request.meta?.jobId)
          const running = (live.get(jobId) ?? []).filter((r) => !r.core.closed)
          if (running.length) violation = `job ${jobId} started while a run was live`
          const scripted = new ScriptedRunner(`s${++sessions}`, jobId)
          live.set(jobId, [...(live.get(jobId) ?? []), scripted])
          return scripted.runner()
        },
      })
      const parkedSessions = new Map<string, ScriptedRunner>()
      const resuming = new Set<string>()
      const liveRunners = () => [...live.values()].flat().filter((r) => !r.core.closed && !parkedSessions.has(r.id) && !resuming.has(r.id))
      const checkConcurrency = async () => {
        const stats = await queue.stats()
        if (stats.running > maxConcurrency) violation = `running ${stats.running} > ${maxConcurrency}`
      }
      let exec = 0
      for (const o of ops) {
        if (o.kind === 'submit') await queue.submit({ session: { cwd: '', prompt: 'p' }, attempts: o.attempts, retryDelayMs: o.retryDelayMs, webhook: { url: 'http://127.0.0.1:9/h' } }, undefined)
        else if (o.kind === 'advance') await vi.advanceTimersByTimeAsync(o.ms)
        else if (o.kind === 'cancel') {
          const jobs = await queue.list()
          if (jobs.length) await queue.cancel(jobs[o.pick % jobs.length].id)
        } else if (o.kind === 'result') {
          const parked = [...parkedSessions.values()]
          if (parked.length) {
            const old = parked[o.pick % parked.length]
            parkedSessions.delete(old.id)
            resuming.add(old.id)
            // Parking waits for a slot, then rebuilds the session under its id with its log (session-status-values.3).
            void queue.waitForResumeSlot(old.id).then(() => queue.onSessionResumed(old.id, old.runner())).then(() => resuming.delete(old.id))
          }
        } else {
          const runners = liveRunners()
          if (!runners.length) continue
          const r = runners[o.pick % runners.length]
          if (o.kind === 'park') {
            // As parking does: the queue's consent, the park saved, then the job parked.
            const executionId = `e${++exec}`
            if (await queue.onSessionParking(r.id, executionId)) {
              await queue.onSessionParked(r.id, executionId)
              parkedSessions.set(r.id, r)
            }
          } else {
            r.core.emit({ type: 'assistant_message', message: { role: 'assistant', content: 'working' } })
            r.core.emit({ type: 'turn_result', subtype: o.kind === 'fail' ? 'error' : 'success', isError: o.kind === 'fail', durationMs: 1, numTurns: 1, totalCostUsd: 0 })
          }
        }
        await vi.advanceTimersByTimeAsync(0)
        await checkConcurrency()
      }
      // Drain: finish every live run, wake every park, and let retries come due.
      for (let round = 0; round < 50; round++) {
        for (const r of [...parkedSessions.values()]) {
          parkedSessions.delete(r.id)
          resuming.add(r.id)
          void queue.waitForResumeSlot(r.id).then(() => queue.onSessionResumed(r.id, r.runner())).then(() => resuming.delete(r.id))
        }
        for (const r of liveRunners()) r.core.emit({ type: 'turn_result', subtype: 'success', isError: false, durationMs: 1, numTurns: 1, totalCostUsd: 0 })
        await vi.advanceTimersByTimeAsync(200)
        await checkConcurrency()
        if ((await queue.list()).every((j) => queue.isTerminal(j.status))) break
      }
      const jobs = await queue.list()
      queue.close()
      expect(violation).toBeUndefined()
      for (const j of jobs) {
        expect(queue.isTerminal(j.status), `${j.id} ended ${j.status}`).toBe(true)
        const sequence = delivered.get(j.id) ?? ''
        expect(sequence, `${j.id}: ${sequence}`).toMatch(ORDER)
      }
    }), { numRuns: 150, seed: 6 })
  }, 60_000)
})
