/** The cases of § Engine capability record (EngineCapabilities): each case's first clause is `engine-capability-record.N`. */
import type { Case } from '../../types.ts'
import { engineSessionId, secondary } from '../../harness/case-helpers/index.ts'

export const engineCapabilityRecordCases: Case[] = [
  {
    id: 'cli-secondary-turn-events', title: 'a cli_secondary session is served (no 501): its record, the thread id as sdkSessionId, a turn with usage, context_usage and a derived title', section: 'engine-capability-record',
    clauses: ['engine-capability-record.1', 'what-the-service-does.5', 'profile.4', 'profile.10', 'events.12', 'events.7', 'session.2', 'errors.9'], requires: ['cli_secondary'],
    async run(ctx) {
      const { session, ws } = await secondary(ctx, { prompt: 'hello codex' })
      // SessionInfo.engine is listed, not required (session.1): compared when present.
      if ('engine' in session) ctx.equal('what-the-service-does.5', session.engine, 'cli_secondary', 'SessionInfo.engine')
      const caps = session.capabilities ?? {}
      ctx.check('engine-capability-record.1', caps.mcpServerActions === false && caps.hostCwd === true, 'the cli_secondary record: mcpServerActions false, hostCwd', caps)
      // The record "lists supported permission modes" under a key the spec does not name.
      const CODEX_MODES = ['acceptEdits', 'auto', 'bypassPermissions', 'default']
      const modes = Object.values(caps).find((v) => Array.isArray(v) && v.length > 0 && v.every((m) => typeof m === 'string' && ['default', 'acceptEdits', 'bypassPermissions', 'dontAsk', 'auto'].includes(m)))
      ctx.equal('profile.10', Array.isArray(modes) ? [...modes].sort() : modes, CODEX_MODES, 'the permission modes cli_secondary runs')
      const result = await ws.waitForEvent('turn_result', ctx.deadlineMs)
      const sdkSessionId = await engineSessionId(ctx, ws, session.id)
      ctx.check('profile.4', sdkSessionId !== session.id, 'the engine thread id as sdkSessionId, not the server id', sdkSessionId)
      // "per-turn usage" (events.12) without a shown layout: an object holding some count.
      ctx.check('events.12', result.isError === false && typeof result.usage === 'object' && Object.values(result.usage ?? {}).some((v) => typeof v === 'number'), 'a successful turn_result with per-turn usage', result)
      const usage = await ws.waitForEvent('context_usage', ctx.deadlineMs)
      // ContextUsage's shape is not shown (other-shapes.6), nor where the event carries it: some content beyond the envelope.
      ctx.check('events.7', Object.keys(usage).some((k) => !['type', 'seq', 'ts'].includes(k)), 'a ContextUsage snapshot after the turn', usage)
      const info = (await ctx.http('GET', `/sessions/${session.id}`)).json?.session
      // "derived from the first prompt" (session.2), not equal to it: its opening words.
      ctx.check('session.2', typeof info?.title === 'string' && info.title.length > 0 && 'hello codex'.startsWith(info.title.replace(/…$/, '').trim().slice(0, 5)), 'a title derived from the first prompt "hello codex"', info?.title)
      ctx.errorStatus('errors.9', await ctx.http('POST', `/sessions/${session.id}/mcp/any`, { body: { action: 'reconnect' } }), 501)
    },
  },
  {
    id: 'compat-capability-record-keys', title: "protocol-7 client: the capability record carries the keys the protocol-7 client reads (vfs, streaming, contextUsage, …)", section: 'engine-capability-record',
    clauses: ['engine-capability-record.1'], requires: [],
    cells: { engines: ['provider', 'cli_primary', 'cli_secondary'] },
    async run(ctx) {
      const res = await ctx.http('GET', '/profiles')
      ctx.status('profiles.1', res, 200)
      const booleans = ['interactiveApprovals', 'resume', 'resumeBackfill', 'listSessions', 'contextUsage', 'rateLimits', 'mcpStatus', 'mcpServerActions', 'sessionMcpServers', 'slashCommands', 'skillsList', 'settingSources', 'budgets', 'vfs']
      for (const profile of res.json?.profiles ?? []) {
        const caps = profile.capabilities ?? {}
        const missing = booleans.filter((key) => typeof caps[key] !== 'boolean')
        if (!['token', 'item', 'none'].includes(caps.streaming)) missing.push('streaming')
        if (typeof caps.defaultPermissionMode !== 'string') missing.push('defaultPermissionMode')
        if (!Array.isArray(caps.permissionModes) || !Array.isArray(caps.attachments)) missing.push('permissionModes/attachments')
        ctx.nonStrict(missing.length === 0, `profile ${profile.name}: the capability record lacks the protocol-7 client's ${missing.join(', ')} (the spec: "other keys: not shown")`)
      }
    },
  },
]
