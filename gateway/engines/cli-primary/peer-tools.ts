/**
 * Peer tools for a cli_primary session (Peers): an in-process MCP server the Agent SDK hosts, so
 * the CLI calls `mcp__peers__peers_*` over its own control channel. `hops()` gives the relay
 * depth of the message the session is answering, so a reply relayed on counts one more.
 */
import { z } from 'zod'
import type { PeerPort } from '../../sessions/peers.ts'
import type { ClaudeAgentSdk } from './sdk.ts'

export const PEER_SERVER = 'peers'
export const PEER_TOOL_NAMES = ['peers_list', 'peers_peek', 'peers_send'].map((t) => `mcp__${PEER_SERVER}__${t}`)

const text = (value: unknown, isError = false) => ({ content: [{ type: 'text' as const, text: typeof value === 'string' ? value : JSON.stringify(value) }], ...(isError ? { isError: true } : {}) })

export function peerServer({ createSdkMcpServer, tool }: ClaudeAgentSdk, port: PeerPort, hops: () => number) {
  return createSdkMcpServer({
    name: PEER_SERVER,
    version: '1',
    tools: [
      tool('peers_list', 'List the other sessions you can message.', {}, async () => text({ peers: port.list() })),
      tool('peers_peek', 'Read the latest messages of another session.', { sessionId: z.string(), limit: z.number().optional() }, async ({ sessionId, limit }) => {
        const seen = port.peek(sessionId, limit)
        return seen.ok ? text({ messages: seen.messages }) : text(seen.error, true)
      }),
      tool('peers_send', "Send a message to another session; it never interrupts that session's turn.", { sessionId: z.string(), text: z.string() }, async ({ sessionId, text: body }) => {
        const sent = port.send(sessionId, body, hops())
        return sent.ok ? text({ sent: true }) : text(sent.error, true)
      }),
    ],
  })
}
