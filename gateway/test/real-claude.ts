/**
 * The real Claude Code CLI for tests: the Agent SDK's own native package at the SDK's
 * version, installed into the shared real-binary cache (never the project's dependencies, whose
 * `overrides` stub it), run offline against the fake Messages API with its own HOME and TMPDIR.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startFakeAnthropicServer, type FakeAnthropicServer } from '../../fake-engines/model-apis/anthropic-messages/server.ts'
import { installPinned, isolatedDirs, type Installed } from './real-binaries.ts'

const SDK_PACKAGE = fileURLToPath(new URL('../../node_modules/@anthropic-ai/claude-agent-sdk/package.json', import.meta.url))

/** The native package pinned to the SDK's own version (0.3.330 ships Claude Code 2.1.330). */
export const REAL_CLAUDE_PACKAGE = {
  name: `@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}`,
  version: (JSON.parse(readFileSync(SDK_PACKAGE, 'utf8')) as { version: string }).version,
}

export type RealClaude = { ok: true; binary: string; installed: Extract<Installed, { ok: true }> } | { ok: false; reason: string }

export async function installRealClaude(): Promise<RealClaude> {
  const installed = await installPinned(REAL_CLAUDE_PACKAGE)
  if (!installed.ok) return installed
  return { ok: true, binary: join(installed.dir, 'node_modules', REAL_CLAUDE_PACKAGE.name, process.platform === 'win32' ? 'claude.exe' : 'claude'), installed }
}

export interface RealClaudeWorld {
  api: FakeAnthropicServer
  /** Environment for the CLI: the fake API, any key, no telemetry, its own HOME and TMPDIR. */
  env: Record<string, string>
  /** A config directory of its own (CLAUDE_CONFIG_DIR), for a profile's `configDir`. */
  configDir: string
  dispose(): Promise<void>
}

export async function realClaudeWorld(prefix = 'real-claude'): Promise<RealClaudeWorld> {
  const api = await startFakeAnthropicServer()
  const dirs = await isolatedDirs(prefix)
  const configDir = await dirs.extra('claude-config')
  return {
    api,
    configDir,
    env: {
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: 'sk-ant-fake-key-for-tests',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      HOME: dirs.home,
      TMPDIR: dirs.tmp,
    },
    async dispose() {
      await api.close()
      await dirs.dispose()
    },
  }
}
