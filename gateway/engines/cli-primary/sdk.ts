/**
 * The Claude Agent SDK, imported on first use. It is an optional peer of the gateway package:
 * an operator who declares no cli_primary profile never installs it (nor its native CLI binary).
 */
import { importOptional } from '../../optional-package.ts'

export type ClaudeAgentSdk = typeof import('@anthropic-ai/claude-agent-sdk')

const SDK_PACKAGE = '@anthropic-ai/claude-agent-sdk'
let loading: Promise<ClaudeAgentSdk> | undefined

/** Resolves once per process; a composition root awaits it at startup when a cli_primary profile is declared. */
export function loadClaudeAgentSdk(): Promise<ClaudeAgentSdk> {
  loading ??= importOptional(SDK_PACKAGE, 'a cli_primary profile', () => import('@anthropic-ai/claude-agent-sdk'))
  // A failed import is not cached, so installing the package and retrying works without a restart.
  loading.catch(() => { loading = undefined })
  return loading
}
