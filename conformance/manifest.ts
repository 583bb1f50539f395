/**
 * Loads and checks a target manifest against its schema (target/manifest-schema.ts). A bad one is a
 * usage error (exit 2) with one line per problem, and an unknown name gets a "did you mean".
 */
import { readFile } from 'node:fs/promises'
import type { z } from 'zod'
import { closest } from '../gateway/protocol/closest-name.ts'
import { manifestSchema, type TargetManifest } from './target/manifest-schema.ts'

export class ManifestError extends Error {}

export function checkManifest(value: unknown, source: string): TargetManifest {
  const parsed = manifestSchema.safeParse(value)
  if (!parsed.success) throw new ManifestError(parsed.error.issues.map((issue) => `${source}: ${describe(issue, value)}`).join('\n'))
  const m = parsed.data
  const both = m.features.filter((f) => m.absent.includes(f))
  if (both.length) throw new ManifestError(`${source}: ${both.join(', ')} listed in both features and absent`)
  checkEngineRoles(m, source)
  return { ...m, baseUrl: m.baseUrl.replace(/\/$/, '') }
}

function describe(issue: z.core.$ZodIssue, root: unknown): string {
  const path = issue.path.map(String).join('.') || '(manifest)'
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeys(issue.path)
    return issue.keys.map((key) => `unknown field ${[...issue.path, key].join('.')}${hint(key, known)}`).join('; ')
  }
  if (issue.code === 'invalid_value' && issue.values) {
    const got = issue.path.reduce<any>((v, k) => v?.[k as string], root)
    return `${path}: unknown value ${JSON.stringify(got)}${hint(String(got), issue.values.map(String))}`
  }
  return `${path}: ${issue.message}`
}

function hint(word: string, options: string[]): string {
  const best = closest(word, options)
  return best ? ` (did you mean '${best}'?)` : ''
}

/** The field names allowed at a path of the manifest (for "did you mean" on an unknown one). */
function knownKeys(path: PropertyKey[]): string[] {
  let schema: any = manifestSchema
  for (const key of path) {
    while (schema?.def?.innerType) schema = schema.def.innerType
    schema = schema?.shape?.[key as string]
  }
  while (schema?.def?.innerType) schema = schema.def.innerType
  return Object.keys(schema?.shape ?? {})
}

/**
 * An engine feature names the profile role its cases run on (`cli_secondary`, the codex
 * engine on the target's fake `codex app-server`): offering the feature without the role is a
 * usage error, not a run of cases that cannot pick a profile.
 */
const ENGINE_ROLES = ['cli_secondary'] as const

function checkEngineRoles(m: Pick<TargetManifest, 'features' | 'profiles' | 'realEngines'>, source: string): void {
  for (const role of ENGINE_ROLES) {
    if (m.features?.includes(role) && typeof m.profiles?.[role] !== 'string') throw new ManifestError(`${source}: feature ${role} needs profiles.${role}`)
  }
  // A real engine nobody runs is a typo or a stale entry; say so rather than start a model API for nothing.
  for (const engine of Object.keys(m.realEngines ?? {}) as Array<keyof NonNullable<TargetManifest['realEngines']>>) {
    if (m.realEngines?.[engine] && !m.features?.includes(engine)) throw new ManifestError(`${source}: realEngines.${engine} is set, but features does not offer ${engine}`)
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

/**
 * A manifest for `--url --token`: only the operator, and no feature either way (silence is
 * "unknown", so cases needing a feature present or absent are `unsupported`).
 */
export function urlManifest(baseUrl: string, token: string | undefined, profile?: string): TargetManifest {
  return checkManifest({ baseUrl, tokens: token ? { operator: token } : {}, profiles: profile ? { provider: profile } : {}, features: profile ? ['provider'] : [] }, '--url')
}
