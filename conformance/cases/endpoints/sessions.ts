/** The cases of § Sessions: each case's first clause is `sessions.N`. */
import { GatewayError } from '../../../client/index.ts'
import { permissionRequestIdOf } from '../../harness/permission-request.ts'
import { NonStrict, Unsupported, type Case } from '../../types.ts'
import { answerOf, upload, UNKNOWN_ID, primary, asked, resolvedAfter, openCwdSession, SCRATCH_WRITTEN, writeDeliverThenWait, parked, casesInStates, RENAME_IN_STATES, DELETE_IN_STATES, attachmentsCase, mcpStatusCase } from '../../harness/case-helpers/index.ts'

export const sessionsCases: Case[] = [
  {
    id: 'sessions-create-201', title: 'POST /sessions creates a session: 201 with SessionInfo', section: 'sessions',
    clauses: ['sessions.2', 'session.1', 'what-the-service-does.3', 'what-the-service-does.5'], requires: ['provider'],
    async run(ctx) {
      const s = await ctx.createSession()
      // session.1 states `profile` is always the resolved name and `id` differs from sdkSessionId.
      // It lists the other fields without saying which are present at creation (no model yet, no
      // engine id, no turn yet), and the protocol-7 reference states no SessionInfo at creation:
      // an absent one is neither a fail nor a note.
      for (const field of ['id', 'status', 'profile']) ctx.check('session.1', field in s, `SessionInfo with field ${field}`, Object.keys(s))
      ctx.equal('session.1', s.profile, ctx.profile('provider'), 'profile (the resolved name)')
      if ('engine' in s) ctx.equal('what-the-service-does.5', s.engine, 'provider', 'engine')
      ctx.check('session.1', s.id !== s.sdkSessionId, 'a server id different from sdkSessionId', s)
    },
  },
  {
    id: 'sessions-implicit-default-profile', title: 'a profile named default is implicit when several are declared', section: 'sessions',
    clauses: ['sessions.2'], requires: ['provider'],
    async run(ctx) {
      if (ctx.profile('provider') !== 'default') throw new Unsupported('the manifest\'s provider profile is not named default; cannot observe the implicit rule')
      const res = await ctx.http('POST', '/sessions', { body: {} })
      ctx.status('sessions.2', res, 201)
      ctx.equal('sessions.2', res.json.session.profile, 'default', 'the implicit profile')
      await ctx.http('DELETE', `/sessions/${res.json.session.id}`)
    },
  },
  {
    id: 'sessions-unknown-profile-400', title: 'an unknown profile is a 400', section: 'sessions',
    clauses: ['sessions.2', 'errors.4'], requires: [],
    async run(ctx) {
      ctx.errorStatus('errors.4', await ctx.http('POST', '/sessions', { body: { profile: `no-such-profile-${Math.floor(ctx.random() * 1e6)}` } }), 400)
    },
  },
  {
    id: 'sessions-get-and-list', title: 'GET /sessions/:id reads it and GET /sessions lists it', section: 'sessions',
    clauses: ['sessions.1', 'sessions.3', 'what-the-service-does.3'], requires: ['provider'],
    async run(ctx) {
      const s = await ctx.createSession()
      const one = await ctx.http('GET', `/sessions/${s.id}`)
      ctx.status('sessions.3', one, 200)
      ctx.equal('sessions.3', one.json?.session?.id, s.id, 'session.id')
      const list = await ctx.http('GET', '/sessions')
      ctx.status('sessions.1', list, 200)
      ctx.check('sessions.1', Array.isArray(list.json?.sessions) && list.json.sessions.some((x: any) => x.id === s.id), 'the new session in {sessions}', list.text.slice(0, 200))
    },
  },
  {
    id: 'sessions-delete-closes-and-removes', title: 'DELETE closes and removes the session', section: 'sessions',
    clauses: ['sessions.5', 'what-the-service-does.3'], requires: ['provider'],
    async run(ctx) {
      const { session, ws } = await ctx.idleSession()
      const del = await ctx.http('DELETE', `/sessions/${session.id}`)
      ctx.check('sessions.5', del.status >= 200 && del.status < 300, 'a 2xx', del.status)
      await ws.waitForEvent('session_closed', ctx.deadlineMs)
      ctx.status('sessions.5', await ctx.http('GET', `/sessions/${session.id}`), 404)
    },
  },
  {
    id: 'sessions-unknown-id-404', title: 'an unknown session id is a 404 on every /sessions/:id route', section: 'sessions',
    clauses: ['sessions.3', 'errors.3', 'sessions.4', 'sessions.5', 'sessions.13'], requires: [],
    async run(ctx) {
      for (const [method, suffix, body] of [['GET', ''], ['PATCH', '', { title: 'x' }], ['DELETE', ''], ['POST', '/permissions/r1', { behavior: 'allow' }]] as const) {
        ctx.errorStatus('errors.3', await ctx.http(method, `/sessions/${UNKNOWN_ID}${suffix}`, { body }), 404)
      }
    },
  },
  {
    id: 'sessions-mcp-status', title: 'GET /sessions/:id/mcp answers per the record; actions without mcpServerActions are 501', section: 'sessions',
    clauses: ['sessions.9', 'sessions.10', 'errors.9'], requires: ['provider'],
    async run(ctx) {
      const s = await ctx.createSession()
      const status = await ctx.http('GET', `/sessions/${s.id}/mcp`)
      if (s.capabilities?.mcpStatus === false) ctx.status('errors.9', status, 501)
      else ctx.status('sessions.9', status, 200)
      if (s.capabilities?.mcpServerActions === false) {
        ctx.errorStatus('errors.9', await ctx.http('POST', `/sessions/${s.id}/mcp/anything`, { body: { action: 'reconnect' } }), 501)
      }
    },
  },
  {
    id: 'sessions-wrong-method-405', title: 'a method the route lacks is refused (405 in protocol 7)', section: 'sessions',
    clauses: ['sessions.1'], requires: [],
    async run(ctx) {
      const res = await ctx.http('PUT', '/sessions', { body: {} })
      ctx.check('sessions.1', res.status >= 400 && res.status < 500, 'a 4xx', res.status)
      ctx.observe(res.status === 405, `PUT /sessions answered ${res.status}; protocol 7 answers 405 (the spec gives no status)`)
    },
  },
  {
    id: 'executions-unknown-404', title: 'a result for an unknown execution id is 404', section: 'sessions',
    clauses: ['sessions.15', 'errors.3'], requires: [],
    async run(ctx) {
      ctx.errorStatus('errors.3', await ctx.http('POST', '/executions/no-such-execution/result', { body: { status: 'ok', output: { type: 'text', value: 'x' } } }), 404)
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
    id: 'cli-primary-produced-files', title: 'a file the engine wrote is announced with file_produced and served by its id only (attachment, nosniff)', section: 'sessions',
    clauses: ['sessions.11', 'events.15', 'events.16', 'events.18'], requires: ['cli_primary'],
    async run(ctx) {
      const { session, ws } = await primary(ctx)
      ws.send({ type: 'user_message', text: 'scenario:write-file' })
      const skills = await ws.waitForEvent('skills', ctx.deadlineMs)
      ctx.check('events.15', Array.isArray(skills.skills), 'SkillInfo[] after init', skills)
      const titles = await ws.waitForEvent('tool_titles', ctx.deadlineMs)
      // events.16: human labels, so each a non-empty string (an empty one labels nothing).
      ctx.check('events.16', typeof titles.titles === 'object' && Object.values(titles.titles).every((t) => typeof t === 'string' && t.length > 0), 'non-empty labels keyed by wire tool name', titles)
      const asked = await ws.waitForEvent('permission_requested', ctx.deadlineMs)
      ws.send({ type: 'permission_decision', requestId: permissionRequestIdOf(asked), behavior: 'allow' })
      const produced = await ws.waitForEvent('file_produced', ctx.deadlineMs)
      ctx.check('events.18', typeof produced.fileId === 'string' && produced.path.startsWith('/'), 'an opaque fileId and an absolute path', produced)
      const list = await ctx.http('GET', `/sessions/${session.id}/produced`)
      ctx.check('sessions.11', list.json?.files?.some((f: any) => f.fileId === produced.fileId), 'the announced file listed', list.json)
      const file = await ctx.http('GET', `/sessions/${session.id}/produced/${produced.fileId}`)
      ctx.status('sessions.11', file, 200)
      ctx.check('sessions.11', /^attachment/.test(file.headers['content-disposition'] ?? '') && file.headers['x-content-type-options'] === 'nosniff', 'attachment disposition and nosniff', file.headers)
      ctx.errorStatus('events.18', await ctx.http('GET', `/sessions/${session.id}/produced/${encodeURIComponent('../../etc/passwd')}`), 404)
    },
  },
  {
    id: 'cli-primary-mcp-servers', title: 'GET /mcp lists session MCP servers without env or headers; POST actions refresh the list', section: 'sessions',
    clauses: ['sessions.9', 'other-shapes.7', 'sessions.10'], requires: ['cli_primary'],
    async run(ctx) {
      const secret = `kit-secret-${Math.floor(ctx.random() * 1e9)}`
      const { session, ws } = await primary(ctx, { mcpServers: { docs: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { authorization: `Bearer ${secret}` }, env: { TOKEN: secret } } } })
      ctx.requireCapability(session, 'mcpStatus')
      // Wait for the engine to be up (idle), not for an event the spec obliges no engine to emit.
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle')
      const listed = await ctx.http('GET', `/sessions/${session.id}/mcp`)
      ctx.status('sessions.9', listed, 200)
      ctx.check('other-shapes.7', listed.json?.servers?.some((s: any) => s.name === 'docs' && typeof s.status === 'string'), 'the docs server with a status', listed.json)
      ctx.check('other-shapes.7', !listed.text.includes(secret), 'no environment value or header in the response', listed.text.slice(0, 300))
      ctx.requireCapability(session, 'mcpServerActions')
      const toggled = await ctx.http('POST', `/sessions/${session.id}/mcp/docs`, { body: { action: 'disable' } })
      ctx.status('sessions.10', toggled, 200)
      ctx.check('sessions.10', Array.isArray(toggled.json?.servers), 'the refreshed server list', toggled.json)
    },
  },
  {
    id: 'attachments-upload-serve-send', title: 'an uploaded attachment is served back by id and sent with a message as metadata only', section: 'sessions',
    clauses: ['sessions.7', 'sessions.8', 'messages-and-attachments.2', 'messages-and-attachments.3', 'server-configuration.11', 'what-the-service-does.9'], requires: ['provider', 'attachments'],
    async run(ctx) {
      const marker = `marker-${Math.floor(ctx.random() * 1e9)}`
      const { session, ws } = await ctx.idleSession()
      const kinds = session.capabilities?.attachments
      if (Array.isArray(kinds) && !kinds.includes('text')) throw new Unsupported(`the session's capability record accepts no text attachments (${kinds.join(', ')})`)
      const up = await upload(ctx, session.id, `the file says ${marker}`, 'text/plain')
      // sessions.7 gives no status for the upload; protocol 7 answers 201 {attachment}.
      ctx.created('sessions.7', up, 201)
      const meta = up.json?.attachment ?? up.json
      ctx.check('sessions.7', typeof meta?.id === 'string', 'an UploadAttachmentResponse containing the attachment id', up.json)
      ctx.noteNonStrict(meta.name === 'notes.txt' && typeof meta.mediaType === 'string', `upload response without protocol 7's {attachment: {id, name, mediaType, bytes}}: ${up.text.slice(0, 160)}`)
      const back = await ctx.http('GET', `/sessions/${session.id}/attachments/${meta.id}`)
      ctx.equal('sessions.8', back.text, `the file says ${marker}`, 'the bytes served back')
      ctx.check('sessions.8', /^attachment/.test(back.headers['content-disposition'] ?? '') && back.headers['x-content-type-options'] === 'nosniff', 'attachment disposition and nosniff', back.headers)
      ws.send({ type: 'user_message', text: 'read the file', attachmentIds: [meta.id] })
      const user = await ws.waitForEvent('user_message', ctx.deadlineMs, (e) => Array.isArray(e.attachments))
      ctx.check('messages-and-attachments.3', user.attachments.some((a: any) => a.id === meta.id), 'the user_message names the attachment by id', user)
      // The model may quote the file back; what must not carry the bytes is the message that names the attachment.
      ctx.check('messages-and-attachments.2', !JSON.stringify(ws.events().filter((e) => e.type === 'user_message')).includes(marker), 'no attachment bytes in the user_message', 'the marker inside a user_message')
    },
  },
  {
    id: 'compat-permission-rest-by-id', title: 'protocol-7 client: POST /sessions/:id/permissions/:requestId takes the request `id`; resolvedBy client', section: 'sessions',
    clauses: ['sessions.13', 'permission-request.1', 'events.13'], requires: ['cli_primary'],
    async run(ctx) {
      const { id, conn, client, request } = await asked(ctx)
      try {
        const answer = await client.resolvePermission(id, request, { behavior: 'allow' })
        ctx.nonStrict(JSON.stringify(answer) === '{"resolved":true}', `the REST answer body is ${JSON.stringify(answer)}, protocol 7 answers {resolved: true} (ResolvePermissionResponse is not shown)`)
      } catch (err) {
        if (err instanceof GatewayError) throw new NonStrict(`an answer by the request's id over REST was refused: ${err.message}`)
        throw err
      }
      const resolved = await resolvedAfter(ctx, conn, request.id, 'REST')
      ctx.nonStrict(resolved.resolvedBy === 'client', `resolvedBy of a REST answer is ${JSON.stringify(resolved.resolvedBy)}, not the protocol-7 client's 'client' (its values: client, timeout, policy; the spec names only 'timeout')`)
    },
  },
  {
    id: 'cli-secondary-produced-files', title: 'cli_secondary: a file the engine wrote is announced with file_produced and served by its id (attachment, nosniff)', section: 'sessions',
    clauses: ['sessions.11', 'events.18', 'events.13'], requires: ['cli_secondary'],
    async run(ctx) {
      // events.18: when an engine writes a host file the session announces it (opaque fileId,
      // absolute path), and that announcement is the produced-files route's allowlist
      // (sessions.11). Codex writes files as a patch, which its default mode asks about first.
      const cwd = ctx.manifest.cwdRoot
      if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
      const session = await ctx.createSession({ profile: ctx.profile('cli_secondary'), cwd })
      const ws = await ctx.ws(session.id)
      const name = `kit-codex-${Math.floor(ctx.random() * 1e9)}.md`
      const content = `written by the agent ${name}\n`
      ws.send({ type: 'user_message', text: `scenario:${JSON.stringify({ name: 'codex-write', steps: [{ type: 'produce_file', path: name, content }, { type: 'text', text: 'Wrote it.' }] })}` })
      const first = await ws.waitFor((f) => f.type === 'event' && ['permission_requested', 'file_produced', 'turn_result'].includes(f.event?.type), ctx.deadlineMs, 'permission_requested, file_produced or turn_result')
      if (first.event.type === 'permission_requested') ws.send({ type: 'permission_decision', requestId: permissionRequestIdOf(first.event), behavior: 'allow' })
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('events.13', result.isError === false, 'the allowed write ran to a successful turn', result)
      const produced = ws.events().find((e) => e.type === 'file_produced' && String(e.path).endsWith(`/${name}`))
      ctx.check('events.18', produced !== undefined, `file_produced for ${name}, the file the engine wrote`, ws.events().map((e) => e.type))
      ctx.check('events.18', typeof produced.fileId === 'string' && produced.path.startsWith('/'), 'an opaque fileId and an absolute path', produced)
      const list = await ctx.http('GET', `/sessions/${session.id}/produced`)
      ctx.check('sessions.11', list.json?.files?.some((f: any) => f.fileId === produced.fileId), 'the announced file listed', list.json)
      const file = await ctx.http('GET', `/sessions/${session.id}/produced/${encodeURIComponent(produced.fileId)}`)
      ctx.status('sessions.11', file, 200)
      ctx.check('sessions.11', file.text === content, 'the file\'s bytes', file.text.slice(0, 200))
      ctx.check('sessions.11', /^attachment/.test(file.headers['content-disposition'] ?? '') && file.headers['x-content-type-options'] === 'nosniff', 'attachment disposition and nosniff', file.headers)
    },
  },
  {
    id: 'attachments-name-from-upload', title: 'an attachment sent with a message carries the name it was uploaded under', section: 'sessions',
    clauses: ['sessions.7', 'messages-and-attachments.2', 'messages-and-attachments.3'], requires: ['provider', 'attachments'],
    async run(ctx) {
      // sessions.7: the upload names the file (`?name=<filename>`); messages-and-attachments.2: the
      // MessageAttachment a user_message carries has `id` and `name` (plus media type and size).
      const { session, ws } = await ctx.idleSession()
      const kinds = session.capabilities?.attachments
      if (Array.isArray(kinds) && !kinds.includes('text')) throw new Unsupported(`the session's capability record accepts no text attachments (${kinds.join(', ')})`)
      const name = `kit-notes-${Math.floor(ctx.random() * 1e9)}.txt`
      const up = await ctx.http('POST', `/sessions/${session.id}/attachments?name=${encodeURIComponent(name)}`, { raw: 'a few words', headers: { 'content-type': 'text/plain' } })
      ctx.check('sessions.7', up.status >= 200 && up.status < 300, 'the upload accepted (a 2xx)', `HTTP ${up.status} ${up.text.slice(0, 200)}`)
      const meta = up.json?.attachment ?? up.json
      ctx.check('sessions.7', typeof meta?.id === 'string', 'an UploadAttachmentResponse containing the attachment id', up.json)
      ws.send({ type: 'user_message', text: 'read the file', attachmentIds: [meta.id] })
      const user = await ws.waitForEvent('user_message', ctx.deadlineMs, (e) => Array.isArray(e.attachments))
      const sent = user.attachments.find((a: any) => a?.id === meta.id)
      ctx.check('messages-and-attachments.3', sent !== undefined, 'the user_message names the attachment by id', user.attachments)
      ctx.equal('messages-and-attachments.2', sent.name, name, 'MessageAttachment.name (the name it was uploaded under)')
    },
  },
  {
    id: 'cli-primary-mcp-action-unknown-server', title: 'an MCP action on a server the session does not have is answered, and the session and gateway work on', section: 'sessions',
    clauses: ['sessions.10', 'sessions.3', 'commands.1'], requires: ['cli_primary'],
    async run(ctx) {
      // sessions.10 gives POST /mcp/:name one answer (the refreshed list) and no refusal for a
      // name the engine does not know: any status is accepted here. What the kit demands is that
      // the request is answered and leaves the gateway and the session working: the session still
      // lists its servers (sessions.10), runs a turn (commands.1) and reads (sessions.3). A first
      // turn shows the engine is up before the action, without relying on any status event.
      const { session, ws } = await openCwdSession(ctx, 'cli_primary')
      ctx.requireCapability(session, 'mcpServerActions')
      ws.send({ type: 'user_message', text: 'scenario:hello' })
      const first = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const unknown = ctx.unique('kit-no-such-server')
      const action = await answerOf(ctx.http('POST', `/sessions/${session.id}/mcp/${unknown}`, { body: { action: 'enable' } }))
      ctx.check('sessions.10', action.status !== undefined, 'an answer to the action (any status)', action.what)
      const listed = await answerOf(ctx.http('GET', `/sessions/${session.id}/mcp`))
      ctx.check('sessions.10', listed.status === 200, 'the gateway still answers, and the session still lists its MCP servers', listed.what)
      ws.send({ type: 'user_message', text: 'scenario:hello' })
      const second = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > first.seq).then(() => 'a turn_result', (err: Error) => `none: ${err.message.slice(0, 160)}`)
      ctx.check('commands.1', second === 'a turn_result', 'a second turn runs after the action', second)
      const read = await answerOf(ctx.http('GET', `/sessions/${session.id}`))
      ctx.check('sessions.3', read.status === 200, 'the session still reads', read.what)
    },
  },
  // DELETE on every engine and in every state (conformance/matrix); PATCH of a parked session (the
  // other states' PATCH is in the commands-in-state cases of § Commands).
  ...casesInStates(RENAME_IN_STATES, (state) => state === 'parked'),
  ...casesInStates(DELETE_IN_STATES),
  // Attachments on each engine (conformance/matrix).
  attachmentsCase('provider'),
  attachmentsCase('cli_primary'),
  attachmentsCase('cli_secondary'),
  // The MCP status route on cli_secondary (conformance/matrix); the other engines' are the cases above.
  mcpStatusCase('cli_secondary'),
]
