/**
 * Edge cases found by reviewing generated mutation survivors of the server and sessions modules:
 * what a hostile or unusual request must not do to the routes every client relies on.
 */
import type { CaseContext } from '../harness/context.ts'
import { Unsupported, type Case } from '../types.ts'
import { requireRunningQueue } from './jobs.ts'

/**
 * Nestings from merely deep to deep enough to overflow a recursive consumer (serialiser, validator,
 * clone) of the stored value: where a gateway overflows depends on its stack and on which consumer
 * runs first, so a sweep meets the depth that gets past the submission and breaks what reads it.
 */
const NESTING_DEPTHS = [1000, 2000, 3000, 4000, 6000, 8000, 10_000]

/** `[[[…]]]` nested `depth` levels, with a string member before it in the same object. */
function deeplyNestedMeta(depth: number): string {
  return `{"note":"kit deep meta","nested":${'['.repeat(depth)}${']'.repeat(depth)}}`
}

/**
 * A turn that streams more events than a gateway is likely to number ahead in one durable write
 * (one event per character with includePartialMessages), ends its first model leg with a call to
 * a tool no target has, and hangs in its second leg, so it is still running at the restart.
 */
const STREAMED_CHARS = 1200
const LONG_THEN_HANG = `scenario:${JSON.stringify({
  name: 'kit-long-stream-then-hang',
  steps: [
    { type: 'text', text: `kit long stream ${'z'.repeat(STREAMED_CHARS)}`, chunkSize: 1 },
    { type: 'tool', name: 'kit_no_such_tool', input: {} },
    { type: 'hang' },
  ],
})}`

const maxSeq = (events: any[]) => events.reduce((max, e) => (typeof e?.seq === 'number' && e.seq > max ? e.seq : max), 0)

/**
 * Part of one restart case (parking-survives-restart, which owns the slow restart): before the
 * restart, a persisted live session is left in the middle of a turn that streamed well over a
 * thousand events since its last snapshot; the returned check runs after the restart.
 *
 * event-and-command-envelope.1: seq increases monotonically per session. A session rebuilt after
 * a restart (embedding-rules.14, session-status-values.8) is the same session, so an event it
 * emits later never carries a seq a client was already shown, however much of the interrupted turn
 * the snapshot lost.
 */
export async function longTurnAcrossRestart(ctx: CaseContext): Promise<() => Promise<void>> {
  const { session, ws } = await ctx.idleSession({ prompt: 'before the restart', includePartialMessages: true })
  await ws.waitForEvent('turn_result', ctx.deadlineMs)
  ws.send({ type: 'user_message', text: LONG_THEN_HANG })
  // The first leg ends with the tool call: its assistant message comes after every streamed event.
  await ws.waitForEvent('assistant_message', ctx.deadlineMs, (e) => JSON.stringify(e.message ?? null).includes('kit_no_such_tool'))
  const shown = maxSeq(ws.events())
  ws.close()
  return async () => {
    const again = await ctx.ws(session.id, { afterSeq: 0 })
    again.send({ type: 'user_message', text: 'after the restart' })
    const next = await again.waitForEvent('turn_result', ctx.deadlineMs, (e) => String(e.result ?? '').includes('after the restart'))
    const after = again.events().filter((e) => e.type === 'user_message' && JSON.stringify(e.message ?? null).includes('after the restart'))
    ctx.check('event-and-command-envelope.1', next.seq > shown && after.every((e) => e.seq > shown), `a persisted session restarted in the middle of a long streamed turn numbers the turn after the restart after seq ${shown}, the last one shown before it`, { userMessage: after.map((e) => e.seq), turnResult: next.seq })
  }
}

export const killBEdgeCases: Case[] = [
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
