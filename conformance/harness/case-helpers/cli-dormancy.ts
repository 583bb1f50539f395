/** Case helpers: cli dormancy. Shared by the cases of every section through case-helpers/index.ts. */
import type { CaseContext } from '../context.ts'

export type CliEngine = 'cli_primary' | 'cli_secondary'

/** One turn on `engine`, to idle: the session and the highest seq a client was shown. */
export async function finishedTurn(ctx: CaseContext, engine: CliEngine, cwd: string): Promise<{ id: string; shown: number }> {
  const session = await ctx.createSession({ profile: ctx.profile(engine), cwd, prompt: 'before the restart' })
  const ws = await ctx.ws(session.id)
  await ws.waitForEvent('turn_result', ctx.deadlineMs)
  await ws.waitForEvent('status_changed', ctx.deadlineMs, (e) => e.status === 'idle' && ws.events().some((x) => x.type === 'turn_result' && x.seq < e.seq))
  const shown = Math.max(...ws.events().map((e) => e.seq))
  ws.close()
  return { id: session.id, shown }
}

export async function resumed(ctx: CaseContext, engine: CliEngine, { id, shown }: { id: string; shown: number }): Promise<void> {
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
