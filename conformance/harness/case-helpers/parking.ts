/** Case helpers: parking. Shared by the cases of every section through case-helpers/index.ts. */
import type { CaseContext } from '../context.ts'

export async function statusOf(ctx: CaseContext, id: string): Promise<string | undefined> {
  return (await ctx.http('GET', `/sessions/${id}`)).json?.session?.status
}

export async function waitFor<T>(ctx: CaseContext, read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + ctx.deadlineMs
  for (;;) {
    const value = await read()
    if (ok(value)) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${ctx.deadlineMs} ms waiting for ${what}; last ${JSON.stringify(value)}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** The slack a case allows past the target's park delay before it expects the park. */
export function parkDeadline(ctx: CaseContext): number {
  return (ctx.manifest.timers?.parkDelayMs ?? 2000) + ctx.deadlineMs
}

/** A session resting on `deferred_task`: created attached, its execution id read, then left to park. */
export async function parked(ctx: CaseContext, prompt = 'scenario:deferred', as: 'operator' | 'tenantA' = 'operator', existing?: { id: string; ws: Awaited<ReturnType<CaseContext['ws']>> }) {
  // The prompt goes over the socket, so the dispatch surely happens while a client is attached.
  const session = existing ?? await ctx.createSession({}, as)
  const ws = existing?.ws ?? await ctx.ws(session.id, { as })
  // The park is this prompt's: a dispatch from before it (an earlier park of the same session) or
  // a non-deferred call of the same turn is another execution, whose park this would misread.
  const before = Math.max(0, ...ws.events().map((e) => e.seq ?? 0))
  ws.send({ type: 'user_message', text: prompt })
  const dispatched = await ws.waitForEvent('execution_dispatched', ctx.deadlineMs, (e) => e.seq > before && e.deferred === true).catch((err: Error) => {
    const any = ws.events().find((e) => e.type === 'execution_dispatched' && e.seq > before)
    // events.14: a dispatch whose execution may outlive the runner says so.
    if (any) ctx.check('events.14', false, 'deferred: true on the dispatch of an execution that parks its session', any)
    throw err
  })
  ws.close()
  const left = Date.now() // the close frame leaves now; the server detaches no sooner
  const deadline = left + parkDeadline(ctx)
  const delay = ctx.manifest.timers?.parkDelayMs
  for (;;) {
    const res = await ctx.http('GET', `/sessions/${session.id}`, { as })
    // `status: parked` already shows on a session waiting on a deferred execution; the park itself
    // (snapshot, runner torn down) shows as a refused rename (errors.6).
    if (res.json?.session?.status === 'parked' && (await ctx.http('PATCH', `/sessions/${session.id}`, { as, body: {} })).status === 409) {
      // limits.8: parkDelayMs is a grace after the last client leaves. Torn down sooner than that
      // after our close (which reached the server after we sent it) is a park without the grace.
      const elapsed = Date.now() - left
      if (typeof delay === 'number') ctx.check('limits.8', elapsed >= delay - 5, `parked no sooner than parkDelayMs (${delay} ms) after the last client left`, `parked within ${elapsed} ms`)
      break
    }
    // Not parking is a violation of the park row, not a harness failure.
    ctx.check('session-status-values.2', Date.now() <= deadline, `parked (rename refused) within parkDelayMs + ${ctx.deadlineMs} ms of the last client leaving`, `status ${res.json?.session?.status}`)
    await new Promise((r) => setTimeout(r, 20))
  }
  return { id: session.id as string, dispatched }
}

/** The stated fields of SubmitExecutionResult's answer (other-shapes.1); a target may add others. */
export function appliedOf(body: any): { applied: unknown; sessionId: unknown } {
  return { applied: body?.applied, sessionId: body?.sessionId }
}

export async function transcript(ctx: CaseContext, id: string, until = (events: any[]) => events.some((e) => e.type === 'turn_result')): Promise<any[]> {
  const ws = await ctx.ws(id, { afterSeq: 0 })
  await ws.waitFor(() => until(ws.events()), ctx.deadlineMs, 'the turn to finish')
  const events = ws.events()
  ws.close()
  return events
}

/** Rests on `deferred_task`, then, once its result came, hangs: the woken turn is running at the restart. */
export const DEFERRED_THEN_HANG = `scenario:${JSON.stringify({ name: 'kit-deferred-then-hang', steps: [{ type: 'deferred', name: 'deferred_task', input: {} }, { type: 'hang' }] })}`

/**
 * Part of parking-survives-restart (which owns the slow restart): a persisted session with a
 * completed turn parks, its result wakes it, and the restart comes while the woken turn runs.
 * embedding-rules.14: persistLive writes the snapshot through after every turn, and a park is
 * stored (session-status-values.7); nothing lets a wake drop both, so after the restart the
 * session is there and its completed turn replays.
 */
export async function wokenTurnAcrossRestart(ctx: CaseContext): Promise<() => Promise<void>> {
  const { session, ws } = await ctx.idleSession({ prompt: 'woken session, first turn' })
  await ws.waitForEvent('turn_result', ctx.deadlineMs)
  const { dispatched } = await parked(ctx, DEFERRED_THEN_HANG, 'operator', { id: session.id, ws })
  const res = await ctx.http('POST', `/executions/${dispatched.executionId}/result`, { body: { status: 'ok', output: { type: 'text', value: 'woken' } } })
  ctx.equal('session-status-values.7', appliedOf(res.json), { applied: true, sessionId: session.id }, 'the result wakes the parked session')
  return async () => {
    const read = await ctx.http('GET', `/sessions/${session.id}`)
    ctx.check('embedding-rules.14', read.status === 200, 'a persisted session restarted while the turn its result woke was running is still there (its completed turn was written through)', `HTTP ${read.status} ${read.text.slice(0, 120)}`)
    const again = await ctx.ws(session.id, { afterSeq: 0 })
    const first = await again.waitForEvent('turn_result', ctx.deadlineMs)
    ctx.check('embedding-rules.14', String(first.result ?? '').includes('woken session, first turn'), 'its completed turn replays after the restart', first)
    again.close()
  }
}
