/**
 * Explore commands for what a manifest may offer beyond sessions: deferred execution results
 * (first, duplicate, late after delete), queue jobs (submit to a terminal status, cancel, one
 * more than the slots at once) and the retry timing of jobs and notifications.
 */
import { NON_TERMINAL } from '../harness/case-helpers/job-webhooks.ts'
import { checkJobRetryDoubling, checkNotificationBackoff } from '../harness/case-helpers/retry-timing.ts'
import { Unsupported } from '../types.ts'
import { command, onSession } from './command.ts'
import { alive } from './model.ts'
import { eventAfter, playTurn, type World } from './world.ts'

const RESULT = { status: 'ok', output: { type: 'text', value: 'explore' } }

/**
 * session-status-values.3: a deferred execution's result delivered once continues the turn; the
 * same result again answers `applied: false`. After the session is deleted, a late result cannot
 * wake it (never `applied: true`).
 */
export function deferredResult(pick: number, late: boolean) {
  return onSession(pick, (i) => `deferred result(s${i}${late ? ', again after delete' : ''})`, (m, i) => alive(m, i) && m.sessions[i].role === 'provider', async (m, w, index) => {
    const h = w.handle(index)
    let executionId = ''
    const post = () => w.ctx.http('POST', `/executions/${encodeURIComponent(executionId)}/result`, { as: h.owner, body: RESULT })
    await playTurn(w, h, 'scenario:deferred', async (from) => {
      const dispatched = await eventAfter(h.recorder, from, w.deadlineMs, 'execution_dispatched', (e) => e.type === 'execution_dispatched')
      executionId = dispatched.executionId
      const first = await post()
      w.ctx.check('session-status-values.3', first.status >= 200 && first.status < 300, 'a 2xx for the first delivery', `HTTP ${first.status} ${first.text.slice(0, 200)}`)
    })
    m.sessions[index].firstPrompt ??= 'scenario:deferred'
    const duplicate = await post()
    w.ctx.check('session-status-values.3', duplicate.json?.applied !== true, 'a duplicate delivery not applied', `HTTP ${duplicate.status} ${duplicate.text.slice(0, 200)}`)
    if (!late) return
    w.ctx.check('sessions.5', (await w.ctx.http('DELETE', `/sessions/${h.id}`, { as: h.owner })).status < 300, 'a 2xx delete', 'refused')
    await h.recorder.waitForEvent('session_closed', w.deadlineMs)
    m.sessions[index].deleted = true
    const afterDelete = await post()
    w.ctx.check('session-status-values.5', afterDelete.json?.applied !== true, 'a late result for a deleted session not applied', `HTTP ${afterDelete.status} ${afterDelete.text.slice(0, 200)}`)
  })
}

