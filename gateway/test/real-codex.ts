/**
 * The real `codex` for tests: the pinned npm package in the shared real-binary cache,
 * and the config.toml that points it at the loopback fake Responses API with no outbound traffic.
 */
import { findNpmCodex } from '../engines/cli-secondary/binary.ts'
import { installPinned } from './real-binaries.ts'

export const PINNED_CODEX = { name: '@openai/codex', version: '0.169.0' }

export async function installRealCodex() {
  const installed = await installPinned(PINNED_CODEX)
  const codexBin = installed.ok ? findNpmCodex(installed.dir) : undefined
  const skipReason = !installed.ok ? installed.reason : !codexBin ? `no native codex binary for ${process.platform}-${process.arch} in ${installed.dir}` : undefined
  return { installed, codexBin, skipReason }
}

/** codex's config.toml: the loopback model provider, and no outbound plugin or update traffic (§13). */
export function codexConfigToml(baseURL: string): string {
  return [
    'model = "mock-model"', 'model_provider = "mock"', '',
    '[model_providers.mock]', 'name = "mock"', `base_url = "${baseURL}"`, 'wire_api = "responses"', 'requires_openai_auth = false',
    'supports_websockets = false', 'request_max_retries = 0', 'stream_max_retries = 0', '',
    '[features]', 'plugins = false', 'remote_plugin = false', 'apps = false', 'in_app_updates = false', '',
  ].join('\n')
}
