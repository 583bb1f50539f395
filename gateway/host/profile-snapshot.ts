/**
 * The view-only configuration snapshot of `GET /profiles/:name` (profile.9): what a profile's
 * engine will load, for an operator to inspect. Settings are reduced to highlights and the
 * environment to variable names: no value from a config file ever leaves the server.
 */
import { readdir, readFile, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { ResolvedProfile } from './profiles.ts'

export interface ConfigSnapshot {
  settings?: { model?: string; defaultMode?: string; envNames: string[] }
  memory?: { file: string; bytes: number }
  skills: string[]
  agents: string[]
  commands: string[]
}

export async function configSnapshot(profile: ResolvedProfile): Promise<ConfigSnapshot | undefined> {
  const dir = profile.configDir
  if (profile.engine !== 'cli_primary' || !dir) return undefined
  const snapshot: ConfigSnapshot = { skills: await names(join(dir, 'skills'), true), agents: await names(join(dir, 'agents')), commands: await names(join(dir, 'commands')) }
  const settings = await readJson(join(dir, 'settings.json'))
  if (settings) {
    const env = settings.env && typeof settings.env === 'object' ? Object.keys(settings.env as object) : []
    const permissions = settings.permissions as { defaultMode?: unknown } | undefined
    snapshot.settings = {
      ...(typeof settings.model === 'string' ? { model: settings.model } : {}),
      ...(typeof permissions?.defaultMode === 'string' ? { defaultMode: permissions.defaultMode } : {}),
      envNames: env.sort(),
    }
  }
  const memory = await stat(join(dir, 'CLAUDE.md')).catch(() => undefined)
  if (memory?.isFile()) snapshot.memory = { file: 'CLAUDE.md', bytes: memory.size }
  return snapshot
}

/** Entry names: directories (skills) or `.md` files without the extension (agents, commands). */
async function names(dir: string, directories = false): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
  return entries
    .filter((e) => (directories ? e.isDirectory() : e.isFile() && e.name.endsWith('.md')))
    .map((e) => (directories ? e.name : e.name.slice(0, -3)))
    .sort()
}

async function readJson(path: string): Promise<Record<string, unknown> | undefined> {
  try {
    const value = JSON.parse(await readFile(path, 'utf8'))
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined
  } catch {
    return undefined
  }
}
