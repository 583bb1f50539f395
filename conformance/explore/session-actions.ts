/**
 * Explore commands on one session's life: create, turns (scenarios the kit's fakes play),
 * interrupt, permission answers, clear_context, set_model, set_permission_mode. Each waits for
 * the condition its effect is seen by, within the run's deadline, never a fixed time.
 */
import { permissionRequestIdOf } from '../harness/permission-request.ts'
import { command, onSession } from './command.ts'
import { checkReattach } from './resource-actions.ts'
import { alive, MAX_SESSIONS, type Offer, type Owner, type Role } from './model.ts'
import { eventAfter, playTurn } from './world.ts'

export function createSession(offer: Offer, owner: Owner, role: Role) {
  return command(`create(${role}, as ${owner})`, (m) => m.sessions.length < MAX_SESSIONS, async (m, w) => {
    const { ctx } = w
    const body: Record<string, unknown> = { profile: ctx.profile(role) }
    if (role === 'cli_primary') body.cwd = ctx.manifest.cwdRoot
    if (offer.bypassDisabled) {
      // server-configuration.16 / errors (403 row): bypassPermissions requested while disabled.
      const refused = await ctx.http('POST', '/sessions', { as: owner, body: { ...body, permissionMode: 'bypassPermissions' } })
      if (refused.status === 201) ctx.onCleanup(() => ctx.http('DELETE', `/sessions/${refused.json?.session?.id}`))
      ctx.status('server-configuration.16', refused, 403)
    }
    const info = await ctx.createSession(body, owner)
    if (offer.bypassDisabled) ctx.check('server-configuration.16', info.canBypassPermissions !== true, 'canBypassPermissions not true while bypassPermissions is disabled', info.canBypassPermissions)
    const recorder = await ctx.ws(info.id, { as: owner, afterSeq: 0 })
    await recorder.waitForEvent('status_changed', w.deadlineMs, (e) => e.status === 'idle')
    w.sessions[m.sessions.length] = { id: info.id, owner, role, recorder, earlier: [], info }
    m.sessions.push({ owner, role, deleted: false })
  })
}

/**
 * Scenarios the kit's fakes play (scenarios/README.md) ending in an idle session; tool-echo on the
 * provider engine only (the CLI asks permission for its tool call).
 */
export const TURN_SCENARIOS = ['hello', 'model-error', 'slow', 'tool-echo'] as const

export function sendMessage(pick: number, scenario: (typeof TURN_SCENARIOS)[number]) {
  return onSession(pick, (i) => `user_message(s${i}, scenario:${scenario})`, (m, i) => alive(m, i) && (scenario !== 'tool-echo' || m.sessions[i].role === 'provider'), async (m, w, index) => {
    const text = `scenario:${scenario}`
    await playTurn(w, w.handle(index), text)
    m.sessions[index].firstPrompt ??= text
  })
}

/** commands.3: interrupt ends a running turn with a turn_result (the provider engine plays `hang` until then). */
export function interruptTurn(pick: number) {
  return onSession(pick, (i) => `interrupt(s${i}, during scenario:hang)`, (m, i) => alive(m, i) && m.sessions[i].role === 'provider', async (m, w, index) => {
    const h = w.handle(index)
    await playTurn(w, h, 'scenario:hang', async (from) => {
      await eventAfter(h.recorder, from, w.deadlineMs, 'status running', (e) => e.type === 'status_changed' && e.status === 'running')
      h.recorder.send({ type: 'interrupt' })
    })
    m.sessions[index].firstPrompt ??= 'scenario:hang'
  })
}

/**
 * A permission request answered over the socket or REST (commands.2, sessions.13), then the same
 * request answered again: an already-resolved request answers 404 (permission-request.1).
 */
