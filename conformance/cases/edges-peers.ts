/**
 * Edge cases on peer messaging found by reviewing generated mutation survivors:
 * the kit saw a cli_primary peer message arrive, never what the sending tool answered.
 */
import { Unsupported, type Case } from '../types.ts'

const call = (name: string, input: Record<string, unknown>) => ({ type: 'tool', name, input })
const peerEdgeScenario = (...steps: unknown[]) => `scenario:${JSON.stringify({ name: 'edges-peers', steps: [...steps, { type: 'text', text: '{{toolResult}}' }] })}`

export const peerEdgeCases: Case[] = [
  {
    id: 'peers-send-in-scope-cli-primary', title: 'on cli_primary, a peers_send to a session in scope is delivered and answered without a tool error', section: 'peers',
    clauses: ['peers.1', 'what-the-service-does.12'], requires: ['provider', 'cli_primary', 'peers'],
    async run(ctx) {
      // peers.1: every session on every engine has peers_send, and a session created by the same
      // principal is in the sender's scope: the message arrives as a user_message with a peer
      // origin. A send that was delivered must not be answered to the sending model as a failure.
      // The cli_primary peer tools are the gateway's SDK MCP server `peers` (mcp__peers__peers_send).
      const cwd = ctx.manifest.cwdRoot
      if (!cwd) throw new Unsupported('the manifest gives no cwdRoot')
      const b = await ctx.idleSession()
      const primary = await ctx.createSession({ profile: ctx.profile('cli_primary'), cwd })
      const ws = await ctx.ws(primary.id)
      const marker = `kit-peer-${Math.floor(ctx.random() * 1e9)}`
      ws.send({ type: 'user_message', text: peerEdgeScenario(call('mcp__peers__peers_send', { sessionId: b.session.id, text: marker })) })
      await ws.waitForEvent('turn_result', ctx.deadlineMs)
      await b.ws.waitForEvent('user_message', ctx.deadlineMs, (e) => e.origin?.kind === 'peer' && e.origin?.sessionId === primary.id && JSON.stringify(e.message ?? null).includes(marker))
      const results = ws.events().filter((e) => e.type === 'user_message').flatMap((e) => (Array.isArray(e.message?.content) ? e.message.content : [])).filter((c: any) => c?.type === 'tool_result')
      ctx.check('peers.1', results.length > 0, 'a tool_result for the peers_send call', ws.events().map((e) => e.type))
      ctx.check('peers.1', results.every((r: any) => r.is_error !== true), 'a delivered peers_send answered without a tool error', results.map((r: any) => ({ is_error: r.is_error, content: JSON.stringify(r.content ?? null).slice(0, 200) })))
    },
  },
]
