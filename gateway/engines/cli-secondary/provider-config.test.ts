/**
 * Which provider a CODEX_HOME's config.toml selects, as the codex credential probe reads it: the
 * documented provider block (no OpenAI login), a block that asks for the login, a built-in, none.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { selectedProvider } from './provider-config.ts'

let home: string | undefined
afterEach(async () => {
  if (home) await rm(home, { recursive: true, force: true })
})

async function withConfig(toml: string | undefined) {
  home = await mkdtemp(join(tmpdir(), 'codex-config-'))
  if (toml !== undefined) await writeFile(join(home, 'config.toml'), toml)
  return selectedProvider({ CODEX_HOME: home })
}

describe('the model provider a codex config.toml selects', () => {
  it('reads the documented block: its env_key, no OpenAI login (requires_openai_auth false or unset)', async () => {
    const toml = ['model = "gpt-5-codex"  # a comment', 'model_provider = "local"', '', '[model_providers.local]', 'name = "local"', "env_key = 'LOCAL_KEY'", 'base_url = "http://127.0.0.1:8080/v1"', '', '[features]', 'plugins = false'].join('\n')
    expect(await withConfig(toml)).toEqual({ id: 'local', requiresOpenaiAuth: false, envKey: 'LOCAL_KEY' })
    expect(await withConfig('model_provider = "p"\n[model_providers."p"]\nrequires_openai_auth = true\n')).toEqual({ id: 'p', requiresOpenaiAuth: true })
  })

  it('knows the built-in providers: ollama needs no login, openai (and an undeclared name) the login store', async () => {
    expect(await withConfig('model_provider = "ollama"\n')).toEqual({ id: 'ollama', requiresOpenaiAuth: false })
    expect(await withConfig('model_provider = "openai"\n')).toEqual({ id: 'openai', requiresOpenaiAuth: true })
  })

  it('is undefined with no file, or a file that selects no provider (codex then uses its OpenAI default)', async () => {
    expect(await withConfig(undefined)).toBeUndefined()
    expect(await withConfig('[model_providers.local]\nmodel_provider = "not top level"\n')).toBeUndefined()
  })
})
