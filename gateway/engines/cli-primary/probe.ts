/**
 * The login probe: start the CLI, read the account from its `initialize` answer, stop it. No
 * prompt is sent, so nothing is spent. A CLI that reports neither an API key nor a subscription
 * login is unavailable; one that cannot be started is no verdict (the caller logs it).
 */
import type { Options } from '@anthropic-ai/claude-agent-sdk'
import type { ProbeResult } from '../../host/availability.ts'
import { InputQueue } from './input-queue.ts'
import { loadClaudeAgentSdk } from './sdk.ts'

export async function probeLogin(sdkOptions: Partial<Options>): Promise<ProbeResult> {
  const { query } = await loadClaudeAgentSdk()
  const input = new InputQueue()
  const q = query({ prompt: input, options: { ...sdkOptions, cwd: process.cwd() } })
  try {
    const init = await q.initializationResult()
    const account = (init as { account?: { apiKeySource?: string; tokenSource?: string } }).account ?? {}
    const apiKeySource = account.apiKeySource ?? 'none'
    const loggedIn = apiKeySource !== 'none' || (account.tokenSource !== undefined && account.tokenSource !== 'none')
    return loggedIn ? { available: true } : { available: false, reason: 'not logged in: the CLI reports no API key and no subscription login' }
  } finally {
    input.end()
    try { q.close() } catch { /* already gone */ }
  }
}
