/** The cases of § Permission request: each case's first clause is `permission-request.N`. */
import { permissionRequestIdOf } from '../../harness/permission-request.ts'
import { scripted } from '../../harness/scripted-engine.ts'
import type { Case } from '../../types.ts'
import { open, primary, secondary, asked, resolvedAfter } from '../../harness/case-helpers/index.ts'

export const permissionRequestCases: Case[] = [
  {
    id: 'sessions-permission-unknown-request-404', title: 'resolving an unknown permission request is a 404', section: 'permission-request',
    clauses: ['permission-request.1', 'sessions.13', 'errors.3', 'other-shapes.2'], requires: ['provider'],
    async run(ctx) {
      const s = await ctx.createSession()
      const bad = await ctx.http('POST', `/sessions/${s.id}/permissions/no-such-request`, { body: { behavior: 'maybe' } })
      ctx.check('other-shapes.2', bad.status === 400 || bad.status === 404, 'a behavior other than allow/deny refused', `HTTP ${bad.status}`)
      ctx.errorStatus('permission-request.1', await ctx.http('POST', `/sessions/${s.id}/permissions/no-such-request`, { body: { behavior: 'allow' } }), 404)
    },
  },
  {
    id: 'cli-primary-permission-flow', title: 'a permission is requested, the session awaits approval, an edited allow reaches the tool, a deny message reaches the agent, a second answer is 404', section: 'permission-request',
    clauses: ['permission-request.1', 'events.13', 'errors.3', 'sessions.13', 'session-status-values.1', 'events.3', 'other-shapes.2'], requires: ['cli_primary'],
    async run(ctx) {
      const { session, ws } = await primary(ctx)
      // A mutating command: a real CLI runs a read-only one (`echo`) without asking.
      ws.send({ type: 'user_message', text: 'scenario:permission-write' })
      const asked = await ws.waitForEvent('permission_requested', ctx.deadlineMs)
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'awaiting_approval')
      const info = (await ctx.http('GET', `/sessions/${session.id}`)).json?.session
      // pendingPermissionCount is listed on SessionInfo, not required (session.1): compared when present.
      if (info && 'pendingPermissionCount' in info) ctx.equal('permission-request.1', info.pendingPermissionCount, 1, 'pendingPermissionCount while asked')
      // The edited command's word shows in the result on any CLI: the fake repeats the input, a real one the output.
      const edited = `kit-edited-${Math.floor(ctx.random() * 1e9)}`
      const res = await ctx.http('POST', `/sessions/${session.id}/permissions/${permissionRequestIdOf(asked)}`, { body: { behavior: 'allow', updatedInput: { command: `echo ${edited}` } } })
      ctx.created('sessions.13', res, 200)
      const resolved = await ws.waitForEvent('permission_resolved', ctx.deadlineMs)
      // The spec names no resolvedBy value for a REST answer; compatibility.ts notes the protocol-7 client's (`client`).
      ctx.check('events.13', typeof resolved.resolvedBy === 'string', 'permission_resolved carries resolvedBy', resolved)
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('events.13', String(result.result).includes(edited), `the tool ran with the edited input (echo ${edited})`, result.result)
      const again = await ctx.http('POST', `/sessions/${session.id}/permissions/${permissionRequestIdOf(asked)}`, { body: { behavior: 'deny' } })
      ctx.errorStatus('errors.3', again, 404)
      ctx.errorStatus('errors.3', await ctx.http('POST', `/sessions/${session.id}/permissions/never-asked`, { body: { behavior: 'allow' } }), 404)
      // other-shapes.2: a deny carries its own `message`, as an allow its `updatedInput`: the refused
      // tool's result is that message (the kit's CLI repeats the tool's result, as above).
      ws.send({ type: 'user_message', text: 'scenario:permission-write' })
      const second = await ws.waitForEvent('permission_requested', ctx.deadlineMs, (e) => permissionRequestIdOf(e) !== permissionRequestIdOf(asked))
      const why = `kit-denied-${Math.floor(ctx.random() * 1e9)}`
      ctx.created('sessions.13', await ctx.http('POST', `/sessions/${session.id}/permissions/${permissionRequestIdOf(second)}`, { body: { behavior: 'deny', message: why } }), 200)
      const denied = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > result.seq)
      ctx.check('other-shapes.2', String(denied.result).includes(why), `the deny's message (${why}) reaches the agent as the refused tool's result`, denied.result)
    },
  },
  {
    id: 'cli-secondary-permission-flow', title: 'cli_secondary: an approval awaits a human, an allow runs the tool, a deny declines it, a second answer is 404', section: 'permission-request',
    clauses: ['permission-request.1', 'events.13', 'errors.3', 'sessions.13'], requires: ['cli_secondary'],
    async run(ctx) {
      const { session, ws } = await secondary(ctx)
      ws.send({ type: 'user_message', text: 'scenario:permission' })
      const asked = await ws.waitForEvent('permission_requested', ctx.deadlineMs)
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'awaiting_approval')
      // pendingPermissionCount is listed on SessionInfo, not required (session.1): compared when present.
      const info = (await ctx.http('GET', `/sessions/${session.id}`)).json?.session
      if (info && 'pendingPermissionCount' in info) ctx.equal('permission-request.1', info.pendingPermissionCount, 1, 'pendingPermissionCount while asked')
      ctx.created('sessions.13', await ctx.http('POST', `/sessions/${session.id}/permissions/${permissionRequestIdOf(asked)}`, { body: { behavior: 'allow' } }), 200)
      // events.13 names resolvedBy without its values; the compatibility cases note the protocol-7 client's.
      const resolved = await ws.waitForEvent('permission_resolved', ctx.deadlineMs)
      ctx.check('events.13', typeof resolved.resolvedBy === 'string', 'permission_resolved carries resolvedBy', resolved)
      const allowed = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('events.13', String(allowed.result).includes('hello'), 'the allowed command ran', allowed.result)
      ctx.errorStatus('errors.3', await ctx.http('POST', `/sessions/${session.id}/permissions/${permissionRequestIdOf(asked)}`, { body: { behavior: 'deny' } }), 404)
      ws.send({ type: 'user_message', text: 'scenario:permission' })
      const second = await ws.waitForEvent('permission_requested', ctx.deadlineMs, (e) => permissionRequestIdOf(e) !== permissionRequestIdOf(asked))
      ws.send({ type: 'permission_decision', requestId: permissionRequestIdOf(second), behavior: 'deny' })
      const denied = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > allowed.seq)
      ctx.check('events.13', !String(denied.result).includes('hello'), 'the denied command did not run', denied.result)
    },
  },
  {
    id: 'cli-secondary-question', section: 'permission-request',
    title: 'cli_secondary: a question codex asks its user, when it reaches the client as a permission request, is settled by the decision and reported; the turn ends',
    clauses: ['permission-request.1', 'createsessionrequest.1'], requires: ['cli_secondary', scripted('cli_secondary', 'question')],
    async run(ctx) {
      const { ws } = await open(ctx, 'cli_secondary', { questionBehavior: 'ask' })
      ws.send({ type: 'user_message', text: 'scenario:question' })
      const first: any = await ws.waitFor((f: any) => f.type === 'event' && (f.event.type === 'permission_requested' || f.event.type === 'turn_result'), ctx.deadlineMs, 'permission_requested or turn_result')
      if (first.event.type === 'turn_result') {
        ctx.observe(false, 'codex\'s question never reached the client: the turn ended without a permission request (the spec does not say how an engine\'s questions reach the client)')
        return
      }
      const requestId = permissionRequestIdOf(first.event)
      const request = first.event.request ?? {}
      const questions: Array<{ question?: string; options?: Array<{ label?: string }> }> = Array.isArray(request.input?.questions) ? request.input.questions : []
      const answers = Object.fromEntries(questions.map((q) => [String(q.question), String(q.options?.[0]?.label ?? '')]))
      ws.send({ type: 'permission_decision', requestId, behavior: 'allow', updatedInput: { ...(request.input ?? {}), answers } })
      const resolved = await ws.waitForEvent('permission_resolved', ctx.deadlineMs, (e) => e.requestId === requestId)
      ctx.equal('permission-request.1', resolved.behavior, 'allow', 'permission_resolved after the permission_decision')
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > resolved.seq)
      ctx.check('permission-request.1', result.isError === false, 'the turn goes on after the answer and ends', result)
    },
  },
  {
    id: 'compat-permission-request-id', title: 'protocol-7 client: PermissionRequest carries `id`; permission_decision answers with it; resolvedBy client', section: 'permission-request',
    clauses: ['permission-request.1', 'other-shapes.6', 'commands.2'], requires: ['cli_primary'],
    cells: { states: ['awaiting_approval'] },
    async run(ctx) {
      const { conn, request } = await asked(ctx)
      conn.decide(request, { behavior: 'allow' })
      const resolved = await resolvedAfter(ctx, conn, request.id, 'the WebSocket')
      ctx.nonStrict(resolved.resolvedBy === 'client', `resolvedBy of a WebSocket answer is ${JSON.stringify(resolved.resolvedBy)}, not the protocol-7 client's 'client' (the spec names only 'timeout')`)
    },
  },
]
