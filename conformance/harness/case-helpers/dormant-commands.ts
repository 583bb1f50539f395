/**
 * Case helpers: every command and session route on a dormant session, one case per engine. A
 * session that finished a turn survives a restart without a live engine (embedding-rules.14: the
 * CLI engines resume from their own stores, the provider engine rebuilds from its persistLive
 * snapshot, session-status-values.8); before its first attach it is not rebuilt, and the routes and
 * commands must treat it as the session it is (session-status-values.6: an attach wakes it).
 */
import type { Case } from '../../types.ts'
import type { CaseContext } from '../context.ts'
import type { Engine } from '../../matrix/dimensions.ts'
import { expectEvent } from './cases-in-states.ts'
import { afterOneTurn } from './session-states.ts'
import { maxSeq } from './long-turns.ts'

const MODEL: Record<Engine, string | undefined> = { provider: undefined, cli_primary: 'opus', cli_secondary: 'another-model' }
const MODE: Record<Engine, string> = { provider: 'dontAsk', cli_primary: 'acceptEdits', cli_secondary: 'acceptEdits' }

async function restAfterTurn(ctx: CaseContext, engine: Engine): Promise<{ id: string; shown: number; session: any }> {
  const { session, ws } = await afterOneTurn(ctx, engine)
  const shown = maxSeq(ws.events())
  ws.close()
  return { id: session.id, shown, session }
}

async function commandsWhileDormant(ctx: CaseContext, engine: Engine): Promise<void> {
  const [kept, removed] = await Promise.all([restAfterTurn(ctx, engine), restAfterTurn(ctx, engine)])
  await ctx.restartTarget!()
  const read = await ctx.http('GET', `/sessions/${kept.id}`)
  ctx.status('sessions.3', read, 200)
  ctx.check('embedding-rules.14', !['closed', 'failed'].includes(read.json?.session?.status), `the ${engine} session is there after the restart`, read.json?.session?.status)
  // A rename before the wake: the session is idle, not parked, so errors.6's 409 does not apply.
  const title = `kit dormant ${engine}`
  const renamed = await ctx.http('PATCH', `/sessions/${kept.id}`, { body: { title } })
  ctx.status('sessions.4', renamed, 200)
  ctx.equal('updatesessionrequest.1', renamed.json?.session?.title, title, 'the title of a dormant session renamed before its wake')
  const del = await ctx.http('DELETE', `/sessions/${removed.id}`)
  ctx.check('sessions.5', del.status >= 200 && del.status < 300, 'a 2xx for the DELETE of a dormant session', `HTTP ${del.status} ${del.text.slice(0, 120)}`)
  ctx.errorStatus('session-status-values.5', await ctx.http('GET', `/sessions/${removed.id}`), 404)

  // The attach wakes it (session-status-values.6); every command of an attach then applies (commands.10).
  const ws = await ctx.ws(kept.id, { afterSeq: kept.shown })
  ws.send({ type: 'permission_decision', requestId: 'kit-no-such-request', behavior: 'allow' })
  ws.send({ type: 'tool_call_result', executionId: 'kit-no-such-execution', result: { type: 'text', value: 'x' } })
  ws.send({ type: 'tool_call_error', executionId: 'kit-no-such-execution', error: 'boom' })
  ws.send({ type: 'interrupt' })
  const model = MODEL[engine] ?? (ctx.manifest.models?.provider ?? []).find((m) => m !== kept.session.model)
  if (model) {
    ws.send({ type: 'set_model', model })
    const changed = await expectEvent(ctx, 'events.5', ws, 'model_changed', (e) => e.seq > kept.shown, 'model_changed after set_model on a woken dormant session')
    ctx.equal('commands.5', changed.model, model, 'model_changed.model')
  }
  ws.send({ type: 'set_permission_mode', mode: MODE[engine] })
  await expectEvent(ctx, 'events.6', ws, 'permission_mode_changed', (e) => e.seq > kept.shown && JSON.stringify(e).includes(`"${MODE[engine]}"`), `permission_mode_changed naming ${MODE[engine]} on a woken dormant session`)
  const text = `kit after the restart ${engine}`
  ws.send({ type: 'user_message', text })
  const shown = await expectEvent(ctx, 'commands.1', ws, 'user_message', (e) => e.seq > kept.shown && JSON.stringify(e.message ?? null).includes(text), 'the message sent after the restart shown')
  const result = await expectEvent(ctx, 'commands.10', ws, 'turn_result', (e) => e.seq > shown.seq, 'its turn_result')
  ctx.check('commands.3', result.isError === false, 'an interrupt with nothing running, then unknown answers, leave the next turn without error', result)
  ws.send({ type: 'clear_context' })
  if (read.json?.session?.capabilities?.clearContext === true) {
    await expectEvent(ctx, 'commands.6', ws, 'conversation_reset', (e) => e.seq > result.seq, 'conversation_reset after clear_context on a woken dormant session')
  } else {
    // Without clearContext in the record the command clears nothing (session-status-values.9's condition).
    ws.send({ type: 'user_message', text: 'scenario:hello' })
    const next = await expectEvent(ctx, 'commands.10', ws, 'turn_result', (e) => e.seq > result.seq, 'a turn after clear_context on an engine whose record lacks it')
    ctx.check('commands.6', !ws.events().some((e) => e.type === 'conversation_reset' && e.seq > result.seq && e.seq < next.seq), 'no conversation_reset from an engine whose record lacks clearContext', ws.events().filter((e) => e.seq > result.seq).map((e) => e.type))
  }
  ws.send({ type: 'close' })
  const closed = await expectEvent(ctx, 'events.21', ws, 'session_closed', (e) => e.seq > kept.shown, 'session_closed after close on a woken dormant session')
  ctx.equal('commands.7', closed.reason, 'client', 'session_closed.reason')
}

export const dormantCommandsCase = (engine: Engine): Case => ({
  id: `commands-on-dormant-${engine.replace('_', '-')}`,
  title: `${engine}: after a restart, GET and DELETE on a dormant session, then every command once an attach woke it`,
  section: 'session-status-values',
  clauses: ['session-status-values.6', 'session-status-values.5', 'sessions.3', 'sessions.4', 'sessions.5', 'updatesessionrequest.1', 'embedding-rules.14',
    'commands.1', 'commands.2', 'commands.3', 'commands.4', 'commands.5', 'commands.6', 'commands.7', 'commands.8', 'commands.9', 'commands.10', 'events.5', 'events.6', 'events.21'],
  requires: [engine, 'persistence', 'restart'],
  isolation: 'global',
  cells: { engines: [engine], states: ['dormant'] },
  run: (ctx) => commandsWhileDormant(ctx, engine),
})
