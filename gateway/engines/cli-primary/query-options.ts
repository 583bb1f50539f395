/**
 * The SDK options one Claude CLI process of a session starts with: the host's `sdkOptions`, then
 * the session's own settings (cwd, model, mode, resume, tools), its MCP servers and the runner's
 * permission and hook callbacks. A respawn after a crash builds them again from the session's
 * current model and mode.
 */
import type { Options } from '@anthropic-ai/claude-agent-sdk'
import type { PermissionMode } from '../../protocol/index.ts'
import type { PeerPort } from '../../sessions/peers.ts'
import type { RunnerConfig } from '../../sessions/runner.ts'
import { PEER_SERVER, peerServer } from './peer-tools.ts'
import type { ClaudeAgentSdk } from './sdk.ts'

export interface QueryShape {
  config: RunnerConfig
  sdkOptions: Partial<Options>
  peers: PeerPort | undefined
  model: string | undefined
  permissionMode: PermissionMode
  resume: string | undefined
  fork: boolean
  /** canUseTool and hooks: the runner's answers to the CLI's requests. */
  requests: Partial<Options>
  /** Relay depth of the latest peer message, read when the peer server sends one on. */
  hops: () => number
}

export function queryOptions(sdk: ClaudeAgentSdk, s: QueryShape): Options {
  const { config, model, resume } = s
  return {
    // A sub-agent's own text and thinking reach the client, not only its tool calls (engine-facts §1); a host's sdkOptions may turn it off.
    forwardSubagentText: true,
    ...s.sdkOptions,
    cwd: config.cwd,
    ...(model ? { model } : {}),
    permissionMode: s.permissionMode,
    ...(config.canBypassPermissions ? { allowDangerouslySkipPermissions: true } : {}),
    includePartialMessages: config.includePartialMessages === true,
    ...(resume ? { resume } : {}),
    ...(s.fork ? { forkSession: true } : {}),
    ...(typeof config.maxTurns === 'number' ? { maxTurns: config.maxTurns } : {}),
    ...(Array.isArray(config.allowedTools) ? { allowedTools: config.allowedTools as string[] } : {}),
    ...(Array.isArray(config.disallowedTools) ? { disallowedTools: config.disallowedTools as string[] } : {}),
    ...mcpOptions(sdk, s),
    ...s.requests,
  }
}

/**
 * The session's own MCP servers plus, with peers on, the in-process peer server. Its tools are
 * allowed in canUseTool, not by bare `allowedTools` entries: those would shadow the callback for
 * them (the SDK's CLAUDE_SDK_CAN_USE_TOOL_SHADOWED warning on every session).
 */
function mcpOptions(sdk: ClaudeAgentSdk, s: QueryShape): Partial<Options> {
  const own = (s.config.mcpServers ?? {}) as NonNullable<Options['mcpServers']>
  if (!s.peers) return Object.keys(own).length ? { mcpServers: own } : {}
  return { mcpServers: { ...own, [PEER_SERVER]: peerServer(sdk, s.peers, s.hops) } }
}
