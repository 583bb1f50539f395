/**
 * The fleet run's submissions: every job of the mix (fleet-jobs.ts) POSTed to /jobs, 8 at a
 * time, round-robin through the live processes. A refused submission ends the run.
 */
import { jobBody, unansweredKind } from './fleet-jobs.ts'
import type { Member } from './fleet-member.ts'

export interface Submission {
  jobs: number
  token: string
  /** The webhook receiver's URL, every job's webhook. */
  hook: string
  timers?: boolean
}

/** The submitted job ids; the jobs nobody answers (timers) are added to `unanswered`. */
export async function submitJobs(members: Member[], submission: Submission, unanswered: Map<string, 'deadline' | 'cap'>): Promise<string[]> {
  const { jobs, token, hook, timers } = submission
  const ids: string[] = []
  let next = 0
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < jobs) {
      const i = next++
      const member = members.filter((m) => m.alive)[i % members.filter((m) => m.alive).length]
      const res = await fetch(`${member.url}/jobs`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(jobBody(i, hook, timers)),
      })
      if (res.status !== 201) throw new Error(`submit through ${member.workerId}: ${res.status} ${await res.text()}`)
      const id = ((await res.json()) as { job: { id: string } }).job.id
      ids.push(id)
      const kind = unansweredKind(i, timers)
      if (kind) unanswered.set(id, kind)
    }
  }))
  return ids
}
