/**
 * `/queue/ws` across a fleet (job-status.2): a socket on any process streams every job's events,
 * whichever process took the submission and whichever ran it: `job_submitted` first, the run to
 * `job_completed`, each job's numbered events in `seq` order, once each, and the same stream on
 * every process.
 */
import WebSocket from 'ws'
import { describe, expect, it } from 'vitest'
import { until } from '../harness.ts'
import { useFleet } from './fleet-fixture.ts'
import { startMember, type Member } from './fleet-member.ts'

type Frame = { type: string; event?: { jobId: string; type: string; seq?: number } }

function watch(m: Member, token: string): Promise<{ events: Array<NonNullable<Frame['event']>>; close: () => void }> {
  const events: Array<NonNullable<Frame['event']>> = []
  const ws = new WebSocket(`${m.url.replace(/^http/, 'ws')}/queue/ws`, { headers: { authorization: `Bearer ${token}` } })
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data)) as Frame
    if (frame.type === 'job_event' && frame.event) events.push({ jobId: frame.event.jobId, type: frame.event.type, ...(frame.event.seq !== undefined ? { seq: frame.event.seq } : {}) })
  })
  return new Promise((resolve, reject) => {
    ws.on('message', function attached(data) {
      if ((JSON.parse(String(data)) as Frame).type !== 'queue_attached') return
      ws.off('message', attached)
      resolve({ events, close: () => ws.terminate() })
    })
    ws.on('error', reject)
  })
}

describe('/queue/ws on a fleet', () => {
  const fleet = useFleet()

  it('streams every job\'s events on every process, in order per job, once each', async () => {
    const url = await fleet.database()
    const { token, members } = fleet
    members.push(...await Promise.all(['q1', 'q2', 'q3'].map((workerId) => startMember(url, { workerId, maxConcurrency: 2, leaseMs: 30_000, token }))))
    const sockets = await Promise.all(members.map((m) => watch(m, token)))
    try {
      const ids: string[] = []
      for (const [i, m] of members.entries()) {
        const res = await fetch(`${m.url}/jobs`, {
          method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ session: { prompt: `hello ${i}` } }),
        })
        expect(res.status).toBe(201)
        ids.push(((await res.json()) as { job: { id: string } }).job.id)
      }
      const ofJob = (s: (typeof sockets)[number], id: string) => s.events.filter((e) => e.jobId === id)
      for (const s of sockets) {
        for (const id of ids) await until(async () => ofJob(s, id), (list) => list.some((e) => e.type === 'job_completed'), `job ${id} completed on every socket`)
      }
      for (const id of ids) {
        const streams = sockets.map((s) => ofJob(s, id))
        for (const stream of streams) {
          expect(stream[0]?.type).toBe('job_submitted')
          expect(stream.at(-1)?.type).toBe('job_completed')
          expect(stream.map((e) => e.type)).toContain('job_started')
          const seqs = stream.flatMap((e) => (e.seq === undefined ? [] : [e.seq]))
          expect(seqs).toEqual([...seqs].sort((a, b) => a - b))
          expect(new Set(seqs).size).toBe(seqs.length)
        }
        // The same stream wherever it is read.
        expect(streams[1]).toEqual(streams[0])
        expect(streams[2]).toEqual(streams[0])
      }
    } finally {
      for (const s of sockets) s.close()
    }
  })
})
