/** Case helpers: engine tools. Shared by the cases of every section through case-helpers/index.ts. */
import type { CaseContext } from '../context.ts'
import { Unsupported } from '../../types.ts'

/** profile.8 / embedding-rules.6 name exactly these provider grants. */
export const NAMED_GRANTS = ['web_fetch', 'web_search', 'download', 'deliver_file']

export const call = (name: string, input: Record<string, unknown>) => ({ type: 'tool', name, input })

export const toolThenResult = (...steps: unknown[]) => `scenario:${JSON.stringify({ name: 'edges-engines', steps: [...steps, { type: 'text', text: '{{toolResult}}' }] })}`

/** The cli_primary peer tools are the gateway's SDK MCP server `peers` (the CLI's `mcp__<server>__<tool>` naming). */
export const CLI_PEERS_SEND = 'mcp__peers__peers_send'

/** The reason a case that reads the offered tools cannot run on a target that announces none. */
export const NO_SYSTEM_INIT = 'the session emitted no system_init (the spec does not oblige one), so its offered tools are not shown'

/** The tools a provider session narrowed to `capabilities` announces in its system_init (events.2). */
export async function offeredTools(ctx: CaseContext, profile: string, capabilities: string[]): Promise<string[]> {
  const res = await ctx.http('POST', '/sessions', { body: { profile, capabilities } })
  ctx.check('profiles.6', res.status === 201, `201 for capabilities ${JSON.stringify(capabilities)} on a profile granting ${NAMED_GRANTS.join(', ')}`, `HTTP ${res.status} ${res.text.slice(0, 200)}`)
  const id = res.json.session.id
  ctx.onCleanup(() => ctx.http('DELETE', `/sessions/${encodeURIComponent(id)}`))
  const ws = await ctx.ws(id)
  // The Events table lists system_init without obliging an engine to emit it: after a turn, a
  // session that announced none cannot be judged on its tools (unsupported, not a wait that fails).
  ws.send({ type: 'user_message', text: 'scenario:hello' })
  await ws.waitForEvent('turn_result', ctx.deadlineMs)
  const init = ws.events().find((e) => e.type === 'system_init')
  ws.close()
  if (!init) throw new Unsupported(NO_SYSTEM_INIT)
  ctx.check('events.2', Array.isArray(init.tools), 'system_init.tools, a list', init.tools)
  return (init.tools as unknown[]).map(String)
}
