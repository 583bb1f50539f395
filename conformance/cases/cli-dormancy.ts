/**
 * Dormant CLI sessions across a restart of the target (embedding-rules.14, issue 24): with a
 * durable store and `persistLive`, a cli_primary or cli_secondary session that finished a turn is
 * still listed after the restart, its first attach resumes the engine's own conversation with the
 * earlier history as `replay` messages (events.10), numbered after every seq shown before, and
 * its next message continues it.
 */
import type { CaseContext } from '../harness/context.ts'
import { Unsupported, type Case } from '../types.ts'

async function survivesRestart(ctx: CaseContext, engine: 'cli_primary' | 'cli_secondary'): Promise<void> {
  const cwd = ctx.manifest.cwdRoot
  if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
  const session = await ctx.createSession({ profile: ctx.profile(engine), cwd, prompt: 'before the restart' })
  const ws = await ctx.ws(session.id)
  await ws.waitForEvent('turn_result', ctx.deadlineMs)
  await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle' && ws.events().some((x) => x.type === 'turn_result' && x.seq < e.seq))
  const shown = Math.max(...ws.events().map((e) => e.seq))
  ws.close()
  await ctx.restartTarget!()

  const listed = ((await ctx.http('GET', '/sessions')).json?.sessions ?? []).find((s: any) => s.id === session.id)
  ctx.check('embedding-rules.14', listed !== undefined && listed.status !== 'closed' && listed.status !== 'failed', 'the dormant session is listed after the restart', listed)
  const again = await ctx.ws(session.id, { afterSeq: 0 })
  const replayed = await again.waitForEvent('user_message', ctx.deadlineMs, (e) => e.replay === true)
  ctx.check('events.10', JSON.stringify(replayed.message?.content).includes('before the restart'), 'the resumed history comes back as replay messages', replayed)
  ctx.check('embedding-rules.14', replayed.seq > shown, 'numbered after every seq shown before the restart', { replayed: replayed.seq, shown })
  again.send({ type: 'user_message', text: 'after the restart' })
  const next = await again.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > replayed.seq)
  ctx.check('embedding-rules.14', next.isError === false, 'the resumed conversation takes the next message', next)
}

export const cliDormancyCases: Case[] = (['cli_primary', 'cli_secondary'] as const).map((engine): Case => ({
  id: `${engine.replace('_', '-')}-dormant-survives-restart`,
  title: `${engine}: a session that finished a turn survives a restart dormant, resumes on attach with its history replayed`,
  section: 'embedding-rules',
  clauses: ['embedding-rules.14', 'events.10'],
  requires: [engine, 'persistence', 'restart'],
  isolation: 'global',
  run: (ctx) => survivesRestart(ctx, engine),
}))
