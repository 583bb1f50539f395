import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/** What the fake CLI reports about itself: commands, models (with the CLI's own `default` row), account. */
export const CLI_VERSION = '2.1.330-fake'

export const COMMANDS = [
  { name: 'clear', description: 'Clear conversation history and free up context', argumentHint: '' },
  { name: 'compact', description: 'Clear history but keep a summary in context', argumentHint: '<instructions>' },
  { name: 'review', description: 'Review a pull request', argumentHint: '' },
]

/** The CLI's list starts with a `default` selection that is not a model (engine-facts §1). */
export const MODELS = [
  { value: 'default', resolvedModel: 'claude-fake-sonnet-2', displayName: 'Default (recommended)', description: 'Sonnet 2 for daily work' },
  { value: 'sonnet', resolvedModel: 'claude-fake-sonnet-2', displayName: 'Sonnet', description: 'Sonnet 2' },
  { value: 'sonnet-1', resolvedModel: 'claude-fake-sonnet-1', displayName: 'Sonnet', description: 'Sonnet 1 (legacy)' },
  { value: 'opus', resolvedModel: 'claude-fake-opus-3', displayName: 'Opus', description: 'Opus 3' },
]

/** The built-in tools the fake announces in system_init (a subset of the real CLI's, Edit included). */
export const TOOLS = ['Bash', 'Read', 'Write', 'Edit', 'AskUserQuestion']

export function resolveModel(value: string | undefined): string {
  const row = MODELS.find((m) => m.value === (value ?? 'default'))
  return row?.resolvedModel ?? value ?? MODELS[0].resolvedModel
}

/**
 * The login as the real CLI reports it. Like the real CLI, the fake reads it from its config
 * directory (`fake-account.json`: `{apiKeySource, subscriptionType?}`, `apiKeySource: null` for an
 * account that names no key source); the environment can override.
 */
export function accountOf(env: NodeJS.ProcessEnv) {
  let stored: { apiKeySource?: string | null; subscriptionType?: string } = {}
  try {
    if (env.CLAUDE_CONFIG_DIR) stored = JSON.parse(readFileSync(join(env.CLAUDE_CONFIG_DIR, 'fake-account.json'), 'utf8'))
  } catch { /* not logged in */ }
  // `apiKeySource: null` stored: a logged-out CLI whose account names no key source at all (the
  // Agent SDK types every account field optional), so a login probe cannot lean on a 'none'.
  const unnamed = stored.apiKeySource === null && env.FAKE_CLAUDE_API_KEY_SOURCE === undefined && !env.ANTHROPIC_API_KEY
  const apiKeySource = env.FAKE_CLAUDE_API_KEY_SOURCE ?? stored.apiKeySource ?? (env.ANTHROPIC_API_KEY ? 'ANTHROPIC_API_KEY' : 'none')
  const account: Record<string, unknown> = { tokenSource: apiKeySource === 'oauth' ? 'claude.ai' : 'none', ...(unnamed ? {} : { apiKeySource }), apiProvider: 'firstParty' }
  if (apiKeySource === 'oauth') account.subscriptionType = env.FAKE_CLAUDE_SUBSCRIPTION ?? stored.subscriptionType ?? 'max'
  return account
}
