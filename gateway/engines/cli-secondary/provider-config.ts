/**
 * Which model provider a CODEX_HOME's `config.toml` selects, and whether it needs an OpenAI login
 * (reference/codex-app-server-protocol.md §2, §13): a `[model_providers.<id>]` block with
 * `requires_openai_auth` unset or false runs turns with no login at all (`codex login status`
 * still says "Not logged in"), reading its key, if any, from the variable its `env_key` names.
 * Only those few keys are read, with a reader for TOML's plain `key = value` lines: the
 * gateway never interprets the rest of codex's configuration.
 */
import { readFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'

export interface SelectedProvider {
  id: string
  /** The provider authenticates with the CODEX_HOME's OpenAI login (`auth.json`). */
  requiresOpenaiAuth: boolean
  /** The environment variable its key comes from, when it names one. */
  envKey?: string
}

/** codex's built-in providers that need no login (the others, `openai` first, use the login store). */
const LOGINLESS_BUILT_INS = new Set(['oss', 'ollama', 'lmstudio'])

/** The provider the home's config.toml selects; undefined when it selects none (codex's OpenAI default) or has no file. */
export async function selectedProvider(env: Record<string, string | undefined>): Promise<SelectedProvider | undefined> {
  const home = env.CODEX_HOME || join(homedir(), '.codex')
  let text: string
  try {
    text = await readFile(join(home, 'config.toml'), 'utf8')
  } catch {
    return undefined
  }
  const tables = tomlTables(text)
  const id = tables.get('')?.get('model_provider')
  if (typeof id !== 'string') return undefined
  const block = tables.get(`model_providers.${id}`)
  if (!block) return LOGINLESS_BUILT_INS.has(id) ? { id, requiresOpenaiAuth: false } : { id, requiresOpenaiAuth: true }
  const envKey = block.get('env_key')
  return { id, requiresOpenaiAuth: block.get('requires_openai_auth') === true, ...(typeof envKey === 'string' && envKey ? { envKey } : {}) }
}

type Value = string | boolean | number
/** Table name ('' for the top level) → its `key = value` pairs with string, boolean or number values. */
function tomlTables(text: string): Map<string, Map<string, Value>> {
  const tables = new Map<string, Map<string, Value>>([['', new Map()]])
  let current = tables.get('')!
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    const header = /^\[([^[\]]+)\]\s*(#.*)?$/.exec(line)
    if (header) {
      const name = header[1]!.split('.').map((part) => part.trim().replace(/^"(.*)"$/, '$1')).join('.')
      if (!tables.has(name)) tables.set(name, new Map())
      current = tables.get(name)!
      continue
    }
    const pair = /^([A-Za-z0-9_-]+)\s*=\s*(.+)$/.exec(line)
    if (!pair) continue
    const value = scalar(pair[2]!)
    if (value !== undefined) current.set(pair[1]!, value)
  }
  return tables
}

function scalar(text: string): Value | undefined {
  const quoted = /^"((?:[^"\\]|\\.)*)"|^'([^']*)'/.exec(text)
  if (quoted) return quoted[1] !== undefined ? quoted[1].replace(/\\(.)/g, '$1') : quoted[2]
  const bare = text.replace(/#.*$/, '').trim()
  if (bare === 'true' || bare === 'false') return bare === 'true'
  const n = Number(bare)
  return bare && Number.isFinite(n) ? n : undefined
}
