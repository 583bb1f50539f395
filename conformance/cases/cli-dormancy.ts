/**
 * Dormant CLI sessions across a restart of the target (embedding-rules.14): with a
 * durable store and `persistLive`, a cli_primary or cli_secondary session that finished a turn is
 * still listed after the restart, its first attach resumes the engine's own conversation with the
 * earlier history as `replay` messages (events.10), numbered after every seq shown before, and
 * its next message continues it.
 */
import type { CaseContext } from '../harness/context.ts'
import { Unsupported, type Case } from '../types.ts'

type CliEngine = 'cli_primary' | 'cli_secondary'

/** One turn on `engine`, to idle: the session and the highest seq a client was shown. */
async function finishedTurn(ctx: CaseContext, engine: CliEngine, cwd: string): Promise<{ id: string; shown: number }> {
  const session = await ctx.createSession({ profile: ctx.profile(engine), cwd, prompt: 'before the restart' })
  const ws = await ctx.ws(session.id)
  await ws.waitForEvent('turn_result', ctx.deadlineMs)
  await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle' && ws.events().some((x) => x.type === 'turn_result' && x.seq < e.seq))
  const shown = Math.max(...ws.events().map((e) => e.seq))
  ws.close()
  return { id: session.id, shown }
}

async function resumed(ctx: CaseContext, engine: CliEngine, { id, shown }: { id: string; shown: number }): Promise<void> {
  const listed = ((await ctx.http('GET', '/sessions')).json?.sessions ?? []).find((s: any) => s.id === id)
  ctx.check('embedding-rules.14', listed !== undefined && listed.status !== 'closed' && listed.status !== 'failed', `the dormant ${engine} session is listed after the restart`, listed)
  const again = await ctx.ws(id, { afterSeq: 0 })
  const replayed = await again.waitForEvent('user_message', ctx.deadlineMs, (e) => e.replay === true)
  ctx.check('events.10', JSON.stringify(replayed.message?.content).includes('before the restart'), `${engine}: the resumed history comes back as replay messages`, replayed)
  ctx.check('embedding-rules.14', replayed.seq > shown, `${engine}: numbered after every seq shown before the restart`, { replayed: replayed.seq, shown })
  again.send({ type: 'user_message', text: 'after the restart' })
  const next = await again.waitForEvent('turn_result', ctx.deadlineMs, (e) => e.seq > replayed.seq)
  ctx.check('embedding-rules.14', next.isError === false, `${engine}: the resumed conversation takes the next message`, next)
}

export const cliDormancyCases: Case[] = [{
  id: 'cli-dormant-survives-restart',
  title: 'a cli_primary and a cli_secondary session that finished a turn survive a restart dormant, resume on attach with their history replayed',
  section: 'embedding-rules',
  clauses: ['embedding-rules.14', 'events.10'],
  requires: ['persistence', 'restart'],
  isolation: 'global',
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
}]
