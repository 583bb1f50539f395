/**
 * Per-job webhook order and completeness across processes (events.23): a
 * process SIGKILLed right after it claimed a job (the claim committed, nothing after it ran), and
 * a process SIGKILLed right after it claimed the delivery of a job's job_completed. Each job's
 * webhooks still arrive whole and in order (checkJobStream), from the processes alive after.
 * Lease 1 s, webhook timeout 1 s (a delivery claim lasts 6 s).
 */
import { describe, expect, it } from 'vitest'
import { until } from '../harness.ts'
import type { FleetGatewayOptions } from './fleet-gateway.ts'
import { useFleet } from './fleet-fixture.ts'
import { startMember, type Member } from './fleet-member.ts'
import { checkJobStream, type ReceivedEvent } from './webhook-stream.ts'

const work = (name: string) => `scenario:${JSON.stringify({ name, steps: [{ type: 'text', text: 'done' }, { type: 'usage', input: 3, output: 2 }] })}`

describe('per-job webhook order across processes', () => {
  const fleet = useFleet()
  const members = fleet.members

  it('holds across a SIGKILL right after a job claim and one right after a delivery claim: no event lost, none out of order', async () => {
    const url = await fleet.database()
    const { token } = fleet
    const received = new Map<string, ReceivedEvent[]>()
    const hook = await fleet.receiver<{ jobId: string; type: string; seq?: number; job: { attempt: number; error?: string } }>((event) => {
      received.set(event.jobId, [...received.get(event.jobId) ?? [], { type: event.type, seq: event.seq, attempt: event.job.attempt, ...(event.job.error !== undefined ? { error: event.job.error } : {}) }])
    })
    const options = (workerId: string, extra: Partial<FleetGatewayOptions> = {}): FleetGatewayOptions => ({ workerId, maxConcurrency: 2, leaseMs: 1000, token, webhookTimeoutMs: 1000, ...extra })
    const submit = async (member: Member, prompt: string) => {
      const res = await fetch(`${member.url}/jobs`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ session: { prompt }, attempts: 2, retryDelayMs: 100, webhook: { url: hook } }),
      })
      expect(res.status).toBe(201)
      return ((await res.json()) as { job: { id: string } }).job.id
    }
    const exited = (m: Member) => new Promise<void>((r) => (m.child.exitCode !== null || m.child.signalCode !== null ? r() : m.child.once('exit', () => r())))

    // 1. The only process claims the job and dies at once: the claim's job_started is recorded.
    const claimer = await startMember(url, options('claimer', { dieAfterClaim: 'kill-after-claim' }))
    members.push(claimer)
    const first = await submit(claimer, work('kill-after-claim'))
    await exited(claimer)
    expect(claimer.child.signalCode).toBe('SIGKILL')

    // 2. A second process reclaims it (worker lost, retried) and runs attempt 2; it dies right
    // after claiming the delivery of the second job's job_completed, which a third then delivers.
    const runner = await startMember(url, options('runner', { dieAfterDeliveryClaim: { prompt: 'kill-after-delivery-claim', type: 'job_completed' } }))
    members.push(runner)
    const second = await submit(runner, work('kill-after-delivery-claim'))
    await exited(runner)
    expect(runner.child.signalCode).toBe('SIGKILL')
    const survivor = await startMember(url, options('survivor'))
    members.push(survivor)

    const streams = await until(async () => [first, second].map((id) => checkJobStream(id, received.get(id) ?? [])), (checks) => checks.every((c) => c.complete), 'both jobs\' job_completed webhooks', 30_000)
    for (const check of streams) expect(check.violations).toEqual([])
    // The first job: attempt 1's job_started (its claimer died right after the claim), the
    // reclaimer's job_retrying, then attempt 2 whole.
    expect(streams[0].letters).toMatch(/^SYSP*C$/)
    // The second job: its whole stream, job_completed delivered by the survivor after the dead claim lapsed.
    expect(streams[1].letters).toMatch(/^SP*C$/)
    expect(survivor.child.exitCode).toBeNull()
  }, 90_000)
})
