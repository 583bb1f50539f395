/** Loads and checks a target manifest; a bad one is a usage error (exit 2), never a crash. */
import { readFile } from 'node:fs/promises'
import type { TargetManifest } from './types.ts'

export class ManifestError extends Error {}

export function checkManifest(value: unknown, source: string): TargetManifest {
  if (typeof value !== 'object' || value === null) throw new ManifestError(`${source}: a manifest must be a JSON object`)
  const m = value as Partial<TargetManifest>
  if (typeof m.baseUrl !== 'string' || !/^https?:\/\//.test(m.baseUrl)) throw new ManifestError(`${source}: baseUrl must be an http(s) URL`)
  if (typeof m.tokens !== 'object' || m.tokens === null) throw new ManifestError(`${source}: tokens must be an object of principal → bearer token`)
  for (const [who, token] of Object.entries(m.tokens)) if (typeof token !== 'string') throw new ManifestError(`${source}: tokens.${who} must be a string`)
  if (m.profiles !== undefined && (typeof m.profiles !== 'object' || m.profiles === null)) throw new ManifestError(`${source}: profiles must be an object`)
  if (m.features !== undefined && !Array.isArray(m.features)) throw new ManifestError(`${source}: features must be an array of strings`)
  checkEngineRoles(m, source)
  return { ...m, baseUrl: m.baseUrl.replace(/\/$/, ''), profiles: m.profiles ?? {}, features: m.features ?? [] } as TargetManifest
}

/**
 * An engine feature names the profile role its cases run on (issue 12: `cli_secondary`, the codex
 * engine on the target's fake `codex app-server`): offering the feature without the role is a
 * usage error, not a run of cases that cannot pick a profile.
 */
const ENGINE_ROLES = ['cli_secondary'] as const

function checkEngineRoles(m: Partial<TargetManifest>, source: string): void {
  for (const role of ENGINE_ROLES) {
    if (m.features?.includes(role) && typeof m.profiles?.[role] !== 'string') throw new ManifestError(`${source}: feature ${role} needs profiles.${role}`)
  }
}

export async function loadManifest(path: string): Promise<TargetManifest> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch {
    throw new ManifestError(`cannot read manifest ${path}`)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    throw new ManifestError(`${path}: not JSON: ${(err as Error).message}`)
  }
  return checkManifest(value, path)
}

/** A manifest for `--url --token`: only the operator, no features, so other cases are unsupported. */
export function urlManifest(baseUrl: string, token: string | undefined, profile?: string): TargetManifest {
  return checkManifest({ baseUrl, tokens: token ? { operator: token } : {}, profiles: profile ? { provider: profile } : {}, features: profile ? ['provider'] : [] }, '--url')
}
