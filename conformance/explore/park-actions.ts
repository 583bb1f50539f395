/**
 * Explore's park command (a target offering parking): a turn resting on a deferred execution,
 * the recorder detached, then the park observed — after the grace (limits.8), at all
 * (session-status-values.2), a rename refused with 409 (errors.6) —
 * the result delivered (applied, session-status-values.3) and the recorder re-attached after the
 * last seq it saw: the stream goes on with the same numbering.
 */
import { onSession } from './command.ts'
import { alive } from './model.ts'
import { eventAfter, liveEvents, type SessionHandle, type World } from './world.ts'

/**
 * Waits for the park: `status: parked` shows already on a session waiting on a deferred execution,
 * so the park itself (snapshot, runner torn down) is read as a refused rename (errors.6, 409).
 * limits.8: torn down sooner than parkDelayMs after our close (which reached the server after we
 * sent it) is a park without the grace.
 */
async function waitParked(w: World, h: SessionHandle, closedAt: number): Promise<void> {
  const deadline = Date.now() + (w.ctx.manifest.timers?.parkDelayMs ?? 2000) + w.deadlineMs
  const grace = w.ctx.manifest.timers?.parkDelayMs
  for (;;) {
    const status = (await w.ctx.http('GET', `/sessions/${h.id}`, { as: h.owner })).json?.session?.status
    if (status === 'parked' && (await w.ctx.http('PATCH', `/sessions/${h.id}`, { as: h.owner, body: {} })).status === 409) {
      const elapsed = Date.now() - closedAt
      if (typeof grace === 'number') w.ctx.check('limits.8', elapsed >= grace - 5, `parked no sooner than parkDelayMs (${grace} ms) after the last client left`, `parked within ${elapsed} ms`)
      return
    }
    w.ctx.check('session-status-values.2', Date.now() <= deadline, 'parked (rename refused with 409) once the last client left and the grace elapsed', `status ${String(status)}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

export function parkAndDeliver(pick: number) {
  return onSession(pick, (i) => `park(s${i}) then deliver the result`, (m, i) => alive(m, i) && m.sessions[i].role === 'provider', async (m, w, index) => {
    const h = w.handle(index)
    const from = h.recorder.frames.length
    h.recorder.send({ type: 'user_message', text: 'scenario:deferred' })
    m.sessions[index].firstPrompt ??= 'scenario:deferred'
    const dispatched = await eventAfter(h.recorder, from, w.deadlineMs, 'execution_dispatched', (e) => e.type === 'execution_dispatched')
    const lastSeq = liveEvents(h).at(-1)?.seq ?? 0
    h.earlier.push(...h.recorder.events())
    h.recorder.close()
    const closedAt = Date.now()
    await waitParked(w, h, closedAt)
    w.ctx.errorStatus('errors.6', await w.ctx.http('PATCH', `/sessions/${h.id}`, { as: h.owner, body: { title: 'while parked' } }), 409)
    const res = await w.ctx.http('POST', `/executions/${encodeURIComponent(dispatched.executionId)}/result`, { as: h.owner, body: { status: 'ok', output: { type: 'text', value: 'explore' } } })
    w.ctx.check('session-status-values.3', res.json?.applied === true, 'the first delivery to a parked session applied', `HTTP ${res.status} ${res.text.slice(0, 200)}`)
    h.recorder = await w.ctx.ws(h.id, { as: h.owner, afterSeq: lastSeq })
    const result = await eventAfter(h.recorder, 0, w.deadlineMs, 'the turn_result after the delivery', (e) => e.type === 'turn_result')
    await eventAfter(h.recorder, 0, w.deadlineMs, 'status idle after the turn_result', (e) => e.type === 'status_changed' && e.status === 'idle' && e.seq > result.seq)
  })
}
