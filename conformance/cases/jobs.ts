/** Cases for the job queue and its webhooks (jobs-and-queue.*, job-status.*, queue-options.*, events.23). */
import WebSocket from 'ws'
import { PROTOCOL_VERSION } from '../../gateway/protocol/index.ts'
import { doublingProblem, exponentialProblem, judgeInRounds, waitsBetween } from '../harness/backoff.ts'
import type { CaseContext } from '../harness/context.ts'
import { jobEventJobId, jobEventMentions, jobEventType } from '../harness/job-event.ts'
import { Unsupported, type Case } from '../types.ts'

/** The base retry delay the retry case asks for: long enough that doubling stands out from jitter. */
const RETRY_BASE_MS = 250
/** The run limit the watchdog case asks for: long enough that a run failed at once is told apart. */
const MAX_DURATION_MS = 300

const ORDER = /^(S(P|KR)*K?Y)*(S(P|KR)*K?)?C$/
const LETTER: Record<string, string> = { job_started: 'S', job_progress: 'P', job_parked: 'K', job_resumed: 'R', job_retrying: 'Y', job_completed: 'C', job_submitted: 'U' }
/** job-status: `queued`, `running`, `parked` are named; terminal value names are not (beyond `canceled`/`failed` in the table). */
const NON_TERMINAL = ['queued', 'running', 'parked']
export const terminal = (j: any) => typeof j?.status === 'string' && !NON_TERMINAL.includes(j.status)

/**
 * A spent daily token budget holds every queued job (queue-options.3): that is conforming, and
 * on a long-lived gateway it happens after enough runs. A case needing a job to run is then
 * `unsupported`, never failed.
 */
export async function requireRunningQueue(ctx: CaseContext): Promise<void> {
  const stats = (await ctx.http('GET', '/queue')).json?.stats
  if (stats?.paused === true) throw new Unsupported('the target\'s queue is paused (its daily token budget is spent until the UTC day rolls over)')
}

export async function submit(ctx: CaseContext, body: Record<string, unknown>, as: 'operator' | 'tenantA' | 'restricted' = 'operator', evenIfPaused = false): Promise<any> {
  if (!evenIfPaused) await requireRunningQueue(ctx)
  const session = { profile: ctx.profile('provider'), ...(body.session as object) }
  const res = await ctx.http('POST', '/jobs', { as, body: { ...body, session } })
  // jobs-and-queue.2 answers JobInfo with no status; protocol 7 answers 201.
  ctx.created('jobs-and-queue.2', res, 201)
  const job = res.json?.job
  ctx.check('jobs-and-queue.2', typeof job?.id === 'string', 'a {job} envelope with an id', res.text.slice(0, 200))
  ctx.onCleanup(() => ctx.http('DELETE', `/jobs/${job.id}`))
  return job
}

export async function waitForJob(ctx: CaseContext, id: string, done: (job: any) => boolean, what: string): Promise<any> {
  const deadline = Date.now() + ctx.deadlineMs
  for (;;) {
    const job = (await ctx.http('GET', `/jobs/${id}`)).json?.job
    if (job && done(job)) return job
    if (Date.now() > deadline) {
      // Held because the budget ran out meanwhile is conforming (queue-options.3), not a timeout.
      if (job?.status === 'queued') await requireRunningQueue(ctx)
      throw new Error(`timed out after ${ctx.deadlineMs} ms waiting for ${what}; job is ${job?.status}`)
    }
    await new Promise((r) => setTimeout(r, 25))
  }
}

