/** The cases of § Job status: each case's first clause is `job-status.N`. */
import { jobEventMentions, jobEventType } from '../../harness/job-event.ts'
import type { Case } from '../../types.ts'
import { submitCwdJob, deliveredTypes, MAX_DURATION_MS, ORDER, deliveries, requireRunningQueue, submit, terminal, waitForJob, cancelEveryPhaseCase, checkJobRetryDoubling } from '../../harness/case-helpers/index.ts'

export const jobStatusCases: Case[] = [
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
    id: 'jobs-lifecycle-and-webhook-order', title: 'a job runs to succeeded; its webhook gets started, progress, completed in order', section: 'job-status',
    clauses: ['job-status.1', 'jobs-and-queue.2', 'jobs-and-queue.3', 'job-status.2', 'job-status.3', 'job-status.4', 'job-status.8', 'events.23', 'other-shapes.4', 'other-shapes.5', 'what-the-service-does.8', 'authentication.11'],
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
    run: checkJobRetryDoubling,
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
    id: 'jobs-progress-on-assistant-message-cli-secondary', title: 'a cli_secondary job announces its run\'s assistant message with job_progress before job_completed', section: 'job-status',
    clauses: ['job-status.4', 'events.23', 'events.10'], requires: ['cli_secondary', 'queue', 'receiver'],
    async run(ctx) {
      // `hello` is text only ("Hello, " then "world!"): an assistant reply on any engine (events.10), nothing to approve.
      const { id, hook } = await submitCwdJob(ctx, 'cli_secondary', 'scenario:hello', 'codex-job')
      const types = await deliveredTypes(ctx, hook.path, id)
      const job = (await ctx.http('GET', `/jobs/${encodeURIComponent(id)}`)).json?.job
      if (!types.includes('job_completed')) {
        if (job?.status === 'queued') await requireRunningQueue(ctx)
        throw new Error(`timed out after ${ctx.deadlineMs} ms waiting for job_completed; deliveries ${JSON.stringify(types)}, job ${JSON.stringify(job).slice(0, 200)}`)
      }
      // Only a run that answered had an assistant message to announce. Terminal status names are not
      // shown (job-status.1), so the answer is read from the job's result (other-shapes.5).
      if (!JSON.stringify(job ?? null).includes('world!')) throw new Error(`the job's result does not carry the run's answer (status ${job?.status}, ${JSON.stringify(job).slice(0, 300)}), so the case cannot tell that an assistant message came`)
      // job-status.4: an assistant message while running sends job_progress (quieted only by
      // `webhook.progress: 'completion'`, not set here); events.23: progress comes before completed.
      const progress = types.indexOf('job_progress')
      ctx.check('job-status.4', progress >= 0 && progress < types.indexOf('job_completed'), 'a job_progress delivery for the run\'s assistant message, before job_completed', `deliveries: ${JSON.stringify(types)}`)
    },
  },
  cancelEveryPhaseCase('provider'),
  cancelEveryPhaseCase('cli_primary'),
  cancelEveryPhaseCase('cli_secondary'),
]
