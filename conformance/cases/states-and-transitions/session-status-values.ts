/** The cases of § Session status values: each case's first clause is `session-status-values.N`. */
import { permissionRequestIdOf } from '../../harness/permission-request.ts'
import type { Case } from '../../types.ts'
import { primary, STATUSES, openCwdSession, jobAcrossRestart, longTurnAcrossRestart, appliedOf, parked, transcript, waitFor, wokenTurnAcrossRestart, checkReplayComplete, dormantCommandsCase } from '../../harness/case-helpers/index.ts'

export const sessionStatusValuesCases: Case[] = [
  {
    id: 'ws-status-moves', title: 'a turn moves the session running → idle, after starting', section: 'session-status-values',
    clauses: ['session-status-values.1', 'events.3', 'commands.1'], requires: ['provider'],
    async run(ctx) {
      const { session, ws } = await ctx.idleSession()
      ctx.check('session-status-values.1', ['starting', 'idle', 'running'].includes(session.status), 'a created session starting (or already idle)', session.status)
      ws.send({ type: 'user_message', text: 'scenario:slow' })
      const running = await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'running')
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle' && e.seq > result.seq)
      ctx.check('session-status-values.1', running.seq < result.seq, 'running before the turn result', { running: running.seq, result: result.seq })
    },
  },
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
    id: 'parking-scope-before-wake', title: 'another tenant can neither deliver to nor attach a parked session, and triggers no wake', section: 'session-status-values',
    clauses: ['session-status-values.6', 'errors.3', 'errors.1'], requires: ['provider', 'parking', 'principal:tenantA', 'principal:tenantB'],
    cells: { states: ['parked'] },
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
    cells: { states: ['parked'] },
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
    cells: { states: ['parked'] },
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
    id: 'parking-survives-restart', title: 'after a restart, a parked session is adopted and wakes on its result; a persisted live session rebuilds on attach', section: 'session-status-values',
    clauses: ['session-status-values.7', 'session-status-values.8', 'session-status-values.5', 'embedding-rules.14', 'limits.9', 'embedding-rules.9', 'websocket-framing.1', 'event-and-command-envelope.1', 'job-status.6', 'job-status.11'],
    requires: ['provider', 'parking', 'persistence', 'restart'], isolation: 'global',
    cells: { states: ['parked'] },
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
    id: 'cli-primary-clear-context', title: 'clear_context on cli_primary is queued behind a running turn and yields conversation_reset', section: 'session-status-values',
    clauses: ['session-status-values.9', 'commands.6', 'events.20'], requires: ['cli_primary'],
    async run(ctx) {
      const { session, ws } = await primary(ctx)
      // session-status-values.9: the reset row applies when the engine's record sets clearContext.
      ctx.requireCapability(session, 'clearContext')
      ws.send({ type: 'user_message', text: 'scenario:slow' })
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'running')
      ws.send({ type: 'clear_context' })
      const reset = await ws.waitForEvent('conversation_reset', ctx.deadlineMs)
      const result = ws.events().find((e) => e.type === 'turn_result')
      ctx.check('session-status-values.9', result !== undefined && result.seq < reset.seq && result.isError === false, 'the running turn completed before the reset (no interrupt)', result)
    },
  },
  {
    id: 'cli-primary-interrupt-while-awaiting-approval', title: 'cli_primary: a turn interrupted while it awaits an approval ends, and every status the session reports on the way is a listed one', section: 'session-status-values',
    clauses: ['session-status-values.1', 'events.3', 'commands.3', 'events.12'], requires: ['cli_primary'],
    cells: { states: ['awaiting_approval'] },
    async run(ctx) {
      // events.3: status_changed carries a SessionStatus value; session-status-values.1 lists them.
      // An interrupt while the agent waits on an approval ends the turn (commands.3, events.12);
      // the approval may be settled by the interrupt or stay to be answered: answered here if it
      // is still pending. Whatever moves the session then makes, each status must be a listed value.
      const { session, ws } = await openCwdSession(ctx, 'cli_primary')
      ws.send({ type: 'user_message', text: 'scenario:permission-write' })
      const asked = await ws.waitForEvent('permission_requested', ctx.deadlineMs)
      ws.send({ type: 'interrupt' })
      const ended = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('events.12', ended.isError === true, 'turn_result.isError true for the interrupted turn', ended)
      const requestId = permissionRequestIdOf(asked)
      const settled = () => ws.events().some((e) => e.type === 'permission_resolved')
      if (requestId && !settled()) {
        const answer = await ctx.http('POST', `/sessions/${encodeURIComponent(session.id)}/permissions/${encodeURIComponent(requestId)}`, { body: { behavior: 'deny' } })
        // 404 when the interrupt already settled it (permission-request.1: resolved or expired).
        ctx.check('permission-request.1', (answer.status >= 200 && answer.status < 300) || answer.status === 404, 'the still-pending approval answered (2xx) or already settled (404)', `HTTP ${answer.status} ${answer.text.slice(0, 200)}`)
      }
      // The session comes to rest: a fresh message runs a turn to its end.
      ws.send({ type: 'user_message', text: 'scenario:hello' })
      const next = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > ended.seq)
      ctx.check('commands.3', next.isError === false, 'the next message after the interrupt runs a successful turn', next)
      const statuses = ws.events().filter((e) => e.type === 'status_changed').map((e) => e.status)
      ctx.check('session-status-values.1', statuses.every((s) => STATUSES.includes(s)), `every status_changed a listed status (${STATUSES.join(', ')})`, statuses)
      const info = (await ctx.http('GET', `/sessions/${encodeURIComponent(session.id)}`)).json?.session
      ctx.check('session-status-values.1', STATUSES.includes(info?.status), 'SessionInfo.status a listed status', info?.status)
    },
  },
  // Every command and session route on a dormant session, one engine each (conformance/matrix).
  dormantCommandsCase('provider'),
  dormantCommandsCase('cli_primary'),
  dormantCommandsCase('cli_secondary'),
]
