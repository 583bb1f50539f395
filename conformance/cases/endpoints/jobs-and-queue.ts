/** The cases of § Jobs and queue (only when `queue` is configured, else 404): each case's first clause is `jobs-and-queue.N`. */
import type { CaseContext } from '../../harness/context.ts'
import { jobEventJobId, jobEventType } from '../../harness/job-event.ts'
import { Unsupported, type Case } from '../../types.ts'
import { PROTOCOL_VERSION } from '../../../gateway/protocol/index.ts'
import WebSocket from 'ws'
import { requireRunningQueue, submit, NESTING_DEPTHS, deeplyNestedMeta } from '../../harness/case-helpers/index.ts'

export const jobsAndQueueCases: Case[] = [
  {
    id: 'unconfigured-queue-404', title: 'job and queue routes answer 404 without a queue', section: 'jobs-and-queue',
    clauses: ['jobs-and-queue.1', 'jobs-and-queue.5', 'errors.3'], requires: ['absent:queue'],
    async run(ctx) {
      for (const path of ['/jobs', '/queue', '/jobs/some-id']) ctx.errorStatus('errors.3', await ctx.http('GET', path), 404)
    },
  },
  {
    id: 'jobs-queue-ws', title: '/queue/ws sends queue_attached, job events and refreshed stats', section: 'jobs-and-queue',
    clauses: ['jobs-and-queue.6', 'versioning.1', 'job-status.2'], requires: ['provider', 'queue'],
    async run(ctx) {
      const frames: any[] = []
      const ws = new WebSocket(`${ctx.url('/queue/ws').replace(/^http/, 'ws')}`, { headers: { authorization: `Bearer ${ctx.token('operator')}` } })
      ws.on('message', (d) => frames.push(JSON.parse(d.toString())))
      ctx.onCleanup(() => ws.close())
      await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject) })
      const job = await submit(ctx, { session: { prompt: 'hello' } })
      const deadline = Date.now() + ctx.deadlineMs
      // The frame and JobEvent layouts are not shown (jobs-and-queue.6): read through job-event.ts.
      const isMine = (f: any) => f.type === 'job_event' && jobEventJobId(f) === job.id
      // The refreshed stats may follow the last job_event (a target reads them after the event,
      // from its database): both are waited for, within the one deadline.
      const done = () => frames.some((f) => isMine(f) && jobEventType(f) === 'job_completed') && frames.some((f) => f.type === 'queue_stats')
      while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
      ctx.equal('jobs-and-queue.6', frames[0]?.type, 'queue_attached', 'the first frame')
      ctx.equal('versioning.1', frames[0]?.protocolVersion, PROTOCOL_VERSION, 'queue_attached.protocolVersion')
      const mine = frames.filter(isMine).map(jobEventType)
      ctx.check('job-status.2', mine[0] === 'job_submitted' && mine.includes('job_completed'), 'job_submitted first, then the run to job_completed', mine)
      ctx.check('jobs-and-queue.6', frames.some((f) => f.type === 'queue_stats'), 'refreshed queue_stats frames', frames.map((f) => f.type))
    },
  },
  {
    id: 'jobs-bad-requests-400', title: 'malformed job requests are 400; resume and forkSession are unsupported', section: 'jobs-and-queue',
    clauses: ['jobs-and-queue.2', 'other-shapes.4'], requires: ['provider', 'queue'],
    async run(ctx) {
      for (const body of [{}, { session: {} }, { session: { prompt: '' } }, { session: { prompt: 'x', resume: 'abc' } }, { session: { prompt: 'x', forkSession: true } }]) {
        const res = await ctx.http('POST', '/jobs', { body })
        ctx.check('other-shapes.4', res.status === 400, `400 for ${JSON.stringify(body)}`, `HTTP ${res.status}`)
      }
    },
  },
  {
    id: 'jobs-deeply-nested-meta-keeps-job-routes', title: 'a job whose meta nests thousands of levels deep is refused or served: GET /jobs and GET /jobs/:id keep answering', section: 'jobs-and-queue',
    clauses: ['jobs-and-queue.1', 'jobs-and-queue.2', 'jobs-and-queue.3', 'other-shapes.4', 'limits.1'], requires: ['provider', 'queue'],
    async run(ctx: CaseContext) {
      // other-shapes.4: CreateJobRequest carries a free `meta`; limits.1 bounds only the body's
      // bytes, and no clause gives the status of a body nested too deep, so the submission may be
      // refused with any status or accepted. What no answer may do is break the routes after it:
      // GET /jobs still answers JobInfo[] (jobs-and-queue.1) and an accepted job is still readable
      // (jobs-and-queue.3). The deep value comes after a string, so a gateway that measures
      // nesting must not lose count at the first string it meets.
      await requireRunningQueue(ctx)
      const maxBody = ctx.manifest.limits?.maxBodyBytes ?? 1024 * 1024
      const depths = NESTING_DEPTHS.filter((d) => 2 * d + 512 <= maxBody)
      if (!depths.length) throw new Unsupported(`maxBodyBytes ${maxBody} leaves no room for a body nested ${NESTING_DEPTHS[0]} deep`)
      const session = JSON.stringify({ profile: ctx.profile('provider'), ...(ctx.manifest.cwdRoot ? { cwd: ctx.manifest.cwdRoot } : {}), prompt: 'scenario:hello' })
      for (const depth of depths) {
        const raw = `{"session":${session},"meta":${deeplyNestedMeta(depth)}}`
        const submitted = await ctx.http('POST', '/jobs', { raw, headers: { 'content-type': 'application/json' } })
        // Read as text only: a kit that re-serialised an echoed meta would overflow itself.
        const id = submitted.status >= 200 && submitted.status < 300 ? /"id"\s*:\s*"([^"]+)"/.exec(submitted.text)?.[1] : undefined
        if (id) ctx.onCleanup(() => ctx.http('DELETE', `/jobs/${encodeURIComponent(id)}`))
        const list = await ctx.http('GET', '/jobs')
        ctx.check('jobs-and-queue.1', list.status === 200 && Array.isArray(list.json?.jobs), `GET /jobs still answers 200 with its JobInfo list after a job with meta nested ${depth} deep was answered HTTP ${submitted.status}`, `HTTP ${list.status} ${list.text.slice(0, 200)}`)
        if (!id) continue
        const one = await ctx.http('GET', `/jobs/${encodeURIComponent(id)}`)
        ctx.check('jobs-and-queue.3', one.status === 200 && one.json?.job?.id === id, `the accepted job (meta nested ${depth} deep) still readable with GET /jobs/:id`, `HTTP ${one.status} ${one.text.slice(0, 200)}`)
      }
    },
  },
]
