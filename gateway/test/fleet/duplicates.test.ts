/**
 * The same
 * execution result POSTed to both processes at once (an outside system retrying through a load
 * balancer), while other jobs claim and complete around it. The deadlock the lock order rules out (the resume's
 * advisory lock held while it waited for the job row, against a completion holding the row and
 * waiting in the transition trigger for the advisory lock) ended processes here; now no process
 * exits, each result is applied exactly once fleet-wide and every other delivery answers
 * `applied: false`, and every applied result is followed by `job_resumed` and `job_completed`.
 */
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { until } from '../harness.ts'
import { useFleet } from './fleet-fixture.ts'
import { startMember, type Member } from './fleet-member.ts'

const SUCCEED = `scenario:${JSON.stringify({ name: 'work', steps: [{ type: 'sleep', ms: 20 }, { type: 'text', text: 'done' }] })}`

describe('duplicate execution results to two gateway processes at once', () => {
  const fleet = useFleet()
  const members = fleet.members

  it('no process exits; one applied: true per execution, the rest applied: false; each applied result resumes and completes its job', async () => {
    const url = await fleet.database()
    const { token } = fleet
    const events = new Map<string, string[]>()
    const answers = new Map<string, Array<{ status: number; applied?: boolean }>>()
    const posts: Array<Promise<void>> = []
    const post = async (m: Member, executionId: string) => {
      const res = await fetch(`${m.url}/executions/${executionId}/result`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'ok', output: { type: 'text', value: 'approved' } }),
      })
      const body = (await res.json()) as { applied?: boolean }
      answers.get(executionId)!.push({ status: res.status, applied: body.applied })
      if (process.env.FLEET_DEBUG) console.error(Date.now() % 100000, executionId.slice(0, 6), m.workerId, res.status, body.applied)
    }
    const webhook = { url: await fleet.receiver<{ type: string; jobId: string; executionId?: string }>((event) => {
      events.set(event.jobId, [...(events.get(event.jobId) ?? []), event.type])
      if (process.env.FLEET_DEBUG) console.error(Date.now() % 100000, event.jobId.slice(0, 6), event.type)
      if (event.type === 'job_parked' && event.executionId && !answers.has(event.executionId)) {
        answers.set(event.executionId, [])
        // The same result to both processes at once, twice each.
        posts.push(Promise.all([...members, ...members].map((m) => post(m, event.executionId!))).then(() => undefined))
      }
    }) }
    const options = (workerId: string) => ({ workerId, maxConcurrency: 3, leaseMs: 5000, token })
    members.push(...await Promise.all([startMember(url, options('d1')), startMember(url, options('d2'))]))

    const submit = async (i: number, prompt: string) => {
      const res = await fetch(`${members[i % 2].url}/jobs`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ session: { prompt }, attempts: 1, webhook }),
      })
      expect(res.status).toBe(201)
      return ((await res.json()) as { job: { id: string } }).job.id
    }
    const ids: string[] = []
    // Parking jobs among ordinary ones, so claims and completions run beside the resumes.
    for (let i = 0; i < 24; i++) ids.push(await submit(i, i % 2 ? 'scenario:deferred' : SUCCEED))

    const db = new pg.Client({ connectionString: url })
    await db.connect()
    try {
      const terminal = async () => Number((await db.query(`SELECT count(*) AS n FROM gateway_jobs WHERE status IN ('succeeded','failed','canceled')`)).rows[0].n)
      await until(terminal, (n) => n === ids.length, 'every job terminal', 60_000)
      await Promise.all(posts)
      for (const m of members) expect(m.child.exitCode, `${m.workerId} exited`).toBeNull()
      expect(answers.size).toBe(12)
      for (const [executionId, got] of answers) {
        expect(got.map((a) => a.status), executionId).toEqual([200, 200, 200, 200])
        expect(got.filter((a) => a.applied).length, executionId).toBe(1)
      }
      const statuses = (await db.query(`SELECT status, count(*)::int AS n FROM gateway_jobs GROUP BY status`)).rows
      expect(statuses).toEqual([{ status: 'succeeded', n: 24 }])
      await until(async () => ids.filter((id) => events.get(id)?.includes('job_completed')).length, (n) => n === 24, 'job_completed delivered')
      for (const id of ids) {
        const got = events.get(id)!
        if (!got.includes('job_parked')) continue
        expect(got.filter((t) => t !== 'job_progress'), id).toEqual(['job_started', 'job_parked', 'job_resumed', 'job_completed'])
      }
    } finally {
      await db.end()
    }
  }, 90_000)
})