async function deliveries(ctx: CaseContext, path: string, until: (types: string) => boolean): Promise<string> {
  const deadline = Date.now() + ctx.deadlineMs
  for (;;) {
    const types = ctx.receiver!.received(path).map((d) => LETTER[jobEventType(d.body) ?? ''] ?? '?').join('')
    if (until(types)) return types
    if (Date.now() > deadline) throw new Error(`timed out waiting for webhook deliveries; got '${types}'`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

export const jobCases: Case[] = [
  {
    id: 'jobs-park-and-resume', title: 'a job waiting on a deferred execution parks (slot freed) and resumes on the result', section: 'job-status',
    clauses: ['job-status.5', 'job-status.6', 'job-status.1', 'events.23', 'other-shapes.5'], requires: ['provider', 'queue', 'parking', 'receiver'],
    async run(ctx) {
      const hook = ctx.receiver!.urlFor(`parked-job-${Math.floor(ctx.random() * 1e9)}`)
      const job = await submit(ctx, { session: { prompt: 'scenario:deferred' }, webhook: { url: hook.url } })
      const parked = await waitForJob(ctx, job.id, (j) => j.status === 'parked', 'parked')
      ctx.check('job-status.5', typeof parked.parkedExecutionId === 'string' && typeof parked.parkedAt === 'number', 'parkedExecutionId and parkedAt on a parked job', parked)
      const stats = (await ctx.http('GET', '/queue')).json?.stats
      ctx.check('job-status.1', stats?.parked >= 1, 'QueueStats counts the parked job', stats)
      const res = await ctx.http('POST', `/executions/${parked.parkedExecutionId}/result`, { body: { status: 'ok', output: { type: 'text', value: 'go on' } } })
      ctx.equal('job-status.6', res.json?.applied, true, 'the result is applied')
      const done = await waitForJob(ctx, job.id, terminal, 'a terminal status')
      ctx.observe(done.status === 'succeeded', `terminal status '${done.status}' after the resumed run (protocol 7: 'succeeded'; job-status.1: terminal value names not shown)`)
      const order = await deliveries(ctx, hook.path, (t) => t.includes('C'))
      ctx.check('events.23', ORDER.test(order) && order.includes('KR'), 'started, progress, parked, resumed, completed', order)
      // job-status.5 says job_parked comes "with the executionId", not under which key.
      const parkedEvent = ctx.receiver!.received(hook.path).find((d) => jobEventType(d.body) === 'job_parked')
      ctx.check('job-status.5', jobEventMentions(parkedEvent?.body, parked.parkedExecutionId), `job_parked carrying the executionId ${parked.parkedExecutionId}`, parkedEvent?.body)
    },
  },
  {
    id: 'jobs-retention-prunes', title: 'a terminal job older than retention.maxAgeMs is pruned', section: 'queue-options',
    clauses: ['job-status.13', 'queue-options.7', 'server-configuration.25'], requires: ['provider', 'queue', 'retention', 'timer:retentionMaxAgeMs'],
    async run(ctx) {
      const submitted = Date.now()
      const job = await submit(ctx, { session: { prompt: 'scenario:hello' } })
      await waitForJob(ctx, job.id, terminal, 'a terminal status')
      const maxAge = Number(ctx.manifest.timers?.retentionMaxAgeMs)
      const deadline = Date.now() + maxAge + ctx.deadlineMs
      let status = 200
      while (Date.now() < deadline && status === 200) {
        status = (await ctx.http('GET', `/jobs/${job.id}`)).status
        if (status === 200) await new Promise((r) => setTimeout(r, 100))
      }
      ctx.equal('job-status.13', status, 404, 'GET of the job after retention.maxAgeMs')
      // Not pruned before maxAgeMs, exactly: the job ended after the kit submitted it, so its first
      // 404 cannot come sooner than maxAgeMs after the submission (the kit's one clock, no slack).
      const gone = Date.now() - submitted
      ctx.check('job-status.13', gone >= maxAge, `pruned no sooner than retention.maxAgeMs (${maxAge} ms) after it ended`, `gone ${gone} ms after it was submitted`)
      const listed = (await ctx.http('GET', '/jobs')).json?.jobs ?? []
      ctx.check('queue-options.7', !listed.some((j: any) => j.id === job.id), 'the pruned job is gone from the list', listed.length)
    },
  },
  {
    id: 'jobs-parked-cap', title: 'a job parked longer than maxParkedDurationMs fails', section: 'queue-options',
    clauses: ['job-status.11', 'queue-options.5'], requires: ['provider', 'queue', 'parking', 'timer:maxParkedDurationMs'],
    async run(ctx) {
      const submitted = Date.now()
      const job = await submit(ctx, { session: { prompt: 'scenario:deferred' } })
      await waitForJob(ctx, job.id, (j) => j.status === 'parked', 'parked')
      const cap = Number(ctx.manifest.timers?.maxParkedDurationMs)
      const deadline = Date.now() + cap + ctx.deadlineMs
      let current: any
      while (Date.now() < deadline) {
        current = (await ctx.http('GET', `/jobs/${job.id}`)).json?.job
        if (current?.status !== 'parked') break
        await new Promise((r) => setTimeout(r, 50))
      }
      ctx.equal('job-status.11', current?.status, 'failed', `status after ${cap} ms parked`)
      // Not failed before the cap, exactly: the job parked after the kit submitted it, so its failure
      // cannot be seen sooner than the cap after the submission (the kit's one clock, no slack).
      const spanned = Date.now() - submitted
      ctx.check('job-status.11', spanned >= cap, `parked maxParkedDurationMs (${cap} ms) before failing`, `failed ${spanned} ms after it was submitted`)
    },
  },
  {
    id: 'jobs-lifecycle-and-webhook-order', title: 'a job runs to succeeded; its webhook gets started, progress, completed in order', section: 'job-status',
    clauses: ['jobs-and-queue.2', 'jobs-and-queue.3', 'job-status.1', 'job-status.2', 'job-status.3', 'job-status.4', 'job-status.8', 'events.23', 'other-shapes.4', 'other-shapes.5', 'what-the-service-does.8', 'authentication.11'],
    requires: ['provider', 'queue', 'receiver'],
    async run(ctx) {
      const hook = ctx.receiver!.urlFor(`lifecycle-${Math.floor(ctx.random() * 1e9)}`)
      const job = await submit(ctx, { session: { prompt: 'scenario:hello' }, webhook: { url: hook.url, headers: { authorization: 'Bearer kit-hook' } } })
      ctx.equal('job-status.2', job.status, 'queued', 'status of an accepted job')
      const done = await waitForJob(ctx, job.id, terminal, 'a terminal status')
      ctx.check('job-status.8', !['failed', 'canceled'].includes(done.status), 'a terminal status other than failed or canceled after a successful first turn', done.status)
      ctx.observe(done.status === 'succeeded', `terminal status '${done.status}' (protocol 7: 'succeeded'; job-status.1: terminal value names not shown)`)
      const order = await deliveries(ctx, hook.path, (t) => t.includes('C'))
      ctx.check('events.23', ORDER.test(order) && order.includes('P'), 'started, progress, completed (no job_submitted on the webhook)', order)
      ctx.check('authentication.11', ctx.receiver!.received(hook.path)[0]?.headers.authorization === 'Bearer kit-hook', 'the configured webhook headers', ctx.receiver!.received(hook.path)[0]?.headers)
      // JobInfo does not state a session id (other-shapes.5): checked only when the target gives one.
      if (typeof done.sessionId === 'string') {
        const res = await ctx.http('GET', `/sessions/${done.sessionId}`)
        ctx.check('job-status.8', res.status === 404 || res.json?.session?.status === 'closed', 'the job session closed (or gone) after completion', res.text.slice(0, 200))
      }
    },
  },
  {
    id: 'jobs-retry-doubling', title: 'a failed run is retried with retryDelayMs doubled each time, then fails', section: 'job-status',
    clauses: ['job-status.7', 'limits.12'], requires: ['provider', 'queue', 'receiver'],
    async run(ctx) {
      // "doubled each retry" is exact: the waits are RETRY_BASE_MS then twice that. The JobEvent
      // layout is not shown: where job_retrying carries `nextRunAt` (a JobInfo field, other-shapes.5)
      // and `ts`, the target's own delays are read; otherwise each wait is measured from a
      // job_retrying to the next job_started at the receiver (backoff.ts: differences of waits,
      // jitter tolerance half the base, up to three jobs so a loaded machine cannot fail it).
      const measure = async (round: number) => {
        const hook = ctx.receiver!.urlFor(`retry-${Math.floor(ctx.random() * 1e9)}`)
        const job = await submit(ctx, { session: { prompt: 'scenario:model-error' }, attempts: 3, retryDelayMs: RETRY_BASE_MS, webhook: { url: hook.url } })
        const done = await waitForJob(ctx, job.id, (j) => j.status === 'failed', 'failed')
        const order = await deliveries(ctx, hook.path, (t) => t.endsWith('C'))
        if (round === 0) {
          if ('attempt' in done) ctx.equal('job-status.7', done.attempt, 3, 'attempts used')
          ctx.equal('job-status.7', order, 'SYSYSC', 'webhook sequence')
        }
        const got = ctx.receiver!.received(hook.path)
        const retrying = got.filter((d) => jobEventType(d.body) === 'job_retrying')
        const stated = retrying.map((d) => (d.body?.event ?? d.body) as any).map((e) => (typeof e?.nextRunAt === 'number' && typeof e?.ts === 'number' ? e.nextRunAt - e.ts : undefined))
        const waits = stated.every((w) => w !== undefined)
          ? stated as number[]
          : retrying.map((d) => (got.find((n) => n.at >= d.at && n !== d && jobEventType(n.body) === 'job_started')?.at ?? Infinity) - d.at)
        ctx.check('job-status.7', waits.length === 2, 'two retries', waits)
        return waits
      }
      const problem = await judgeInRounds(3, measure, (waits) => doublingProblem(waits, RETRY_BASE_MS))
      ctx.check('job-status.7', problem === undefined, `retry waits of ${RETRY_BASE_MS} then ${2 * RETRY_BASE_MS} ms (retryDelayMs doubled each retry)`, problem)
    },
  },
  {
    id: 'jobs-webhook-retries-keep-order', title: 'a receiver answering 500 twice still gets every event once, in order', section: 'queue-options',
    clauses: ['queue-options.9', 'queue-options.10', 'limits.13', 'events.23'], requires: ['provider', 'queue', 'receiver'],
    async run(ctx) {
      const hook = ctx.receiver!.urlFor(`flaky-receiver-${Math.floor(ctx.random() * 1e9)}`)
      ctx.receiver!.answerNext(hook.path, [500, 500])
      const job = await submit(ctx, { session: { prompt: 'scenario:hello' }, webhook: { url: hook.url } })
      await waitForJob(ctx, job.id, terminal, 'a terminal status')
      const order = await deliveries(ctx, hook.path, (t) => t.includes('C'))
      ctx.check('events.23', ORDER.test(order), 'each event once, in order, despite two 500s', order)
      const attempts = ctx.receiver!.deliveries.filter((d) => d.path === hook.path)
      ctx.check('queue-options.9', attempts.length === order.length + 2, 'the first event retried twice', attempts.map((d) => d.status))
      // Exponential backoff from the base webhookRetryDelayMs (queue-options.9-10, limits.13): the
      // first retry waits the base and the second longer by at least half the base (backoff.ts);
      // a constant delay fails. Only with the base in the manifest, and one long enough to tell
      // from jitter.
      const base = ctx.manifest.timers?.webhookRetryDelayMs
      if (typeof base === 'number' && base >= 20) {
        // Up to three jobs (backoff.ts, judgeInRounds): the first is the one above.
        const measure = async (round: number) => {
          if (round === 0) return waitsBetween(attempts.slice(0, 3).map((d) => d.at))
          const again = ctx.receiver!.urlFor(`flaky-receiver-${Math.floor(ctx.random() * 1e9)}`)
          ctx.receiver!.answerNext(again.path, [500, 500])
          const next = await submit(ctx, { session: { prompt: 'scenario:hello' }, webhook: { url: again.url } })
          await waitForJob(ctx, next.id, terminal, 'a terminal status')
          await deliveries(ctx, again.path, (t) => t.includes('C'))
          return waitsBetween(ctx.receiver!.deliveries.filter((d) => d.path === again.path).slice(0, 3).map((d) => d.at))
        }
        const problem = await judgeInRounds(3, measure, (waits) => exponentialProblem(waits, base))
        ctx.check('limits.13', problem === undefined, `retry waits growing exponentially from the base ${base} ms`, problem)
      }
    },
  },
  {
    id: 'jobs-progress-completion-only', title: "webhook.progress 'completion' quiets job_progress deliveries", section: 'job-status',
    clauses: ['job-status.4', 'other-shapes.4'], requires: ['provider', 'queue', 'receiver'],
    async run(ctx) {
      const hook = ctx.receiver!.urlFor(`quiet-${Math.floor(ctx.random() * 1e9)}`)
      const job = await submit(ctx, { session: { prompt: 'scenario:hello' }, webhook: { url: hook.url, progress: 'completion' } })
      await waitForJob(ctx, job.id, terminal, 'a terminal status')
      ctx.equal('job-status.4', await deliveries(ctx, hook.path, (t) => t.includes('C')), 'SC', 'webhook sequence without progress')
    },
  },
  {
    id: 'jobs-token-limit-fails-run', title: 'a run over maxTokens is interrupted and failed', section: 'job-status',
    clauses: ['job-status.9', 'queue-options.2', 'limits.16'], requires: ['provider', 'queue'],
    async run(ctx) {
      const job = await submit(ctx, { session: { prompt: 'scenario:usage-heavy' }, maxTokens: 100 })
      const done = await waitForJob(ctx, job.id, terminal, 'a terminal status')
      ctx.equal('job-status.9', done.status, 'failed', 'status after exceeding maxTokens')
    },
  },
  {
    id: 'jobs-duration-watchdog', title: 'a run over maxDurationMs is interrupted and force-finalized', section: 'job-status',
    clauses: ['job-status.10', 'queue-options.4', 'queue-options.6', 'limits.11'], requires: ['provider', 'queue'],
    async run(ctx) {
      const submitted = Date.now()
      const job = await submit(ctx, { session: { prompt: 'scenario:hang' }, maxDurationMs: MAX_DURATION_MS })
      const done = await waitForJob(ctx, job.id, terminal, 'a terminal status')
      ctx.equal('job-status.10', done.status, 'failed', 'status after the watchdog')
      // Not before maxDurationMs, exactly: the run started after the submission (the kit's one clock).
      const spanned = Date.now() - submitted
      ctx.check('job-status.10', spanned >= MAX_DURATION_MS, `failed no sooner than maxDurationMs (${MAX_DURATION_MS} ms) into the run`, `failed ${spanned} ms after it was submitted`)
    },
  },
  {
    id: 'jobs-cancel', title: 'DELETE /jobs/:id cancels a running job; a terminal job stays as it is', section: 'job-status',
    clauses: ['job-status.12', 'jobs-and-queue.4'], requires: ['provider', 'queue'],
    async run(ctx) {
      const job = await submit(ctx, { session: { prompt: 'scenario:hang' } })
      await waitForJob(ctx, job.id, (j) => j.status === 'running', 'running')
      const canceled = await ctx.http('DELETE', `/jobs/${job.id}`)
      // jobs-and-queue.4: "cancels", no status or body given: the job is read back.
      ctx.check('jobs-and-queue.4', canceled.status >= 200 && canceled.status < 300, 'a 2xx', `HTTP ${canceled.status}`)
      ctx.equal('job-status.12', (await ctx.http('GET', `/jobs/${job.id}`)).json?.job?.status, 'canceled', 'status after DELETE')
      await ctx.http('DELETE', `/jobs/${job.id}`)
      ctx.equal('job-status.12', (await ctx.http('GET', `/jobs/${job.id}`)).json?.job?.status, 'canceled', 'a second DELETE leaves it canceled')
    },
  },
  {
    id: 'jobs-concurrency-and-queued-cancel', title: 'running never exceeds maxConcurrency; a queued job cancels', section: 'queue-options',
    clauses: ['queue-options.1', 'limits.10', 'job-status.3', 'job-status.12', 'jobs-and-queue.5'], requires: ['provider', 'queue'], isolation: 'global',
    async run(ctx) {
      // The bound is the target's configured maxConcurrency (default 1, limits.10), which only the
      // manifest can tell (or QueueStats, where the target states it; not a stated field):
      // assuming the default of a gateway configured otherwise would fail a correct target, so
      // without either the case does not run (README, `queue.maxConcurrency`).
      const first = (await ctx.http('GET', '/queue')).json?.stats
      const max = ctx.manifest.queue?.maxConcurrency ?? (Number.isInteger(first?.maxConcurrency) ? first.maxConcurrency as number : undefined)
      if (max === undefined) throw new Unsupported('the manifest gives no queue.maxConcurrency (the target\'s configured value; write 1 for the default) and QueueStats states none')
      const quick: any[] = []
      for (let i = 0; i < 50; i++) quick.push(await submit(ctx, { session: { prompt: `job ${i}` } }))
      let peak = 0
      const deadline = Date.now() + ctx.deadlineMs
      // QueueStats states `running` (job-status.1), not a queued count: without one, the jobs are read.
      const drained = async (stats: any) => stats.running === 0 && (typeof stats.queued === 'number'
        ? stats.queued === 0
        : ((await ctx.http('GET', '/jobs')).json?.jobs ?? []).filter((j: any) => quick.some((q) => q.id === j.id)).every(terminal))
      for (;;) {
        const stats = (await ctx.http('GET', '/queue')).json?.stats
        peak = Math.max(peak, stats.running)
        if ((await drained(stats)) || Date.now() > deadline) break
        await new Promise((r) => setTimeout(r, 5))
      }
      ctx.check('queue-options.1', peak <= max, `running ≤ ${max} under 50 submitted jobs`, `peak ${peak}`)
      const jobs = []
      for (let i = 0; i < max + 1; i++) jobs.push(await submit(ctx, { session: { prompt: 'scenario:hang' } }))
      ctx.status('jobs-and-queue.5', await ctx.http('GET', '/queue'), 200)
      const queued = (await ctx.http('GET', `/jobs/${jobs[jobs.length - 1].id}`)).json.job
      ctx.equal('job-status.3', queued.status, 'queued', 'a job beyond the free slots')
      await ctx.http('DELETE', `/jobs/${queued.id}`)
      ctx.equal('job-status.12', (await ctx.http('GET', `/jobs/${queued.id}`)).json?.job?.status, 'canceled', 'a canceled queued job')
      for (const j of jobs) await ctx.http('DELETE', `/jobs/${j.id}`)
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
    id: 'jobs-scope-and-profiles', title: 'jobs are scoped like sessions; scoped principals are refused /queue; allowedProfiles applies', section: 'authentication',
    clauses: ['authentication.4', 'authentication.5', 'jobs-and-queue.1', 'jobs-and-queue.3', 'principal.2'], requires: ['provider', 'queue', 'principal:tenantA', 'principal:tenantB', 'principal:restricted'],
    async run(ctx) {
      const mine = await submit(ctx, { session: { prompt: 'hello' } }, 'tenantA')
      ctx.status('jobs-and-queue.3', await ctx.http('GET', `/jobs/${mine.id}`, { as: 'tenantA' }), 200)
      ctx.status('authentication.3', await ctx.http('GET', `/jobs/${mine.id}`, { as: 'tenantB' }), 404)
      const listB = (await ctx.http('GET', '/jobs', { as: 'tenantB' })).json?.jobs ?? []
      ctx.check('jobs-and-queue.1', !listB.some((j: any) => j.id === mine.id), 'no job of another scope listed', listB.length)
      ctx.check('authentication.4', (await ctx.http('GET', '/queue', { as: 'tenantA' })).status >= 400, '/queue refused to a scoped principal', 'allowed')
      const hidden = ctx.manifest.profiles.providerAlt
      if (hidden) ctx.errorStatus('authentication.5', await ctx.http('POST', '/jobs', { as: 'restricted', body: { session: { profile: hidden, prompt: 'x' } } }), 403)
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
    // Spends the target's daily budget, which nothing can restore until the UTC day rolls over: it
    // runs only when the manifest says the kit may (spendDailyBudget; the self target is a scratch
    // gateway), so the kit can run any number of times against one long-lived gateway.
    id: 'jobs-daily-budget-pauses-queue', title: 'once the daily token budget is spent, queued jobs are held and stats say paused', section: 'queue-options',
    clauses: ['queue-options.3', 'limits.15', 'job-status.3'], requires: ['provider', 'queue', 'spendDailyBudget'], isolation: 'global',
    async run(ctx) {
      const limit = ctx.manifest.queue?.dailyTokenLimit
      if (!limit) throw new Unsupported('the manifest gives no queue.dailyTokenLimit')
      for (let i = 0; i < 20; i++) {
        const stats = (await ctx.http('GET', '/queue')).json.stats
        if (stats.paused) break
        const job = await submit(ctx, { session: { prompt: 'scenario:usage-heavy' } })
        await waitForJob(ctx, job.id, terminal, 'a terminal status')
      }
      const stats = (await ctx.http('GET', '/queue')).json.stats
      ctx.check('queue-options.3', stats.paused === true, 'QueueStats paused: true once the daily budget is spent', stats)
      const held = await submit(ctx, { session: { prompt: 'hello' } }, 'operator', true)
      await new Promise((r) => setTimeout(r, 100))
      ctx.equal('job-status.3', (await ctx.http('GET', `/jobs/${held.id}`)).json.job.status, 'queued', 'a job submitted after the budget is spent')
    },
  },
]