export function answerPermission(pick: number, channel: 'ws' | 'rest', behavior: 'allow' | 'deny') {
  return onSession(pick, (i) => `permission(s${i}, ${behavior} over ${channel})`, (m, i) => alive(m, i) && m.sessions[i].role === 'cli_primary', async (m, w, index) => {
    const h = w.handle(index)
    let requestId: string | undefined
    await playTurn(w, h, 'scenario:permission', async (from) => {
      const asked = await eventAfter(h.recorder, from, w.deadlineMs, 'permission_requested', (e) => e.type === 'permission_requested')
      requestId = permissionRequestIdOf(asked)
      w.ctx.check('commands.2', requestId !== undefined, 'a permission request id', asked)
      if (channel === 'ws') h.recorder.send({ type: 'permission_decision', requestId, behavior, ...(behavior === 'deny' ? { message: 'no' } : {}) })
      else w.ctx.status('sessions.13', await w.ctx.http('POST', `/sessions/${h.id}/permissions/${encodeURIComponent(requestId!)}`, { as: h.owner, body: { behavior } }), 200)
      await eventAfter(h.recorder, from, w.deadlineMs, 'permission_resolved', (e) => e.type === 'permission_resolved')
    })
    const again = await w.ctx.http('POST', `/sessions/${h.id}/permissions/${encodeURIComponent(requestId!)}`, { as: h.owner, body: { behavior } })
    w.ctx.status('permission-request.1', again, 404)
    m.sessions[index].firstPrompt ??= 'scenario:permission'
  })
}

/** clear_context where the record grants clearContext: a conversation_reset follows (session-status-values table), and a re-attach skips the transcript below it. */
export function clearContext(pick: number) {
  return onSession(pick, (i) => `clear_context(s${i})`, (m, i) => alive(m, i), async (_m, w, index) => {
    const h = w.handle(index)
    if (h.info.capabilities?.clearContext !== true) return
    const from = h.recorder.frames.length
    h.recorder.send({ type: 'clear_context' })
    await eventAfter(h.recorder, from, w.deadlineMs, 'conversation_reset', (e) => e.type === 'conversation_reset')
    // events.20 is about the re-attach after a reset: one from the start, right away.
    await checkReattach(w, h, 0)
  })
}

/** set_model with a model the manifest lists, or omitted (the default): model_changed follows (commands.5, events.5). */
export function setModel(offer: Offer, pick: number, which: number) {
  const model = offer.providerModels.length ? [undefined, ...offer.providerModels][which % (offer.providerModels.length + 1)] : undefined
  return onSession(pick, (i) => `set_model(s${i}, ${model ?? 'default'})`, (m, i) => alive(m, i) && m.sessions[i].role === 'provider', async (_m, w, index) => {
    const h = w.handle(index)
    const from = h.recorder.frames.length
    h.recorder.send(model === undefined ? { type: 'set_model' } : { type: 'set_model', model })
    const changed = await eventAfter(h.recorder, from, w.deadlineMs, 'model_changed', (e) => e.type === 'model_changed')
    if (model !== undefined) w.ctx.equal('events.5', changed.model, model, 'model_changed.model')
  })
}

/** set_permission_mode to a mode the session's own record lists (commands.4, events.6). */
export function setPermissionMode(pick: number, which: number) {
  return onSession(pick, (i) => `set_permission_mode(s${i}, the record's mode #${which})`, (m, i) => alive(m, i), async (_m, w, index) => {
    const h = w.handle(index)
    const modes = h.info.capabilities?.permissionModes
    // A move to another mode than the current one: the spec fixes no event for a no-op change.
    const current = (await w.ctx.http('GET', `/sessions/${h.id}`, { as: h.owner })).json?.session?.permissionMode
    const usable = Array.isArray(modes) ? modes.filter((x: unknown) => typeof x === 'string' && x !== 'bypassPermissions' && x !== current) : []
    if (!usable.length) return
    const mode = usable[which % usable.length]
    const from = h.recorder.frames.length
    h.recorder.send({ type: 'set_permission_mode', mode })
    const changed = await eventAfter(h.recorder, from, w.deadlineMs, 'permission_mode_changed', (e) => e.type === 'permission_mode_changed')
    w.ctx.check('events.6', JSON.stringify(changed).includes(JSON.stringify(mode)), `permission_mode_changed naming ${mode}`, changed)
  })
}
