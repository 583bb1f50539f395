/**
 * Cases for deferred execution, parking, scratch files and the tool bridge
 * (session-status-values.2-8, other-shapes.1, events.14/.17, sessions.6/.15, websocket-framing.3).
 * The target's provider profile must offer the deferred tools `deferred_task` and `deferred_short`
 * and the bridged tool `client_eval` the scenarios call (conformance/target/README.md).
 */
import type { CaseContext } from '../harness/context.ts'
import { Unsupported, type Case } from '../types.ts'
import { EVAL_SIX_BY_SEVEN, SCRATCH_WRITTEN, mcpLookup, writeDeliverThenWait } from './kit-scenarios.ts'
import { checkReplayComplete } from './replay-check.ts'
import { longTurnAcrossRestart } from './edges-killB.ts'
import { jobAcrossRestart } from './job-across-restart.ts'

async function statusOf(ctx: CaseContext, id: string): Promise<string | undefined> {
  return (await ctx.http('GET', `/sessions/${id}`)).json?.session?.status
}

async function waitFor<T>(ctx: CaseContext, read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + ctx.deadlineMs
  for (;;) {
    const value = await read()
    if (ok(value)) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${ctx.deadlineMs} ms waiting for ${what}; last ${JSON.stringify(value)}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** The slack a case allows past the target's park delay before it expects the park. */
function parkDeadline(ctx: CaseContext): number {
  return (ctx.manifest.timers?.parkDelayMs ?? 2000) + ctx.deadlineMs
}

/** A session resting on `deferred_task`: created attached, its execution id read, then left to park. */
async function parked(ctx: CaseContext, prompt = 'scenario:deferred', as: 'operator' | 'tenantA' = 'operator', existing?: { id: string; ws: Awaited<ReturnType<CaseContext['ws']>> }) {
  // The prompt goes over the socket, so the dispatch surely happens while a client is attached.
  const session = existing ?? await ctx.createSession({}, as)
  const ws = existing?.ws ?? await ctx.ws(session.id, { as })
  ws.send({ type: 'user_message', text: prompt })
  const dispatched = await ws.waitForEvent('execution_dispatched', ctx.deadlineMs)
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
function appliedOf(body: any): { applied: unknown; sessionId: unknown } {
  return { applied: body?.applied, sessionId: body?.sessionId }
}

async function transcript(ctx: CaseContext, id: string, until = (events: any[]) => events.some((e) => e.type === 'turn_result')): Promise<any[]> {
  const ws = await ctx.ws(id, { afterSeq: 0 })
  await ws.waitFor(() => until(ws.events()), ctx.deadlineMs, 'the turn to finish')
  const events = ws.events()
  ws.close()
  return events
}

/** Rests on `deferred_task`, then, once its result came, hangs: the woken turn is running at the restart. */
const DEFERRED_THEN_HANG = `scenario:${JSON.stringify({ name: 'kit-deferred-then-hang', steps: [{ type: 'deferred', name: 'deferred_task', input: {} }, { type: 'hang' }] })}`

/**
 * Part of parking-survives-restart (which owns the slow restart): a persisted session with a
 * completed turn parks, its result wakes it, and the restart comes while the woken turn runs.
 * embedding-rules.14: persistLive writes the snapshot through after every turn, and a park is
 * stored (session-status-values.7); nothing lets a wake drop both, so after the restart the
 * session is there and its completed turn replays.
 */
async function wokenTurnAcrossRestart(ctx: CaseContext): Promise<() => Promise<void>> {
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

export const parkingCases: Case[] = [
  {
    id: 'parking-park-and-deliver', title: 'a session resting on a deferred execution parks, and the first result wakes it mid-turn', section: 'session-status-values',
    clauses: ['session-status-values.2', 'session-status-values.3', 'session.5', 'other-shapes.1', 'sessions.15', 'events.14', 'what-the-service-does.7', 'limits.8', 'server-configuration.22', 'websocket-framing.1'],
    requires: ['provider', 'parking'],
    async run(ctx) {
      const { id, dispatched } = await parked(ctx)
      ctx.check('events.14', dispatched.deferred === true && typeof dispatched.expiresAt === 'number' && typeof dispatched.executionId === 'string',
        'execution_dispatched with deferred: true, expiresAt and an executionId', dispatched)
      const listed = (await ctx.http('GET', '/sessions')).json?.sessions?.find((s: any) => s.id === id)
      ctx.equal('session.5', listed?.status, 'parked', 'the listed status of a parked session')
      const first = await ctx.http('POST', `/executions/${dispatched.executionId}/result`, { body: { status: 'ok', output: { type: 'text', value: 'approved' } } })
      ctx.status('sessions.15', first, 200)
      ctx.equal('session-status-values.3', appliedOf(first.json), { applied: true, sessionId: id }, 'the first delivery')
      const again = await ctx.http('POST', `/executions/${dispatched.executionId}/result`, { body: { status: 'ok', output: { type: 'text', value: 'twice' } } })
      ctx.equal('session-status-values.3', appliedOf(again.json), { applied: false, sessionId: id }, 'a duplicate delivery')
      const events = await transcript(ctx, id)
      // The transcript is read by replaying it: a short replay is the replay clause's failure.
      await checkReplayComplete(ctx, id)
      const seqs = events.map((e) => e.seq)
      ctx.check('session-status-values.3', seqs[0] === 1 && seqs.every((s, i) => i === 0 || s > seqs[i - 1]), 'one transcript numbered from 1, increasing, no repeats across the park', seqs)
      ctx.noteNonStrict(seqs.every((s, i) => s === i + 1), `seqs ${JSON.stringify(seqs)} with gaps across the park (protocol 7's restored runner continues numbering from the snapshot's seq; event-and-command-envelope.1 allows gaps)`)
      const result = events.find((e) => e.type === 'turn_result')
      ctx.check('session-status-values.3', result?.isError === false && String(result?.result).includes('approved'), 'the turn completes with the delivered result', result)
      ctx.check('session-status-values.3', !events.some((e) => e.type === 'session_closed'), 'no session_closed: a park is not an end', events.map((e) => e.type))
    },
  },
  {
    id: 'parking-parked-refusals', title: 'rename and /mcp answer 409 while parked; reads answer from the snapshot', section: 'errors',
    clauses: ['errors.6', 'session.5'], requires: ['provider', 'parking'],
    async run(ctx) {
      const { id } = await parked(ctx)
      ctx.errorStatus('errors.6', await ctx.http('PATCH', `/sessions/${id}`, { body: { title: 'renamed' } }), 409)
      ctx.errorStatus('errors.6', await ctx.http('GET', `/sessions/${id}/mcp`), 409)
      ctx.equal('session.5', await statusOf(ctx, id), 'parked', 'status after the refused calls (reads never wake)')
    },
  },
  {
    id: 'parking-result-validation', title: 'malformed execution results are 400, unknown ids 404, and the session stays parked', section: 'other-shapes',
    clauses: ['other-shapes.1', 'errors.3', 'sessions.15'], requires: ['provider', 'parking'],
    async run(ctx) {
      const { id, dispatched } = await parked(ctx)
      for (const body of [{}, { status: 'ok' }, { status: 'ok', output: 'flat' }, { status: 'failed', reason: 'x' }, { status: 'done', output: { value: 1 } }]) {
        // errors.16: the error body's shape is not shown; the status is checked, the body noted.
        ctx.errorStatus('other-shapes.1', await ctx.http('POST', `/executions/${dispatched.executionId}/result`, { body }), 400)
      }
      ctx.errorStatus('errors.3', await ctx.http('POST', '/executions/no-such-execution/result', { body: { status: 'ok', output: { value: 1 } } }), 404)
      ctx.equal('other-shapes.1', await statusOf(ctx, id), 'parked', 'status after refused deliveries')
    },
  },
  {
    id: 'parking-scope-before-wake', title: 'another tenant can neither deliver to nor attach a parked session, and triggers no wake', section: 'session-status-values',
    clauses: ['session-status-values.6', 'errors.3', 'errors.1'], requires: ['provider', 'parking', 'principal:tenantA', 'principal:tenantB'],
    async run(ctx) {
      const { id, dispatched } = await parked(ctx, 'scenario:deferred', 'tenantA')
      const deliver = await ctx.http('POST', `/executions/${dispatched.executionId}/result`, { as: 'tenantB', body: { status: 'ok', output: { value: 'intruder' } } })
      ctx.errorStatus('errors.3', deliver, 404)
      let refused: number | undefined
      try { await ctx.ws(id, { as: 'tenantB' }) } catch (err) { refused = (err as { status?: number }).status }
      ctx.equal('errors.1', refused, 404, 'attach by another tenant')
      const rename = await ctx.http('PATCH', `/sessions/${id}`, { as: 'tenantA', body: { title: 'still parked?' } })
      ctx.equal('session-status-values.6', rename.status, 409, 'rename after the refused attach (409 means no rebuild happened)')
    },
  },
  {
    id: 'parking-attach-wakes', title: 'attaching wakes a parked session; it parks again after the last client leaves', section: 'session-status-values',
    clauses: ['session-status-values.6', 'session-status-values.2', 'limits.8'], requires: ['provider', 'parking'],
    async run(ctx) {
      const { id } = await parked(ctx)
      const ws = await ctx.ws(id)
      await ws.waitFor((f) => f.type === 'attached', ctx.deadlineMs, 'attached')
      const rename = await ctx.http('PATCH', `/sessions/${id}`, { body: { title: 'awake' } })
      ctx.status('session-status-values.6', rename, 200)
      ws.close()
      await waitFor(ctx, async () => (await ctx.http('PATCH', `/sessions/${id}`, { body: {} })).status, (s) => s === 409, 'the session to park again after the client left')
    },
  },
  {
    id: 'parking-delete-drops-state', title: 'DELETE of a parked session drops its stored state; a late result is 404', section: 'session-status-values',
    clauses: ['session-status-values.5', 'errors.3'], requires: ['provider', 'parking'],
    async run(ctx) {
      const { id, dispatched } = await parked(ctx)
      const del = await ctx.http('DELETE', `/sessions/${id}`)
      // sessions.5 gives DELETE no status ("Closes and removes"): any 2xx.
      ctx.check('session-status-values.5', del.status >= 200 && del.status < 300, 'a 2xx', `HTTP ${del.status} ${del.text.slice(0, 120)}`)
      const late = await ctx.http('POST', `/executions/${dispatched.executionId}/result`, { body: { status: 'ok', output: { value: 'late' } } })
      ctx.errorStatus('session-status-values.5', late, 404)
      ctx.errorStatus('session-status-values.5', await ctx.http('GET', `/sessions/${id}`), 404)
    },
  },
  {
    id: 'parking-failures-are-tool-output', title: 'a failed result and a lapsed deadline reach the agent as tool output, not a session error', section: 'errors',
    clauses: ['session-status-values.4', 'errors.13', 'events.14'], requires: ['provider', 'parking'],
    async run(ctx) {
      const { id, dispatched } = await parked(ctx)
      const res = await ctx.http('POST', `/executions/${dispatched.executionId}/result`, { body: { status: 'failed', reason: 'rejected', error: 'the approver said no' } })
      ctx.equal('session-status-values.4', res.json?.applied, true, 'a failed result is applied')
      const events = await transcript(ctx, id)
      const result = events.find((e) => e.type === 'turn_result')
      ctx.check('errors.13', String(result?.result).includes('the approver said no') && !events.some((e) => e.type === 'session_error'), 'the failure as tool output, no session_error', result)

      const lapsed = await ctx.createSession({ prompt: 'scenario:deferred-short' })
      const after = await transcript(ctx, lapsed.id)
      const failed = after.find((e) => e.type === 'execution_failed')
      ctx.check('events.14', failed !== undefined, 'execution_failed when the deadline lapses', after.map((e) => e.type))
      // Not before the deadline: `expiresAt` is the watchdog time (events.14) and `ts` the event's
      // time, both on the target's clock, so the comparison is exact (a millisecond of rounding).
      const shortDispatch = after.find((e) => e.type === 'execution_dispatched')
      if (typeof shortDispatch?.expiresAt === 'number') ctx.check('events.14', failed.ts >= shortDispatch.expiresAt - 1, `execution_failed no sooner than the dispatch's expiresAt ${shortDispatch.expiresAt}`, failed.ts)
      const timeout = after.find((e) => e.type === 'turn_result')
      ctx.check('session-status-values.4', timeout?.isError === false && !after.some((e) => e.type === 'session_error'), 'the turn completes normally after the deadline', timeout)
    },
  },
  {
    id: 'scratch-files-deliver-and-serve', title: 'deliver_file emits file_delivered; /files lists and serves it (attachment, nosniff), also while parked', section: 'sessions',
    clauses: ['sessions.6', 'events.17', 'embedding-rules.6'], requires: ['provider', 'parking', 'scratchFiles'],
    async run(ctx) {
      // The scratch file is written by the sandbox and handed over with deliver_file {path,
      // content} (kit-scenarios.ts): a tool that writes and one that hands over an existing file
      // both deliver it. Reads come first, while the session is parked (an attach would wake it).
      const { id } = await parked(ctx, writeDeliverThenWait('out/report.md', '# Report'))
      const list = await ctx.http('GET', `/sessions/${id}/files`)
      const file = await ctx.http('GET', `/sessions/${id}/files/out/report.md`)
      const missing = await ctx.http('GET', `/sessions/${id}/files/out/nothing.md`)
      const ws = await ctx.ws(id, { afterSeq: 0 })
      await ws.waitForEvent('execution_dispatched', ctx.deadlineMs)
      const events = ws.events()
      const delivered = events.find((e) => e.type === 'file_delivered')
      if (!delivered) {
        // Without a file_delivered, nothing was handed over. A failure only when the file surely
        // existed (the sandbox said it wrote it), since then either tool semantics delivers it.
        ctx.check('events.17', !JSON.stringify(events).includes(SCRATCH_WRITTEN), 'file_delivered for the scratch file the sandbox wrote and deliver_file handed over', events.map((e) => e.type))
        throw new Unsupported('no file was handed over: the target\'s deliver_file did not write {path, content}, and its sandbox has no fs.write to create the file first')
      }
      // events.17 gives the path as the file's address under /files/<path>: with or without a leading slash.
      ctx.equal('events.17', String(delivered.path).replace(/^\/+/, ''), 'out/report.md', 'file_delivered path (leading slashes aside)')
      ctx.status('sessions.6', list, 200)
      // ListSessionFilesResponse's shape is not shown (other-shapes.6): the listing names the file somewhere.
      ctx.check('sessions.6', list.text.includes('out/report.md'), 'the delivered file listed from the parked snapshot', list.text.slice(0, 200))
      ctx.status('sessions.6', file, 200)
      ctx.equal('sessions.6', file.text, '# Report', 'the file bytes')
      ctx.check('sessions.6', /^attachment/.test(file.headers['content-disposition'] ?? ''), 'content-disposition: attachment', file.headers['content-disposition'])
      ctx.equal('sessions.6', file.headers['x-content-type-options'], 'nosniff', 'x-content-type-options')
      ctx.errorStatus('sessions.6', missing, 404)
    },
  },
  {
    id: 'provider-minimum-and-grants', title: 'the provider minimum is eval_script in a sandbox; grant tools appear only when granted', section: 'embedding-rules',
    clauses: ['embedding-rules.6', 'embedding-rules.8', 'embedding-rules.7'], requires: ['provider', 'profile:providerAlt'],
    async run(ctx) {
      // The tool lists are read from system_init, which the spec does not oblige a provider engine
      // to emit (events.2): checked when it comes by the end of the turn, never waited for.
      const { ws } = await ctx.idleSession({ prompt: EVAL_SIX_BY_SEVEN })
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('embedding-rules.6', String(result.result).includes('42'), 'the sandbox computed 6 * 7', result.result)
      const init = ws.events().find((e) => e.type === 'system_init')
      // Tool names are the target's (the sandbox answering shows its eval tool): only what must be absent is checked.
      if (Array.isArray(init?.tools)) ctx.check('embedding-rules.6', !init.tools.some((t: string) => /bash|shell|read_file|write_file/i.test(t)), 'no shell or host-file tool', init.tools)
      const alt = await ctx.idleSession({ profile: ctx.profile('providerAlt'), prompt: 'scenario:hello' })
      await alt.ws.waitForEvent('turn_result', ctx.deadlineMs)
      const altInit = alt.ws.events().find((e) => e.type === 'system_init')
      if (Array.isArray(altInit?.tools)) {
        // A grant not given must not show as a tool; the granted one may carry the target's own name.
        const ungranted = altInit.tools.filter((t: string) => ['web_search', 'download', 'deliver_file'].includes(t))
        ctx.equal('embedding-rules.8', ungranted, [], 'grant tools of a profile granting only web_fetch, beyond web_fetch')
      }
    },
  },
  {
    id: 'bridge-first-client-only', title: 'a bridged tool goes to the first attached client only; authoritative tools never appear on the channel', section: 'websocket-framing',
    clauses: ['websocket-framing.3', 'errors.12'], requires: ['provider', 'bridge'],
    async run(ctx) {
      const { session, ws: first } = await ctx.idleSession()
      const second = await ctx.ws(session.id)
      first.send({ type: 'user_message', text: EVAL_SIX_BY_SEVEN })
      await first.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('websocket-framing.3', !first.frames.some((f: any) => f.type === 'tool_call_request'), 'no tool_call_request for eval_script (runs server-side)', first.frames.map((f: any) => f.type))
      first.send({ type: 'user_message', text: 'scenario:bridge' })
      const request = await first.waitFor((f) => f.type === 'tool_call_request', ctx.deadlineMs, 'tool_call_request')
      ctx.check('websocket-framing.3', !second.frames.some((f: any) => f.type === 'tool_call_request'), 'the second client is not asked', second.frames.map((f: any) => f.type))
      first.send({ type: 'tool_call_result', executionId: request.executionId })
      await first.waitFor((f) => f.type === 'protocol_error', ctx.deadlineMs, 'protocol_error for a result without `result`')
      first.send({ type: 'tool_call_result', executionId: request.executionId, result: 42 })
      const done = await first.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.numTurns === 2)
      ctx.check('websocket-framing.3', String(done.result).includes('42'), "the client's answer reaches the agent", done.result)
    },
  },
  {
    id: 'parking-survives-restart', title: 'after a restart, a parked session is adopted and wakes on its result; a persisted live session rebuilds on attach', section: 'session-status-values',
    clauses: ['session-status-values.7', 'session-status-values.8', 'session-status-values.5', 'embedding-rules.14', 'limits.9', 'embedding-rules.9', 'websocket-framing.1', 'event-and-command-envelope.1', 'job-status.6'],
    requires: ['provider', 'parking', 'persistence', 'restart'], isolation: 'global',
    async run(ctx) {
      const { id: parkedId, dispatched } = await parked(ctx)
      const { session: live, ws } = await ctx.idleSession({ prompt: 'before the restart' })
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ws.close()
      const lapsing = await ctx.createSession({ prompt: 'scenario:deferred-short' })
      // session-status-values.5: DELETE drops a park's stored state, so a restart must not adopt it back.
      const { id: deletedId, dispatched: deletedCall } = await parked(ctx)
      const deleted = await ctx.http('DELETE', `/sessions/${deletedId}`)
      ctx.check('session-status-values.5', deleted.status >= 200 && deleted.status < 300, 'a 2xx for the DELETE of a parked session', `HTTP ${deleted.status} ${deleted.text.slice(0, 120)}`)
      const before = new Map<string, number>()
      for (const id of [parkedId, live.id]) before.set(id, (await ctx.http('GET', `/sessions/${id}`)).json?.session?.lastSeq)
      // Three independent sessions set up at once: the case owns the kit's one slow restart.
      const [numberingAfterRestart, wokenAfterRestart, jobAfterRestart] = await Promise.all([longTurnAcrossRestart(ctx), wokenTurnAcrossRestart(ctx), jobAcrossRestart(ctx)])
      await ctx.restartTarget!()

      const listed = (await ctx.http('GET', '/sessions')).json?.sessions ?? []
      const parkedRow = listed.find((s: any) => s.id === parkedId)
      // lastSeq is listed on SessionInfo, not required (session.1): compared where the target gives it.
      const sameSeq = (row: any, id: string) => before.get(id) === undefined || row?.lastSeq === before.get(id)
      ctx.check('session-status-values.7', parkedRow?.status === 'parked' && sameSeq(parkedRow, parkedId), 'the park adopted on listen, same lastSeq', parkedRow)
      const liveRow = listed.find((s: any) => s.id === live.id)
      ctx.check('session-status-values.8', liveRow !== undefined && sameSeq(liveRow, live.id), 'the persisted live session listed with its lastSeq', liveRow)

      ctx.check('session-status-values.5', !listed.some((s: any) => s.id === deletedId), 'the parked session deleted before the restart is not adopted back', listed.map((s: any) => s.id))
      ctx.errorStatus('session-status-values.5', await ctx.http('POST', `/executions/${deletedCall.executionId}/result`, { body: { status: 'ok', output: { type: 'text', value: 'late' } } }), 404)
      const res = await ctx.http('POST', `/executions/${dispatched.executionId}/result`, { body: { status: 'ok', output: { type: 'text', value: 'after restart' } } })
      ctx.equal('session-status-values.7', appliedOf(res.json), { applied: true, sessionId: parkedId }, 'a result delivered after the restart')
      const events = await transcript(ctx, parkedId)
      await checkReplayComplete(ctx, parkedId)
      const seqs = events.map((e) => e.seq)
      ctx.check('embedding-rules.9', seqs[0] === 1 && seqs.every((s, i) => i === 0 || s > seqs[i - 1]) && (before.get(parkedId) === undefined || seqs.includes(before.get(parkedId)!)), 'the rebuilt session keeps its id, transcript and numbering (from 1, increasing, through the lastSeq before the restart)', seqs)
      ctx.noteNonStrict(seqs.every((s, i) => s === i + 1), `seqs ${JSON.stringify(seqs)} with gaps across the restart (protocol 7's restored runner continues numbering from the snapshot's seq; event-and-command-envelope.1 allows gaps)`)
      ctx.check('session-status-values.7', String(events.find((e) => e.type === 'turn_result')?.result).includes('after restart'), 'the turn completes with the result', events.at(-1))

      const again = await ctx.ws(live.id, { afterSeq: 0 })
      const replayed = await again.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('embedding-rules.14', String(replayed.result).includes('before the restart'), 'the transcript from before the restart replays', replayed)
      again.send({ type: 'user_message', text: 'after the restart' })
      const next = await again.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > (before.get(live.id) ?? 0))
      ctx.check('session-status-values.8', next.numTurns === 2, 'numbering and counters continue after the rebuild', next)

      const lapsed = await transcript(ctx, lapsing.id)
      const outcome = lapsed.find((e) => e.type === 'turn_result')
      ctx.check('limits.9', outcome?.isError === false && !lapsed.some((e) => e.type === 'session_error'), 'a deadline that lapsed across the restart ends as tool output', outcome)
      await wokenAfterRestart()
      await numberingAfterRestart()
      await jobAfterRestart()
    },
  },
  {
    id: 'provider-mcp-identity', title: 'MCP servers named by a provider profile: identity on the transport per session, connect-or-refuse at build', section: 'embedding-rules',
    clauses: ['authentication.10', 'embedding-rules.10', 'errors.14'], requires: ['provider', 'mcp', 'profile:providerMcp', 'profile:providerMcpBroken'],
    async run(ctx) {
      const callers: string[] = []
      for (const query of ['first', 'second']) {
        const { session, ws } = await ctx.idleSession({ profile: ctx.profile('providerMcp') })
        // The wire name of an MCP tool is the target's choice (any prefix before `lookup`): the fake
        // model binds the call to the target's own tool definitions, so no system_init is needed
        // (the spec does not oblige a provider engine to emit one, events.2).
        ws.send({ type: 'user_message', text: mcpLookup(query) })
        const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
        ctx.check('embedding-rules.10', String(result.result).includes(query), 'the MCP tool answered', result.result)
        callers.push(/caller (\w+)/.exec(String(result.result))?.[1] ?? '')
        ctx.check('authentication.10', !JSON.stringify(ws.events()).includes('Bearer'), 'no credential in the transcript (identity rides the transport, not a tool argument)', 'a Bearer value in the events')
        const servers = await ctx.http('GET', `/sessions/${session.id}/mcp`)
        ctx.check('authentication.10', !/Bearer|authorization/i.test(servers.text), 'no header or token in the MCP server list', servers.text.slice(0, 200))
      }
      ctx.check('authentication.10', callers.every(Boolean) && callers[0] !== callers[1], 'a different transport identity per session', callers)
      const broken = await ctx.http('POST', '/sessions', { body: { profile: ctx.profile('providerMcpBroken') } })
      if (broken.status >= 200 && broken.status < 300) await ctx.http('DELETE', `/sessions/${broken.json?.session?.id}`)
      // errors.14 says the build is refused, not with which status; protocol 7 answers 500.
      ctx.check('errors.14', broken.status >= 400, 'the create refused when a named MCP server does not connect', `${broken.status} ${broken.text.slice(0, 160)}`)
      // errors.14 says the session refuses to build and gives no status: protocol 7's 500 is only observed.
      ctx.observe(broken.status === 500, `a failed MCP connect refused with ${broken.status} (protocol 7: 500; errors.14 gives no status)`)
    },
  },
]
