/** The cases of § Embedding rules (contract with the host application): each case's first clause is `embedding-rules.N`. */
import { Unsupported, type Case } from '../../types.ts'
import { finishedTurn, resumed, NO_SYSTEM_INIT, call, toolThenResult, EVAL_SIX_BY_SEVEN, mcpLookup, requireRunningQueue, waitForJob, terminal } from '../../harness/case-helpers/index.ts'

export const embeddingRulesCases: Case[] = [
  {
    id: 'embedding-fallback-outside-base-path', title: 'requests outside basePath reach the fallback without authentication', section: 'embedding-rules',
    clauses: ['embedding-rules.1', 'embedding-rules.2', 'server-configuration.13', 'what-the-service-does.13'], requires: ['fallback'],
    async run(ctx) {
      const path = ctx.manifest.fallback?.path ?? '/'
      const res = await ctx.http('GET', `${ctx.origin}${path}`, { as: 'none' })
      ctx.check('embedding-rules.1', res.status !== 401, 'no authentication outside basePath', res.status)
      ctx.status('server-configuration.13', res, 200)
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
    id: 'provider-mcp-identity', title: 'MCP servers named by a provider profile: identity on the transport per session, connect-or-refuse at build', section: 'embedding-rules',
    clauses: ['embedding-rules.10', 'authentication.10', 'errors.14'], requires: ['provider', 'mcp', 'profile:providerMcp', 'profile:providerMcpBroken'],
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
  {
    id: 'provider-mcp-unconnected-refuses-build', title: 'a session on a provider profile naming an MCP server that is not connected is refused at build, not built tool-less', section: 'embedding-rules',
    clauses: ['embedding-rules.10', 'errors.14', 'queue-options.12', 'job-status.7', 'job-status.1', 'jobs-and-queue.2'], requires: ['provider', 'profile:providerMcpBroken'],
    async run(ctx) {
      // embedding-rules.10: the MCP connection is made as required, so a failed connect fails the
      // build instead of yielding a silently tool-less session; errors.14 gives no status. The
      // manifest's providerMcpBroken profile names a server the target cannot connect: one that
      // never answers, or one its host never wired at all.
      const res = await ctx.http('POST', '/sessions', { body: { profile: ctx.profile('providerMcpBroken') } })
      if (res.status >= 200 && res.status < 300) await ctx.http('DELETE', `/sessions/${res.json?.session?.id}`)
      ctx.check('errors.14', res.status >= 400, 'the create refused when a named MCP server is not connected', `${res.status} ${res.text.slice(0, 160)}`)
      // A job's session is an ordinary registry session (queue-options.12): on that profile it cannot
      // build either, so the job is refused at submit or its failed run ends it (job-status.7, job-status.1), never hangs.
      if (!(ctx.manifest.features ?? []).includes('queue')) return
      await requireRunningQueue(ctx)
      const job = await ctx.http('POST', '/jobs', { body: { session: { profile: ctx.profile('providerMcpBroken'), prompt: 'hello', ...(ctx.manifest.cwdRoot ? { cwd: ctx.manifest.cwdRoot } : {}) } } })
      if (job.status >= 400) return
      const id = job.json?.job?.id
      ctx.check('jobs-and-queue.2', typeof id === 'string', 'a {job} envelope with an id', job.text.slice(0, 200))
      ctx.onCleanup(() => ctx.http('DELETE', `/jobs/${id}`))
      const ended = await waitForJob(ctx, id, terminal, 'a terminal status for a job whose session cannot build').catch(() => undefined)
      ctx.check('job-status.7', ended !== undefined, 'the job on a profile whose MCP server is not connected ends (a terminal status)', ended ?? 'still not terminal')
    },
  },
  {
    id: 'cli-dormant-survives-restart',
    title: 'a cli_primary and a cli_secondary session that finished a turn survive a restart dormant, resume on attach with their history replayed',
    section: 'embedding-rules',
    clauses: ['embedding-rules.14', 'events.10'],
    requires: ['persistence', 'restart'],
    isolation: 'global',
    cells: { engines: ['cli_primary', 'cli_secondary'], states: ['dormant'] },
    async run(ctx) {
      const cwd = ctx.manifest.cwdRoot
      if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
      // Both engines share one restart of the target: a restart is the slow part.
      const engines = (['cli_primary', 'cli_secondary'] as const).filter((e) => ctx.manifest.features.includes(e))
      if (!engines.length) throw new Unsupported('the target offers neither CLI engine')
      const sessions = await Promise.all(engines.map((engine) => finishedTurn(ctx, engine, cwd)))
      await ctx.restartTarget!()
      // Both resumes at once (each waits on its own engine's start), the first failure in engine order reported.
      const outcomes = await Promise.allSettled(engines.map((engine, i) => resumed(ctx, engine, sessions[i])))
      for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason
    },
  },
  {
    id: 'provider-web-search-answered', title: 'a provider session granted web_search on a wired backend gets a search answered without a tool error', section: 'embedding-rules',
    clauses: ['embedding-rules.6', 'embedding-rules.8', 'profile.8'], requires: ['provider', 'profile:providerAllGrants'],
    async run(ctx) {
      // The providerAllGrants role declares a search backend wired for its web_search grant
      // (embedding-rules.8), so a search the model asks for is run, not refused. What results
      // look like is the backend's; the tool's name is the target's, found by the fake model's
      // binding (scenarios/README.md): without a tool named for search the case cannot ask.
      const { ws } = await ctx.idleSession({ profile: ctx.profile('providerAllGrants'), capabilities: ['web_search'] })
      // A provider engine need not emit system_init (the Events table obliges no engine to emit one): without it the
      // offered tools are unknown, so the call is made anyway and only an error answer, which could
      // mean "no such tool", leaves the case unable to judge.
      const init = ws.events().find((e) => e.type === 'system_init')
      if (init && !((init.tools ?? []) as unknown[]).some((t) => /search/i.test(String(t)))) throw new Unsupported(`no tool named for search among the session's tools: ${JSON.stringify(init.tools ?? null)}`)
      ws.send({ type: 'user_message', text: toolThenResult(call('web_search', { query: 'conformance kit' })) })
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const results = ws.events().filter((e) => e.type === 'user_message').flatMap((e) => (Array.isArray(e.message?.content) ? e.message.content : [])).filter((c: any) => c?.type === 'tool_result')
      ctx.check('embedding-rules.8', results.length > 0, 'a tool_result for the web_search call', ws.events().map((e) => e.type))
      if (!init && results.some((r: any) => r.is_error === true)) throw new Unsupported(`${NO_SYSTEM_INIT}, and the web_search call was answered with a tool error: whether a search tool is offered cannot be told`)
      ctx.check('embedding-rules.8', results.every((r: any) => r.is_error !== true), 'the search answered without a tool error', results.map((r: any) => ({ is_error: r.is_error, content: JSON.stringify(r.content ?? null).slice(0, 200) })))
    },
  },
]
