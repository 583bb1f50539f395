/** The cases of § Engine session stores and host files: each case's first clause is `engine-session-stores-and-host-files.N`. */
import { Unsupported, type Case } from '../../types.ts'
import { createHash } from 'node:crypto'
import { primary, engineSessionId, secondary, cwdRoot } from '../../harness/case-helpers/index.ts'

export const engineSessionStoresAndHostFilesCases: Case[] = [
  {
    id: 'unconfigured-fs-404', title: '/fs routes answer 404 unless host files are configured', section: 'engine-session-stores-and-host-files',
    clauses: ['engine-session-stores-and-host-files.8', 'errors.3'], requires: ['absent:hostFiles'],
    async run(ctx) {
      for (const path of ['/fs/roots', '/fs/list?path=/']) ctx.errorStatus('engine-session-stores-and-host-files.8', await ctx.http('GET', path), 404)
    },
  },
  {
    id: 'cli-primary-sdk-sessions-and-resume', title: '/sdk-sessions lists the engine\'s stored sessions within the roots; resume replays the history as replay events', section: 'engine-session-stores-and-host-files',
    clauses: ['engine-session-stores-and-host-files.1', 'server-configuration.4', 'authentication.4', 'events.10', 'createsessionrequest.1', 'authentication.9'], requires: ['cli_primary', 'principal:tenantA'],
    async run(ctx) {
      const word = `teal-${Math.floor(ctx.random() * 1e9)}`
      // allowedTools: the second turn's Bash runs unasked, so the history holds a tool result.
      const { session, ws } = await primary(ctx, { prompt: `remember ${word}`, allowedTools: ['Bash'] })
      const first = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      ws.send({ type: 'user_message', text: 'scenario:permission-write' })
      await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > first.seq)
      // The engine session id from SessionInfo (session.1), or from system_init when the target sends one.
      const sdkSessionId = (await ctx.http('GET', `/sessions/${session.id}`)).json?.session?.sdkSessionId ?? ws.events().find((e) => e.type === 'system_init')?.sdkSessionId
      if (typeof sdkSessionId !== 'string') throw new Unsupported('the session reports no sdkSessionId to resume from')
      const init = { sdkSessionId }
      const profile = encodeURIComponent(ctx.profile('cli_primary'))
      const listed = await ctx.http('GET', `/sdk-sessions?profile=${profile}&dir=${encodeURIComponent(ctx.manifest.cwdRoot!)}`)
      ctx.status('engine-session-stores-and-host-files.1', listed, 200)
      // The self target's buildRunnerConfig points CLAUDE_CONFIG_DIR elsewhere; the profile's directory must win,
      // so the transcript is found where the profile keeps its sessions (authentication.9).
      // SdkSessionSummary's shape is not shown: the engine session id anywhere in the answer will do.
      ctx.check('authentication.9', listed.text.includes(init.sdkSessionId), 'the finished session stored in the profile\'s config directory', listed.text.slice(0, 300))
      ctx.errorStatus('server-configuration.4', await ctx.http('GET', `/sdk-sessions?profile=${profile}&dir=/`), 403)
      // limit and offset are the route's query (engine-session-stores-and-host-files.1): values that
      // are no count may be refused or ignored, never fail the server.
      for (const query of ['limit=-1', 'limit=many', 'offset=-5']) {
        const odd = await ctx.http('GET', `/sdk-sessions?profile=${profile}&dir=${encodeURIComponent(ctx.manifest.cwdRoot!)}&${query}`)
        ctx.check('engine-session-stores-and-host-files.1', odd.status < 500, `/sdk-sessions?${query} answered (a refusal or a listing), not a server error`, `HTTP ${odd.status} ${odd.text.slice(0, 120)}`)
      }
      // authentication.4: refused to a scoped principal; "the status code of that refusal: not shown" (protocol 7: 404).
      const scoped = await ctx.http('GET', `/sdk-sessions?profile=${profile}`, { as: 'tenantA' })
      ctx.check('authentication.4', scoped.status >= 400, '/sdk-sessions refused to a scoped principal', `HTTP ${scoped.status}`)
      ctx.observe(scoped.status === 404, `/sdk-sessions refused to a scoped principal with ${scoped.status} (protocol 7: 404; authentication.4: not shown)`)
      const resumed = await primary(ctx, { resume: init.sdkSessionId })
      const replayed = await resumed.ws.waitForEvent('assistant_message', ctx.deadlineMs, (e) => e.replay === true)
      ctx.check('events.10', JSON.stringify(replayed.message).includes(word), 'the resumed history arrives flagged replay: true', replayed)
      // events.10: user messages carry `synthetic` for tool results, replayed ones as live ones.
      const toolResult = (e: any) => Array.isArray(e.message?.content) && e.message.content.some((b: any) => b?.type === 'tool_result')
      const replayedResult = await resumed.ws.waitForEvent('user_message', ctx.deadlineMs, (e) => e.replay === true && toolResult(e))
      ctx.check('events.10', replayedResult.synthetic === true, 'a replayed tool result is a user_message with synthetic: true', replayedResult)
    },
  },
  {
    id: 'cli-secondary-sdk-sessions-and-resume', title: "cli_secondary: /sdk-sessions lists the engine's threads within the roots; resume in a fresh engine process replays the history", section: 'engine-session-stores-and-host-files',
    clauses: ['engine-session-stores-and-host-files.1', 'server-configuration.4', 'events.10', 'createsessionrequest.1'], requires: ['cli_secondary'],
    async run(ctx) {
      const word = `amber-${Math.floor(ctx.random() * 1e9)}`
      const { session, ws } = await secondary(ctx, { prompt: `remember ${word}` })
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const init = { sdkSessionId: await engineSessionId(ctx, ws, session.id) }
      await ctx.http('DELETE', `/sessions/${session.id}`)
      const profile = encodeURIComponent(ctx.profile('cli_secondary'))
      const listed = await ctx.http('GET', `/sdk-sessions?profile=${profile}&dir=${encodeURIComponent(ctx.manifest.cwdRoot!)}`)
      ctx.status('engine-session-stores-and-host-files.1', listed, 200)
      // SdkSessionSummary's shape is not shown (other-shapes.6): the listing names the thread somewhere.
      ctx.check('engine-session-stores-and-host-files.1', listed.text.includes(init.sdkSessionId), 'the finished thread is listed', listed.text.slice(0, 300))
      ctx.errorStatus('server-configuration.4', await ctx.http('GET', `/sdk-sessions?profile=${profile}&dir=/`), 403)
      const resumed = await secondary(ctx, { resume: init.sdkSessionId })
      const replayed = await resumed.ws.waitForEvent('assistant_message', ctx.deadlineMs, (e) => e.replay === true)
      ctx.check('events.10', JSON.stringify(replayed.message).includes(word), 'the resumed history arrives flagged replay: true', replayed)
      resumed.ws.send({ type: 'user_message', text: 'continue' })
      const next = await resumed.ws.waitForEvent('turn_result', ctx.deadlineMs)
      ctx.check('createsessionrequest.1', next.isError === false, 'the resumed thread runs a new turn', next)
    },
  },
  {
    id: 'host-files-roots-list-find-read', title: '/fs/roots, list, find and read inside the roots; outside is a uniform 404, a relative path 403, scoped principals 404', section: 'engine-session-stores-and-host-files',
    clauses: ['engine-session-stores-and-host-files.2', 'engine-session-stores-and-host-files.3', 'engine-session-stores-and-host-files.4', 'engine-session-stores-and-host-files.5', 'server-configuration.8', 'what-the-service-does.10', 'authentication.4'],
    requires: ['hostFiles', 'hostFilesWrite', 'principal:tenantA'],
    async run(ctx) {
      const root = ctx.manifest.cwdRoot
      if (!root) throw new Unsupported('the manifest gives no cwdRoot')
      const roots = await ctx.http('GET', '/fs/roots')
      ctx.status('engine-session-stores-and-host-files.2', roots, 200)
      // ListHostRootsResponse states `canWrite`; the rest of the /fs shapes is not shown
      // (engine-session-stores-and-host-files.7): a listing only has to name what it lists.
      ctx.check('engine-session-stores-and-host-files.2', roots.text.includes(JSON.stringify(root).slice(1, -1)) && typeof roots.json?.canWrite === 'boolean', 'the cwd root listed, and canWrite', roots.json)
      const name = `${ctx.unique('kit-find')}.txt`
      const path = `${root}/${name}`
      ctx.created('engine-session-stores-and-host-files.6', await ctx.http('PUT', '/fs/write', { body: { path, content: 'hello host' } }), 200)
      const list = await ctx.http('GET', `/fs/list?path=${encodeURIComponent(root)}`)
      ctx.check('engine-session-stores-and-host-files.3', list.status === 200 && list.text.includes(name), 'the new file in the listing', list.text.slice(0, 300))
      const find = await ctx.http('GET', `/fs/find?path=${encodeURIComponent(root)}&q=${encodeURIComponent(name.slice(0, 12))}`)
      ctx.check('engine-session-stores-and-host-files.4', find.status === 200 && find.text.includes(name), 'find matches the file by a subsequence of its name', find.text.slice(0, 300))
      const read = await ctx.http('GET', `/fs/read?path=${encodeURIComponent(path)}`)
      ctx.check('engine-session-stores-and-host-files.5', read.json?.content === 'hello host' && typeof (read.json?.hash ?? read.json?.sha256) === 'string', 'content and its sha256', read.json)
      // The spec gives no status for a path outside the roots, a missing file or a relative path:
      // each must be refused; protocol 7's uniform 404 (and 403 for a malformed path) is a note.
      ctx.refusal('server-configuration.8', await ctx.http('GET', `/fs/read?path=${encodeURIComponent(`${root}/../../../../etc/hostname`)}`), { protocol7: 404 })
      ctx.refusal('server-configuration.8', await ctx.http('GET', `/fs/read?path=${encodeURIComponent('/etc/hostname')}`), { protocol7: 404 })
      ctx.refusal('server-configuration.8', await ctx.http('GET', `/fs/read?path=${encodeURIComponent(`${root}/no-such-file`)}`), { protocol7: 404 })
      ctx.refusal('server-configuration.8', await ctx.http('GET', '/fs/read?path=relative/path'), { protocol7: 403 })
      // authentication.4: refused to a scoped principal; the status is not shown (protocol 7: 404).
      const scoped = await ctx.http('GET', '/fs/roots', { as: 'tenantA' })
      ctx.check('authentication.4', scoped.status >= 400, '/fs/roots refused to a scoped principal', `HTTP ${scoped.status}`)
      ctx.observe(scoped.status === 404, `/fs/roots refused to a scoped principal with ${scoped.status} (protocol 7: 404; authentication.4: not shown)`)
    },
  },
  {
    id: 'host-files-conditional-write', title: 'PUT /fs/write creates only new files, replaces only with the current hash, never creates directories', section: 'engine-session-stores-and-host-files',
    clauses: ['engine-session-stores-and-host-files.6', 'other-shapes.8', 'errors.6', 'errors.3'], requires: ['hostFiles', 'hostFilesWrite'],
    async run(ctx) {
      const root = ctx.manifest.cwdRoot
      if (!root) throw new Unsupported('the manifest gives no cwdRoot')
      const path = `${root}/${ctx.unique('kit-write')}.txt`
      const created = await ctx.http('PUT', '/fs/write', { body: { path, content: 'one' } })
      ctx.created('engine-session-stores-and-host-files.6', created, 200)
      ctx.errorStatus('errors.6', await ctx.http('PUT', '/fs/write', { body: { path, content: 'blind overwrite' } }), 409)
      const read = await ctx.http('GET', `/fs/read?path=${encodeURIComponent(path)}`)
      // other-shapes.8: the read answer "has content plus sha256"; the field name is open (protocol 7: `hash`).
      const hash = read.json?.hash ?? read.json?.sha256
      ctx.equal('other-shapes.8', hash, createHash('sha256').update('one').digest('hex'), 'the sha256 of the current content')
      const replaced = await ctx.http('PUT', '/fs/write', { body: { path, content: 'two', expectedHash: hash } })
      ctx.created('other-shapes.8', replaced, 200)
      ctx.errorStatus('errors.6', await ctx.http('PUT', '/fs/write', { body: { path, content: 'three', expectedHash: hash } }), 409)
      ctx.equal('other-shapes.8', (await ctx.http('GET', `/fs/read?path=${encodeURIComponent(path)}`)).json?.content, 'two', 'content after the stale write was refused')
      ctx.errorStatus('errors.3', await ctx.http('PUT', '/fs/write', { body: { path: `${root}/no-such-dir-${Math.floor(ctx.random() * 1e9)}/f.txt`, content: 'x' } }), 404)
    },
  },
  {
    id: 'compat-host-file-shapes', title: "protocol 7 /fs/write answers {path, bytes, hash, modifiedAt}, /fs/find {base, matches}; the protocol-7 client reads entry bytes, modifiedAt and match relative", section: 'engine-session-stores-and-host-files',
    clauses: ['engine-session-stores-and-host-files.7'], requires: ['hostFiles', 'hostFilesWrite'],
    async run(ctx) {
      const root = ctx.manifest.cwdRoot
      if (!root) throw new Unsupported('the manifest gives no cwdRoot')
      const name = `kit-compat-${Math.floor(ctx.random() * 1e9)}.txt`
      const written = await ctx.http('PUT', '/fs/write', { body: { path: `${root}/${name}`, content: 'compat' } })
      ctx.created('engine-session-stores-and-host-files.6', written, 200)
      const w = written.json ?? {}
      ctx.nonStrict(typeof w.path === 'string' && w.bytes === 6 && typeof w.hash === 'string' && typeof w.modifiedAt === 'number', `PUT /fs/write answered ${written.text.slice(0, 200)}; protocol 7 answers {path, bytes, hash, modifiedAt}`)
      const list = await ctx.http('GET', `/fs/list?path=${encodeURIComponent(root)}`)
      const entry = list.json?.entries?.find((e: any) => e.name === name)
      ctx.nonStrict(entry?.bytes === 6 && typeof entry?.modifiedAt === 'number' && typeof entry?.path === 'string', `a listed file is ${JSON.stringify(entry)}; the protocol-7 client reads {name, path, type, bytes, modifiedAt} in {entries} (the spec does not show the listing)`)
      const find = await ctx.http('GET', `/fs/find?path=${encodeURIComponent(root)}&q=${encodeURIComponent(name)}`)
      const match = find.json?.matches?.find((m: any) => typeof m.path === 'string' && m.path.endsWith(name))
      ctx.nonStrict(match?.relative === name && typeof find.json?.base === 'string', `a find match is ${JSON.stringify(match)}; protocol 7 answers {base, matches} and the protocol-7 client reads {path, relative} per match (the spec does not show them)`)
    },
  },
  {
    id: 'host-files-sibling-of-root-refused', title: 'a host file beside the root, named with the root\'s name as a prefix, is outside it: no write, no read, no listing', section: 'engine-session-stores-and-host-files',
    clauses: ['engine-session-stores-and-host-files.6', 'server-configuration.8', 'engine-session-stores-and-host-files.3'], requires: ['hostFiles', 'hostFilesWrite'],
    async run(ctx) {
      const root = cwdRoot(ctx)
      // Its parent directory exists (the root's own parent), so only containment can refuse it.
      const beside = `${root}-${ctx.unique('kit-beside')}.txt`
      ctx.refusal('server-configuration.8', await ctx.http('PUT', '/fs/write', { body: { path: beside, content: 'outside' } }), { protocol7: 404, why: `${beside} is beside the root, not inside it` })
      ctx.refusal('server-configuration.8', await ctx.http('GET', `/fs/read?path=${encodeURIComponent(beside)}`), { protocol7: 404 })
      ctx.refusal('server-configuration.8', await ctx.http('GET', `/fs/list?path=${encodeURIComponent(`${root}-x`)}`), { protocol7: 404 })
    },
  },
]
