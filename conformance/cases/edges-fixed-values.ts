/**
 * Values the spec fixes at creation, read again after later events ("a rule checked
 * only on its first occurrence"). A case that reads `scope` or `canBypassPermissions` right after
 * the create cannot tell a gateway that overwrites them later (from an engine's report, a mode
 * change, a rename or a turn) from one that keeps them.
 */
import type { CaseContext } from '../harness/context.ts'
import type { Case } from '../types.ts'

/** SessionInfo fields that no command, turn or rename may change: identity, and what the spec fixes at creation. */
const FIXED = ['id', 'profile', 'engine', 'cwd', 'scope', 'canBypassPermissions'] as const

function compareFixed(ctx: CaseContext, created: Record<string, unknown>, later: Record<string, unknown> | undefined, where: string): void {
  for (const field of FIXED) {
    if (!(field in created)) continue
    // scope.1: immutable after create; session.1: canBypassPermissions fixed at creation; the others name the session itself.
    const clause = field === 'scope' ? 'scope.1' : 'session.1'
    ctx.equal(clause, later?.[field], created[field], `${where}: SessionInfo.${field} as the create answered it`)
  }
}

export const fixedValueCases: Case[] = [
  {
    id: 'session-fixed-fields-after-later-events', title: 'scope, canBypassPermissions and the session\'s identity keep their creation values through turns, a mode change, a rename and a re-attach', section: 'session',
    clauses: ['scope.1', 'session.1', 'updatesessionrequest.1'], requires: ['provider', 'principal:tenantA'],
    async run(ctx) {
      // A scoped caller, so the create stamps a scope (sessions.2), and a bypass request the gateway may strip or keep.
      const created = await ctx.createSession({ allowDangerouslySkipPermissions: true }, 'tenantA')
      const read = async (): Promise<Record<string, unknown>> => (await ctx.http('GET', `/sessions/${created.id}`, { as: 'tenantA' })).json?.session
      const ws = await ctx.ws(created.id, { as: 'tenantA' })
      await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle')
      for (const text of ['scenario:hello']) {
        const last = Math.max(0, ...ws.frames.map((f) => (typeof f.event?.seq === 'number' ? f.event.seq : 0)))
        ws.send({ type: 'user_message', text })
        const result = await ws.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > last)
        await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle' && e.seq > result.seq)
      }
      compareFixed(ctx, created, await read(), 'after a turn')
      const now = await read()
      const modes: unknown = (now.capabilities as { permissionModes?: unknown } | undefined)?.permissionModes
      const mode = Array.isArray(modes) ? modes.find((m) => typeof m === 'string' && m !== now.permissionMode && m !== 'bypassPermissions') : undefined
      if (typeof mode === 'string') {
        ws.send({ type: 'set_permission_mode', mode })
        await ws.waitForEvent('permission_mode_changed', ctx.deadlineMs)
        compareFixed(ctx, created, await read(), `after set_permission_mode ${mode}`)
      }
      // updatesessionrequest.1 names only `title`: a scope in the body must not move the session.
      await ctx.http('PATCH', `/sessions/${created.id}`, { as: 'tenantA', body: { title: 'kit renamed', scope: { kit: 'moved' } } })
      compareFixed(ctx, created, await read(), 'after a rename whose body also carried a scope')
      const listed = ((await ctx.http('GET', '/sessions', { as: 'tenantA' })).json?.sessions ?? []).find((s: any) => s?.id === created.id)
      compareFixed(ctx, created, listed, 'in GET /sessions')
      ws.close()
      const again = await ctx.ws(created.id, { as: 'tenantA' })
      const attached = await again.waitFor((f) => f.type === 'attached', ctx.deadlineMs, 'attached')
      compareFixed(ctx, created, attached.session, 'in the attached frame of a second attach')
      again.close()
    },
  },
]
