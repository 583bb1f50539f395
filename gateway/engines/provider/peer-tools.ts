/**
 * `peers_list`, `peers_peek`, `peers_send` (Peers) for provider sessions: every session has them
 * when peers are enabled. The session's port comes through ToolEnv, so one tool set serves all.
 */
import type { LocalTool, ToolEnv } from './tools.ts'

export function peerTools(): LocalTool[] {
  const port = (env: ToolEnv) => env.peers
  return [
    {
      kind: 'local', name: 'peers_list', description: 'List the other sessions you can message.',
      inputSchema: { type: 'object', properties: {} },
      async run(_input, env) {
        const peers = port(env)
        return peers ? { ok: true, value: { peers: peers.list() } } : { ok: false, error: 'peers are disabled' }
      },
    },
    {
      kind: 'local', name: 'peers_peek', description: 'Read the latest messages of another session.',
      inputSchema: { type: 'object', properties: { sessionId: { type: 'string' }, limit: { type: 'number' } }, required: ['sessionId'] },
      async run(input, env) {
        const peers = port(env)
        if (!peers) return { ok: false, error: 'peers are disabled' }
        const seen = peers.peek(String(input.sessionId ?? ''), typeof input.limit === 'number' ? input.limit : undefined)
        return seen.ok ? { ok: true, value: { messages: seen.messages } } : seen
      },
    },
    {
      kind: 'local', name: 'peers_send', description: 'Send a message to another session; it never interrupts that session\'s turn.',
      inputSchema: { type: 'object', properties: { sessionId: { type: 'string' }, text: { type: 'string' } }, required: ['sessionId', 'text'] },
      async run(input, env) {
        const peers = port(env)
        if (!peers) return { ok: false, error: 'peers are disabled' }
        const sent = peers.send(String(input.sessionId ?? ''), String(input.text ?? ''), env.hops)
        return sent.ok ? { ok: true, value: { sent: true } } : sent
      },
    },
  ]
}

