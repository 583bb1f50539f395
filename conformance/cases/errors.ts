/** The cases of § Errors: each case's first clause is `errors.N`. */
import { Unsupported, type Case } from '../types.ts'
import { upload, secondary, postJob, requireRunningQueue, parked, statusOf, transcript } from '../harness/case-helpers/index.ts'
import { permissionRequestIdOf } from '../harness/permission-request.ts'

export const errorsCases: Case[] = [
  {
    id: 'create-malformed-json-400', title: 'malformed JSON and a non-object body are 400', section: 'errors',
    clauses: ['errors.4', 'errors.11'], requires: [],
    async run(ctx) {
      ctx.errorStatus('errors.11', await ctx.http('POST', '/sessions', { raw: '{"profile":', headers: { 'content-type': 'application/json' } }), 400)
      ctx.errorStatus('errors.11', await ctx.http('POST', '/sessions', { body: [1, 2, 3] }), 400)
    },
  },
  {
    id: 'create-generated-hostile-bodies', title: 'generated hostile create bodies get a 2xx or 4xx, never a 5xx', section: 'errors',
    clauses: ['errors.11', 'createsessionrequest.1'], requires: ['provider'],
    async run(ctx) {
      const fields = ['profile', 'cwd', 'prompt', 'permissionMode', 'model', 'maxTurns', 'capabilities', 'scope', 'meta', 'includePartialMessages', 'approvalTimeoutMs', 'questionBehavior']
      const values = () => [null, 0, -1, 1e308, '', 'x'.repeat(300), [], {}, [1, 'a'], { a: { b: [null] } }, true, '\u0000', 'default'][Math.floor(ctx.random() * 13)]
      for (let i = 0; i < 60; i++) {
        const body: Record<string, unknown> = {}
        for (const f of fields) if (ctx.random() < 0.3) body[f] = values()
        const res = await ctx.http('POST', '/sessions', { body })
        ctx.check('errors.11', res.status < 500, `no 5xx for ${JSON.stringify(body)}`, `HTTP ${res.status} ${res.text.slice(0, 120)}`)
        if (res.status === 201) await ctx.http('DELETE', `/sessions/${res.json.session.id}`)
      }
    },
  },
  {
    id: 'ws-protocol-error-bad-frames', title: 'bad frames get protocol_error and the socket stays usable', section: 'errors',
    clauses: ['errors.12', 'websocket-framing.1', 'websocket-framing.2'], requires: ['provider'],
    async run(ctx) {
      const { ws } = await ctx.idleSession()
      const bad = ['this is not json', '[1,2]', '"str"', '{"type":"no_such_command"}', '{"type":"user_message"}', '{"type":"user_message","text":42}', '{"type":"set_model","model":7}', '{"type":"permission_decision","requestId":"r","behavior":"perhaps"}', '{}']
      for (const frame of bad) ws.send(frame)
      await ws.waitFor(() => ws.frames.filter((f) => f.type === 'protocol_error').length >= bad.length, ctx.deadlineMs, `${bad.length} protocol_error frames`)
      ctx.check('errors.12', ws.frames.filter((f) => f.type === 'protocol_error').every((f) => typeof f.message === 'string'), 'protocol_error frames with a message', ws.frames)
      ws.send({ type: 'user_message', text: 'still usable?' })
      ctx.equal('errors.12', (await ws.waitForEvent('turn_result', ctx.deadlineMs)).isError, false, 'a turn after the bad frames')
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
    id: 'parking-failures-are-tool-output', title: 'a failed result and a lapsed deadline reach the agent as tool output, not a session error', section: 'errors',
    clauses: ['errors.13', 'session-status-values.4', 'events.14'], requires: ['provider', 'parking'],
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
    id: 'profile-unavailable-503', title: 'create and job submit on a profile the credential probe reports unavailable answer 503 with its reason', section: 'errors',
    clauses: ['errors.10', 'server-configuration.19', 'server-configuration.20', 'profile.9'], requires: ['requireAvailableProfile', 'profile:unavailable'],
    async run(ctx) {
      const profile = ctx.profile('unavailable')
      // The probe runs after listen, fire-and-forget: wait for its verdict to show.
      let listed: any
      for (const deadline = Date.now() + ctx.deadlineMs; Date.now() < deadline;) {
        listed = (await ctx.http('GET', '/profiles')).json?.profiles?.find((p: any) => p.name === profile)
        if (listed?.available !== undefined) break
        await new Promise((r) => setTimeout(r, 50))
      }
      ctx.check('profile.9', listed?.available === false && typeof listed?.unavailableReason === 'string', 'ProfileInfo available: false with unavailableReason', listed)
      const create = await ctx.http('POST', '/sessions', { body: { profile, cwd: ctx.manifest.cwdRoot, prompt: 'hi' } })
      ctx.errorStatus('errors.10', create, 503)
      // "answers 503 with the probe's reason": somewhere in the body, whose shape is open (errors.16).
      ctx.check('server-configuration.20', typeof listed.unavailableReason === 'string' && (create.text.includes(listed.unavailableReason) || create.text.includes(JSON.stringify(listed.unavailableReason).slice(1, -1))), "the probe's reason in the error", create.text.slice(0, 200))
      if (ctx.manifest.features.includes('queue')) {
        const job = await ctx.http('POST', '/jobs', { body: { session: { profile, cwd: ctx.manifest.cwdRoot, prompt: 'hi' } } })
        ctx.errorStatus('errors.10', job, 503)
      }
      const fine = await ctx.http('POST', '/sessions', { body: { profile: ctx.profile('provider') } })
      ctx.status('server-configuration.20', fine, 201)
      await ctx.http('DELETE', `/sessions/${fine.json?.session?.id}`)
    },
  },
  {
    id: 'cli-secondary-attachments', title: 'cli_secondary accepts text attachments and refuses a PDF with 415', section: 'errors',
    clauses: ['errors.8', 'engine-capability-record.1'], requires: ['cli_secondary', 'attachments'],
    async run(ctx) {
      const { session, ws } = await secondary(ctx)
      const upload = (body: string, type: string, name: string) => ctx.http('POST', `/sessions/${session.id}/attachments?name=${name}`, { raw: body, headers: { 'content-type': type } })
      ctx.errorStatus('errors.8', await upload('%PDF-1.4\n', 'application/pdf', 'a.pdf'), 415)
      const text = await upload('attached words', 'text/plain', 'a.txt')
      ctx.created('engine-capability-record.1', text, 201)
      ws.send({ type: 'user_message', text: 'read it', attachmentIds: [(text.json?.attachment ?? text.json)?.id] })
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('engine-capability-record.1', String(result.result).includes('attached words'), 'the text attachment reached the engine inlined', result.result)
    },
  },
  {
    id: 'attachments-refusals', title: 'an unaccepted media type is 415; a file or session over its cap is 413', section: 'errors',
    clauses: ['errors.8', 'errors.7', 'sessions.16', 'limits.2', 'limits.3'], requires: ['provider', 'attachments'],
    async run(ctx) {
      const fileCap = ctx.manifest.limits?.attachmentMaxFileBytes
      const sessionCap = ctx.manifest.limits?.attachmentMaxSessionBytes
      if (!fileCap || !sessionCap || sessionCap / fileCap > 16) throw new Unsupported('the manifest gives no small attachment caps (limits.attachmentMaxFileBytes / attachmentMaxSessionBytes)')
      const session = await ctx.createSession({})
      ctx.errorStatus('errors.8', await upload(ctx, session.id, 'PK', 'application/zip', 'a.zip'), 415)
      const kinds = session.capabilities?.attachments
      if (Array.isArray(kinds) && !(kinds.includes('image') && kinds.includes('text'))) throw new Unsupported(`the capability record does not accept images and text (${kinds.join(', ')})`)
      ctx.created('sessions.16', await upload(ctx, session.id, 'GIF89a', 'image/gif', 'a.gif'), 201)
      ctx.errorStatus('limits.2', await upload(ctx, session.id, 'x'.repeat(fileCap + 1), 'text/plain'), 413)
      let total = 6
      let last
      while (total <= sessionCap) {
        last = await upload(ctx, session.id, 'y'.repeat(fileCap), 'text/plain')
        total += fileCap
        // Exact: every upload that keeps the session within its cap is accepted.
        if (last.status < 200 || last.status >= 300) {
          ctx.check('limits.3', total > sessionCap, `uploads within the session cap (${sessionCap} bytes) accepted`, `refused at ${total} bytes: HTTP ${last.status}`)
          break
        }
      }
      ctx.errorStatus('limits.3', last!, 413)
    },
  },
  {
    id: 'host-files-read-over-cap-413', title: '/fs/read of a file over hostFiles.maxFileBytes is 413; a file of exactly the cap is read', section: 'errors',
    clauses: ['errors.7', 'server-configuration.8', 'engine-session-stores-and-host-files.5'], requires: ['hostFiles', 'cli_secondary'],
    async run(ctx) {
      // errors.7: "413 | /fs/read over maxFileBytes". /fs/write is bounded too, so the files come from
      // the engine: one shell command in the session's cwd (inside the host-file roots, which follow
      // allowedCwdRoots), answered `allow` if the engine asks.
      const cap = ctx.manifest.limits?.hostFilesMaxFileBytes
      if (!cap) throw new Unsupported('the manifest gives no limits.hostFilesMaxFileBytes')
      const root = ctx.manifest.cwdRoot!
      const [atCap, overCap] = [`${ctx.unique('kit-at-cap')}.txt`, `${ctx.unique('kit-over-cap')}.txt`]
      const command = `head -c ${cap} /dev/zero | tr '\\000' x > ${atCap} && head -c ${cap + 1} /dev/zero | tr '\\000' x > ${overCap}`
      const { session, ws } = await secondary(ctx)
      ws.send({ type: 'user_message', text: `scenario:${JSON.stringify({ name: 'kit-big-files', steps: [{ type: 'tool', name: 'Bash', input: { command } }, { type: 'text', text: 'made them' }] })}` })
      const answered = new Set<number>()
      for (;;) {
        const { event } = await ws.waitFor((f) => f.type === 'event' && (f.event.type === 'turn_result' || (f.event.type === 'permission_requested' && !answered.has(f.event.seq))), ctx.deadlineMs, 'permission_requested or turn_result')
        if (event.type === 'turn_result') break
        answered.add(event.seq)
        await ctx.http('POST', `/sessions/${session.id}/permissions/${permissionRequestIdOf(event)}`, { body: { behavior: 'allow' } })
      }
      const read = (name: string) => ctx.http('GET', `/fs/read?path=${encodeURIComponent(`${root}/${name}`)}`)
      const whole = await read(atCap)
      if (whole.status === 404) throw new Unsupported(`the engine's command made no file in cwdRoot (${whole.text.slice(0, 120)})`)
      ctx.check('engine-session-stores-and-host-files.5', whole.status === 200 && whole.json?.content === 'x'.repeat(cap), `a file of exactly maxFileBytes (${cap}) read whole`, `HTTP ${whole.status} ${whole.text.slice(0, 120)}`)
      ctx.errorStatus('errors.7', await read(overCap), 413)
    },
  },
  {
    id: 'ws-user-message-unknown-attachment', title: 'a user_message naming an attachment id the session never issued is a protocol_error', section: 'errors',
    clauses: ['errors.12', 'messages-and-attachments.3', 'commands.1'], requires: ['provider', 'attachments'],
    async run(ctx) {
      // messages-and-attachments.3: attachmentIds carry ids an upload returned; an id no upload
      // returned is bad client input, which errors.12 answers with a protocol_error frame.
      const { ws } = await ctx.idleSession()
      const id = `never-uploaded-${Math.floor(ctx.random() * 1e9)}`
      ws.send({ type: 'user_message', text: 'read the file', attachmentIds: [id] })
      await ws.waitFor((f) => f.type === 'protocol_error', ctx.deadlineMs, `a protocol_error for the unknown attachment id ${id}`)
    },
  },
  {
    id: 'profiles-managed-missing-config-dir-refused', title: 'a managed cli_primary profile whose configDir does not exist is refused, as startup would refuse it', section: 'errors',
    clauses: ['errors.4', 'profile.2', 'errors.15'], requires: ['profileStore', 'principal:manager', 'cli_primary'],
    async run(ctx) {
      // profile.2 / errors.15: a configDir that does not exist fails startup; errors.4: a profile
      // create that startup would refuse is 400. The directory is named inside the kit's cwdRoot
      // (inside allowedConfigDirRoots), so the roots rule (errors.5, 403) is not what refuses it; a
      // target that cannot place a missing directory inside its roots may still answer that 403.
      const cwd = ctx.manifest.cwdRoot
      if (!cwd) throw new Unsupported('the manifest gives no cwdRoot inside allowedConfigDirRoots')
      const name = ctx.unique('kit-missing-dir')
      const res = await ctx.http('POST', '/profiles', { as: 'manager', body: { name, engine: 'cli_primary', configDir: `${cwd.replace(/\/$/, '')}/${name}-does-not-exist` } })
      if (res.status < 300) ctx.onCleanup(() => ctx.http('DELETE', `/profiles/${encodeURIComponent(name)}`, { as: 'manager' }))
      ctx.check('errors.4', res.status === 400 || res.status === 403, 'the create refused: 400 (errors.4), or 403 where the missing directory cannot be placed inside allowedConfigDirRoots (errors.5)', `HTTP ${res.status} ${res.text.slice(0, 200)}`)
    },
  },
  {
    id: 'jobs-create-bad-session-400', title: 'POST /jobs refuses what POST /sessions refuses as bad input: a permission mode outside the record, mcpServers on a provider session', section: 'errors',
    clauses: ['errors.4', 'other-shapes.4', 'createsessionrequest.3'], requires: ['provider', 'queue'],
    async run(ctx) {
      await requireRunningQueue(ctx)
      const profile = ctx.profile('provider')
      ctx.errorStatus('errors.4', await postJob(ctx, { profile, prompt: 'hello', permissionMode: 'no-such-mode' }), 400)
      ctx.errorStatus('errors.4', await postJob(ctx, { profile, prompt: 'hello', mcpServers: { x: { type: 'http', url: 'http://127.0.0.1:9/mcp' } } }), 400)
    },
  },
]
