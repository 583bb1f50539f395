/**
 * Case helpers: a cancel in every phase of a job. A cancel ends a job whatever its phase (job-status.12: `DELETE /jobs/:id` | any | canceled), on
 * every engine the target declares: at once after the POST (the job may be claimed, its session
 * still starting), while running, while its turn waits on a permission (the CLI engines ask; the
 * provider engine never does), and while parked (a deferred tool, the provider engine's). The
 * kit's earlier cancel case met only a job long running on the provider engine.
 *
 * Only what the spec says is judged: after the DELETE the job reads `canceled` (the one terminal
 * value the table names), and it stays canceled: a run that went on would show it `running`
 * again, which the later reads, after other phases have run, would see (a job pruned meanwhile
 * was terminal, job-status.13). How long a cancel takes, what the DELETE answers and what becomes of the job's
 * session are not stated.
 */
import type { CaseContext } from '../context.ts'
import { Unsupported, type Case } from '../../types.ts'
import { requireRunningQueue } from './jobs.ts'

export type Engine = 'provider' | 'cli_primary' | 'cli_secondary'

/** Cancels at once after the POST, per engine: the claim and the session's start race the DELETE, so several tries. */
const IMMEDIATE_TRIES = 3
const PERMISSION: Partial<Record<Engine, string>> = { cli_primary: 'scenario:permission-write', cli_secondary: 'scenario:permission' }

async function postJobOn(ctx: CaseContext, engine: Engine, prompt: string): Promise<string> {
  const cwd = ctx.manifest.cwdRoot
  // A CLI engine runs in a host directory (createsessionrequest: cwd); the provider engine needs none.
  if (engine !== 'provider' && !cwd) throw new Unsupported('the manifest gives no cwdRoot')
  const res = await ctx.http('POST', '/jobs', { body: { session: { profile: ctx.profile(engine), ...(engine !== 'provider' ? { cwd } : {}), prompt } } })
  ctx.created('jobs-and-queue.2', res, 201)
  const id = res.json?.job?.id
  ctx.check('jobs-and-queue.2', typeof id === 'string', 'a {job} envelope with an id', res.text.slice(0, 200))
  ctx.onCleanup(() => ctx.http('DELETE', `/jobs/${encodeURIComponent(id)}`))
  return id
}

const readJob = async (ctx: CaseContext, id: string): Promise<any> => (await ctx.http('GET', `/jobs/${encodeURIComponent(id)}`)).json?.job

async function pollUntil<T>(ctx: CaseContext, get: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + ctx.deadlineMs
  for (;;) {
    const value = await get()
    if (ok(value)) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${ctx.deadlineMs} ms waiting for ${what}; last ${JSON.stringify(value)?.slice(0, 200)}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

/** DELETE, then the job reads canceled (job-status.12, jobs-and-queue.4). */
async function cancelJob(ctx: CaseContext, id: string, phase: string): Promise<void> {
  const res = await ctx.http('DELETE', `/jobs/${encodeURIComponent(id)}`)
  ctx.check('jobs-and-queue.4', res.status >= 200 && res.status < 300, `a 2xx to DELETE ${phase}`, `HTTP ${res.status}`)
  ctx.equal('job-status.12', (await readJob(ctx, id))?.status, 'canceled', `the job's status read right after its DELETE ${phase}`)
}

/**
 * The session JobInfo names for the job once its run started, waited for while the job runs
 * (other-shapes.5 does not list sessionId: a target naming none costs one wait, and the phase is
 * then entered blind).
 */
async function sessionOf(ctx: CaseContext, id: string): Promise<string | undefined> {
  const deadline = Date.now() + ctx.deadlineMs
  for (;;) {
    const job = await readJob(ctx, id)
    if (typeof job?.sessionId === 'string') return job.sessionId
    if (job?.status !== 'running' || Date.now() > deadline) return undefined
    await new Promise((r) => setTimeout(r, 25))
  }
}

/** Waits for the job's session to show `status`, where JobInfo names the session; says so where it does not. */
async function sessionReaches(ctx: CaseContext, id: string, status: string): Promise<void> {
  await pollUntil(ctx, () => readJob(ctx, id), (j) => j?.status === 'running', 'the job running')
  const sessionId = await sessionOf(ctx, id)
  ctx.observe(sessionId !== undefined, `JobInfo names no sessionId while the job runs: the kit cancels it without seeing its session ${status} (other-shapes.5 does not list sessionId)`)
  if (sessionId === undefined) return
  const path = `/sessions/${encodeURIComponent(sessionId)}`
  await pollUntil(ctx, async () => (await ctx.http('GET', path)).json?.session?.status, (s) => s === status, `the job's session ${status}`)
}

async function everyPhase(ctx: CaseContext, engine: Engine): Promise<void> {
  await requireRunningQueue(ctx)
  const canceled: Array<{ id: string; phase: string }> = []
  for (let i = 0; i < IMMEDIATE_TRIES; i++) {
    // A turn that never ends by itself: only the cancel can end the job, never a turn that was quicker than the DELETE.
    const id = await postJobOn(ctx, engine, 'scenario:hang')
    await cancelJob(ctx, id, 'sent at once after its POST')
    canceled.push({ id, phase: 'at once after its POST' })
  }
  const running = await postJobOn(ctx, engine, 'scenario:hang')
  await sessionReaches(ctx, running, 'running')
  // The jobs canceled at once are read again here too, before a target's retention may prune them.
  await stillCanceled(ctx, canceled)
  await cancelJob(ctx, running, 'while it runs')
  canceled.push({ id: running, phase: 'while it ran' })
  const permission = PERMISSION[engine]
  if (permission) {
    const asking = await postJobOn(ctx, engine, permission)
    await sessionReaches(ctx, asking, 'awaiting_approval')
    await cancelJob(ctx, asking, 'while it awaits a permission')
    canceled.push({ id: asking, phase: 'while it awaited a permission' })
  }
  if (engine === 'provider' && ctx.manifest.features.includes('parking')) {
    const parked = await postJobOn(ctx, engine, 'scenario:deferred')
    await pollUntil(ctx, () => readJob(ctx, parked), (j) => j?.status === 'parked', 'the job parked')
    await cancelJob(ctx, parked, 'while it is parked')
    canceled.push({ id: parked, phase: 'while it was parked' })
  }
  await stillCanceled(ctx, canceled)
}

/**
 * Every other phase has run since the first cancels: a run that went on (a short turn) has ended
 * by now. A job no longer found was pruned, which only a terminal job is (job-status.13).
 */
async function stillCanceled(ctx: CaseContext, canceled: Array<{ id: string; phase: string }>): Promise<void> {
  for (const { id, phase } of canceled) {
    const status = (await readJob(ctx, id))?.status
    if (status !== undefined) ctx.equal('job-status.12', status, 'canceled', `still, a job canceled ${phase}`)
  }
}

export const cancelEveryPhaseCase = (engine: Engine): Case => ({
  id: `jobs-cancel-every-phase-${engine.replace('_', '-')}`,
  title: `${engine}: a cancel ends the job whatever its phase (at once after the POST, running, awaiting a permission, parked)`,
  section: 'job-status',
  clauses: ['job-status.12', 'jobs-and-queue.4'],
  requires: [engine, 'queue'],
  run: (ctx) => everyPhase(ctx, engine),
})

