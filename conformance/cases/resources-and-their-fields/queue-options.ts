/** The cases of § Queue options: each case's first clause is `queue-options.N`. */
import { exponentialProblem, judgeRetryWaits, waitsBetween } from '../../harness/backoff.ts'
import { jobEventType } from '../../harness/job-event.ts'
import { Unsupported, type Case } from '../../types.ts'
import { NON_TERMINAL, RETRY_DELAY_MS, post, until, ORDER, deliveries, requireRunningQueue, submit, terminal, waitForJob, afterParkedCap } from '../../harness/case-helpers/index.ts'

export const queueOptionsCases: Case[] = [
  {
    id: 'jobs-retention-prunes', title: 'a terminal job older than retention.maxAgeMs is pruned', section: 'queue-options',
    clauses: ['queue-options.7', 'job-status.13', 'server-configuration.25'], requires: ['provider', 'queue', 'retention', 'timer:retentionMaxAgeMs'],
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
    clauses: ['queue-options.5', 'job-status.11'], requires: ['provider', 'queue', 'parking', 'timer:maxParkedDurationMs'],
    async run(ctx) {
      const submitted = Date.now()
      const job = await submit(ctx, { session: { prompt: 'scenario:deferred' } })
      await waitForJob(ctx, job.id, (j) => j.status === 'parked', 'parked')
      const { job: current, cap } = await afterParkedCap(ctx, job.id)
      ctx.equal('job-status.11', current?.status, 'failed', `status after ${cap} ms parked`)
      // Not failed before the cap, exactly: the job parked after the kit submitted it, so its failure
      // cannot be seen sooner than the cap after the submission (the kit's one clock, no slack).
      const spanned = Date.now() - submitted
      ctx.check('job-status.11', spanned >= cap, `parked maxParkedDurationMs (${cap} ms) before failing`, `failed ${spanned} ms after it was submitted`)
    },
  },
  {
    id: 'jobs-parked-cap-counts-every-park', title: 'maxParkedDurationMs caps the total parked time of a run: a job that parks a second time is not failed before the cap', section: 'queue-options',
    clauses: ['queue-options.5', 'job-status.11', 'job-status.5', 'job-status.6'], requires: ['provider', 'queue', 'parking', 'timer:maxParkedDurationMs'],
    async run(ctx) {
      const submitted = Date.now()
      const twice = { name: 'deferred-twice', steps: [{ type: 'deferred', name: 'deferred_task', input: { task: 'first' } }, { type: 'deferred', name: 'deferred_task', input: { task: 'second' } }, { type: 'text', text: 'done: {{toolResult}}' }] }
      const job = await submit(ctx, { session: { prompt: `scenario:${JSON.stringify(twice)}` } })
      const first = await waitForJob(ctx, job.id, (j) => j.status === 'parked', 'the first park')
      const res = await ctx.http('POST', `/executions/${first.parkedExecutionId}/result`, { body: { status: 'ok', output: { type: 'text', value: 'go on' } } })
      ctx.equal('job-status.6', res.json?.applied, true, 'the first result is applied')
      await waitForJob(ctx, job.id, (j) => j.status === 'parked' && j.parkedExecutionId !== first.parkedExecutionId, 'the second park')
      const { job: current, cap } = await afterParkedCap(ctx, job.id)
      ctx.equal('job-status.11', current?.status, 'failed', `status once the two parks passed ${cap} ms together`)
      // The run's parked time is at most the time since the kit submitted it, so a failure sooner than
      // the cap after the submission failed a run parked for less than the cap (queue-options.5).
      const spanned = Date.now() - submitted
      ctx.check('queue-options.5', spanned >= cap, `parked maxParkedDurationMs (${cap} ms) in total before failing`, `failed ${spanned} ms after it was submitted, on its second park`)
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
        // Several jobs (backoff.ts, judgeRetryWaits): the first is the one above.
        const measure = async (round: number) => {
          if (round === 0) return waitsBetween(attempts.slice(0, 3).map((d) => d.at))
          const again = ctx.receiver!.urlFor(`flaky-receiver-${Math.floor(ctx.random() * 1e9)}`)
          ctx.receiver!.answerNext(again.path, [500, 500])
          const next = await submit(ctx, { session: { prompt: 'scenario:hello' }, webhook: { url: again.url } })
          await waitForJob(ctx, next.id, terminal, 'a terminal status')
          await deliveries(ctx, again.path, (t) => t.includes('C'))
          return waitsBetween(ctx.receiver!.deliveries.filter((d) => d.path === again.path).slice(0, 3).map((d) => d.at))
        }
        const problem = await judgeRetryWaits(base, measure, (waits) => exponentialProblem(waits, base))
        ctx.check('limits.13', problem === undefined, `retry waits growing exponentially from the base ${base} ms`, problem)
      }
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
  {
    id: 'jobs-retry-delay-holds-while-another-job-runs', title: 'a job waiting out its retry delay is not claimed early when another job is submitted and runs meanwhile', section: 'queue-options',
    clauses: ['queue-options.12', 'job-status.7', 'job-status.3'], requires: ['provider', 'queue', 'receiver'], isolation: 'global',
    async run(ctx) {
      // job-status.7: a failed run with attempts left is queued again with delay retryDelayMs;
      // queue-options.12: claimNext skips queued jobs whose nextRunAt is in the future, and
      // job-status.3 claims only when nextRunAt is not in the future. Another job submitted during
      // the delay triggers a claim: it must take that job, not the one still waiting. Run alone
      // (global), so no other case's jobs stretch the wait past the delay.
      await requireRunningQueue(ctx)
      const hook = ctx.receiver!.urlFor(`retry-hold-${Math.floor(ctx.random() * 1e9)}`)
      const a = await post(ctx, { session: { prompt: 'scenario:model-error' }, attempts: 2, retryDelayMs: RETRY_DELAY_MS, webhook: { url: hook.url } })
      await until(ctx, () => ctx.receiver!.received(hook.path).some((d) => jobEventType(d.body) === 'job_retrying'), 'job_retrying of the failing job')
      const retryingAt = ctx.receiver!.received(hook.path).find((d) => jobEventType(d.body) === 'job_retrying')!.at
      const b = await post(ctx, { session: { prompt: 'scenario:hello' } })
      await until(ctx, async () => !NON_TERMINAL.includes((await ctx.http('GET', `/jobs/${b.id}`)).json?.job?.status), 'the second job to finish')
      const seen = (await ctx.http('GET', `/jobs/${a.id}`)).json?.job
      // Judged only while the delay has certainly not run out (the target's clock is not ours).
      if (Date.now() - retryingAt > RETRY_DELAY_MS * 0.8) throw new Unsupported(`the second job took ${Date.now() - retryingAt} ms, too close to the ${RETRY_DELAY_MS} ms retry delay to judge`)
      ctx.check('queue-options.12', seen?.status === 'queued', `the retrying job still queued while its ${RETRY_DELAY_MS} ms delay runs, after another job was claimed and finished`, seen)
    },
  },
]
