/**
 * A new codex child's handshake (reference/codex-app-server-protocol.md §4-5): `initialize`, the
 * `initialized` notification, then the session's thread, started or resumed by id (a dormant wake,
 * a respawn), with the session's cwd, permission mode and model.
 */
import type { PermissionMode } from '../../protocol/index.ts'
import { threadSettings } from './modes.ts'
import type { CodexPeer, Json } from './peer.ts'

export interface HandshakeSettings {
  timeoutMs: number
  clientVersion: string
  cwd: string
  mode: PermissionMode
  model: string | undefined
}

export async function handshake(peer: CodexPeer, settings: HandshakeSettings, resume: string | undefined): Promise<Json> {
  const { timeoutMs, clientVersion, cwd, mode, model } = settings
  await peer.request('initialize', { clientInfo: { name: 'agent-session-gateway', title: null, version: clientVersion }, capabilities: { experimentalApi: true } }, timeoutMs)
  peer.notify('initialized')
  const common = { cwd, ...threadSettings(mode), ...(model ? { model } : {}) }
  return resume ? await peer.request('thread/resume', { threadId: resume, ...common }, timeoutMs) : await peer.request('thread/start', common, timeoutMs)
}