async function waitJob(w: World, id: string, done: (job: any) => boolean, what: string): Promise<any> {
  const deadline = Date.now() + w.deadlineMs
  for (;;) {
    const job = (await w.ctx.http('GET', `/jobs/${id}`)).json?.job
    if (job && done(job)) return job
    if (Date.now() > deadline) throw new Error(`timed out after ${w.deadlineMs} ms waiting for ${what}; job is ${job?.status}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

/** The queue holds jobs while its daily budget is spent (queue-options.3): a job that must run is then no check. */
async function queuePaused(w: World): Promise<boolean> {
  return (await w.ctx.http('GET', '/queue')).json?.stats?.paused === true
}

/** job-status.8 and the DELETE row: a job on scenario:hello ends in a terminal status other than failed; a canceled one ends terminal. */
export function job(kind: 'complete' | 'cancel') {
  return command(`job(${kind})`, () => true, async (_m, w) => {
    if (await queuePaused(w)) return
    const prompt = kind === 'complete' ? 'scenario:hello' : 'scenario:hang'
    const res = await w.ctx.http('POST', '/jobs', { body: { session: { profile: w.ctx.profile('provider'), prompt } } })
    w.ctx.created('jobs-and-queue.2', res, 201)
    const id = res.json?.job?.id
    w.ctx.check('jobs-and-queue.2', typeof id === 'string', 'a {job} envelope with an id', res.text.slice(0, 200))
    w.ctx.onCleanup(() => w.ctx.http('DELETE', `/jobs/${id}`))
    const terminal = (j: any) => typeof j?.status === 'string' && !NON_TERMINAL.includes(j.status)
    if (kind === 'cancel') {
      await waitJob(w, id, (j) => j.status === 'running' || terminal(j), 'the job running')
      w.ctx.check('job-status.12', (await w.ctx.http('DELETE', `/jobs/${id}`)).status < 300, 'a 2xx cancel', 'refused')
      await waitJob(w, id, terminal, 'a terminal status after the cancel')
      return
    }
    const done = await waitJob(w, id, terminal, 'a terminal status')
    w.ctx.check('job-status.8', !['failed', 'canceled'].includes(done.status), 'a terminal status other than failed or canceled after a successful first turn', done.status)
  })
}

/** The target's maxConcurrency: the manifest's, else the one QueueStats states (not a stated field). */
function maxConcurrencyOf(w: World, stats: any): number | undefined {
  const stated = w.ctx.manifest.queue?.maxConcurrency ?? stats?.maxConcurrency
  return Number.isInteger(stated) ? stated : undefined
}

/**
 * queue-options.1, limits.10: one job more than the slots, submitted at once, never runs more than
 * maxConcurrency; the one beyond waits queued (job-status.3). Only from an idle queue, so no other
 * client's job blurs the count, and only for a small bound (each job hangs until it is canceled).
 */
export function jobBurst() {
  return command('job(burst)', () => true, async (_m, w) => {
    if (await queuePaused(w)) return
    const idle = (await w.ctx.http('GET', '/queue')).json?.stats
    const max = maxConcurrencyOf(w, idle)
    if (max === undefined || max > 4 || idle?.running !== 0) return
    const ids: string[] = []
    for (let i = 0; i <= max; i++) {
      const res = await w.ctx.http('POST', '/jobs', { body: { session: { profile: w.ctx.profile('provider'), prompt: 'scenario:hang' } } })
      w.ctx.created('jobs-and-queue.2', res, 201)
      const id = res.json?.job?.id
      if (typeof id !== 'string') continue
      ids.push(id)
      w.ctx.onCleanup(() => w.ctx.http('DELETE', `/jobs/${id}`))
    }
    // Every slot taken (or the deadline), then each job read: a queue that fills one slot too many has by now.
    const deadline = Date.now() + w.deadlineMs
    while (((await w.ctx.http('GET', '/queue')).json?.stats?.running ?? 0) < max && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25))
    const statuses: string[] = []
    for (const id of ids) statuses.push((await w.ctx.http('GET', `/jobs/${id}`)).json?.job?.status)
    const running = statuses.filter((s) => s === 'running').length
    w.ctx.check('queue-options.1', running <= max, `at most ${max} of ${ids.length} jobs submitted at once running`, `${running} running: ${statuses.join(', ')}`)
    const terminal = (j: any) => typeof j?.status === 'string' && !NON_TERMINAL.includes(j.status)
    for (const id of ids) {
      await w.ctx.http('DELETE', `/jobs/${id}`)
      await waitJob(w, id, terminal, 'a terminal status after the cancel')
    }
  })
}

/**
 * The retry-timing rules, judged as their cases judge them (retry-timing.ts): a job failing every
 * run is retried after retryDelayMs doubled each time (job-status.7); a notification answered 500
 * twice backs off exponentially from its retry delay (events.24, limits.14). Long commands (a few
 * timed rounds each), drawn rarely.
 */
export function retryTiming(kind: 'job' | 'notification') {
  return command(`retry timing(${kind})`, () => true, async (_m, w) => {
    if (kind === 'job') {
      if (await queuePaused(w)) return
      return checkJobRetryDoubling(w.ctx)
    }
    try {
      await checkNotificationBackoff(w.ctx)
    } catch (err) {
      // A target configured with fewer attempts than the default has nothing to judge here.
      if (!(err instanceof Unsupported)) throw err
    }
  })
}
