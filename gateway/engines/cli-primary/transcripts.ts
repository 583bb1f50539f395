/**
 * The CLI's on-disk transcripts through the SDK's own readers. Those readers take the config
 * directory from this process's CLAUDE_CONFIG_DIR, while each profile has its own; calls are
 * therefore serialised and run with the variable pointing at the profile's directory.
 */
import type { SDKSessionInfo, SessionMessage } from '@anthropic-ai/claude-agent-sdk'
import { loadClaudeAgentSdk } from './sdk.ts'

let chain: Promise<unknown> = Promise.resolve()
let swapped: { previous: string | undefined } | undefined

/** The environment as configured, even while a read has CLAUDE_CONFIG_DIR pointed elsewhere. */
export function configuredEnv(): Record<string, string> {
  const env = { ...process.env } as Record<string, string>
  if (swapped) {
    if (swapped.previous === undefined) delete env.CLAUDE_CONFIG_DIR
    else env.CLAUDE_CONFIG_DIR = swapped.previous
  }
  return env
}

async function withConfigDir<T>(configDir: string | undefined, read: () => Promise<T>): Promise<T> {
  const run = chain.then(async () => {
    const previous = process.env.CLAUDE_CONFIG_DIR
    swapped = { previous }
    if (configDir) process.env.CLAUDE_CONFIG_DIR = configDir
    try {
      return await read()
    } finally {
      if (previous === undefined) delete process.env.CLAUDE_CONFIG_DIR
      else process.env.CLAUDE_CONFIG_DIR = previous
      swapped = undefined
    }
  })
  chain = run.catch(() => undefined)
  return run
}

export async function transcriptMessages(configDir: string | undefined, sessionId: string, dir?: string): Promise<SessionMessage[]> {
  const { getSessionMessages } = await loadClaudeAgentSdk()
  return withConfigDir(configDir, () => getSessionMessages(sessionId, dir ? { dir } : {}))
}

export async function transcriptSessions(configDir: string | undefined, options: { dir?: string }): Promise<SDKSessionInfo[]> {
  const { listSessions } = await loadClaudeAgentSdk()
  return withConfigDir(configDir, () => listSessions(options.dir ? { dir: options.dir } : {}))
}
