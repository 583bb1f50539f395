/**
 * Reading a configuration file: JSON or YAML, validated by the one schema, every problem reported
 * with its path (`profiles[2].provider.apiKeyEnv: required`) so `gateway check` lists them all.
 * Relative paths in the file are relative to the file, not to the process's working directory.
 */
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, isAbsolute, resolve } from 'node:path'
import { CORE_SCHEMA, load as parseYaml } from 'js-yaml'
import type * as z from 'zod'
import { closest, knownKeysAt } from './did-you-mean.ts'
import { missingEnvWarnings } from './env.ts'
import { configSchema, type GatewayConfig } from './schema.ts'

export interface LoadedConfig {
  /** Undefined when there are problems. */
  config?: GatewayConfig
  /** Each `path: message`; any problem means the gateway must not start. */
  problems: string[]
  /** Startup warnings (unset environment variables); the gateway starts anyway. */
  warnings: string[]
  /** The directory relative paths in the file are resolved against. */
  baseDir: string
}

export async function loadConfigFile(file: string): Promise<LoadedConfig> {
  const baseDir = dirname(resolve(file))
  let text
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    return { problems: [`${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`], warnings: [], baseDir }
  }
  let raw: unknown
  const json = /\.json$/i.test(file)
  try {
    // A `.json` file is strict JSON: YAML would accept a trailing comma or a comment that every
    // other JSON tool (and the editor's schema check) rejects. Anything else is YAML,
    // with YAML 1.2's core schema: no timestamps turned into Dates, no merge keys.
    raw = json ? JSON.parse(text) : parseYaml(text, { schema: CORE_SCHEMA, filename: file })
  } catch (err) {
    return { problems: [`${file}: not valid ${json ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`], warnings: [], baseDir }
  }
  return validateConfig(raw ?? {}, baseDir)
}

export function validateConfig(raw: unknown, baseDir: string): LoadedConfig {
  const parsed = configSchema.safeParse(raw)
  if (!parsed.success) return { problems: parsed.error.issues.flatMap(formatIssues), warnings: [], baseDir }
  const config = resolvePaths(parsed.data, baseDir)
  const problems = semanticProblems(config)
  if (problems.length) return { problems, warnings: [], baseDir }
  return { config, problems: [], warnings: missingEnvWarnings(config), baseDir }
}

/** `profiles[2].provider.apiKeyEnv: required`. */
export function formatIssue(issue: z.core.$ZodIssue): string {
  const message = issue.code === 'invalid_type' && /received undefined$/.test(issue.message) ? 'required' : issue.message
  return `${formatPath(issue.path)}: ${message}`
}

/** One line per issue; an unknown key gets its own line with the closest known key, if one is close. */
function formatIssues(issue: z.core.$ZodIssue): string[] {
  if (issue.code !== 'unrecognized_keys') return [formatIssue(issue)]
  const known = knownKeysAt(issue.path)
  return issue.keys.map((key) => {
    const guess = closest(key, known)
    return `${formatPath([...issue.path, key])}: unknown key${guess ? ` (did you mean '${guess}'?)` : ''}`
  })
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '') || '(top level)'
}

/** Problems one field cannot see alone: duplicate names, files that must exist. */
function semanticProblems(config: GatewayConfig): string[] {
  const problems: string[] = []
  const seen = new Set<string>()
  config.profiles?.forEach((profile, i) => {
    if (seen.has(profile.name)) problems.push(`profiles[${i}].name: duplicate profile name '${profile.name}'`)
    seen.add(profile.name)
    if (profile.engine === 'cli_primary' && profile.configDir && !existsSync(profile.configDir)) problems.push(`profiles[${i}].configDir: ${profile.configDir} does not exist`)
  })
  if (config.hooks && !existsSync(config.hooks)) problems.push(`hooks: ${config.hooks} does not exist`)
  config.allowedCwdRoots?.forEach((root, i) => {
    if (!existsSync(root)) problems.push(`allowedCwdRoots[${i}]: ${root} does not exist`)
  })
  if (!config.auth?.principalsFile && !config.hooks && config.auth?.allowUnauthenticated !== true) {
    problems.push('auth.principalsFile: required (or a hooks module exporting authenticate, or auth.allowUnauthenticated: true)')
  }
  return problems
}

function resolvePaths(config: GatewayConfig, baseDir: string): GatewayConfig {
  const at = (path: string) => (isAbsolute(path) ? path : resolve(baseDir, path))
  const out: GatewayConfig = structuredClone(config)
  if (out.hooks) out.hooks = at(out.hooks)
  if (out.auth?.principalsFile) out.auth.principalsFile = at(out.auth.principalsFile)
  if (out.allowedCwdRoots) out.allowedCwdRoots = out.allowedCwdRoots.map(at)
  if (out.allowedConfigDirRoots) out.allowedConfigDirRoots = out.allowedConfigDirRoots.map(at)
  if (out.hostFiles?.roots) out.hostFiles.roots = out.hostFiles.roots.map(at)
  if (out.parking?.store?.kind === 'file') out.parking.store.dir = at(out.parking.store.dir)
  if (out.profileStore?.kind === 'file') out.profileStore.file = at(out.profileStore.file)
  // A bare command name is looked up on PATH; anything with a slash is a path.
  const program = (path: string | undefined) => (path?.includes('/') ? at(path) : path)
  if (out.engines?.cli_primary?.executable) out.engines.cli_primary.executable = program(out.engines.cli_primary.executable)
  if (out.engines?.cli_secondary?.codexPath) out.engines.cli_secondary.codexPath = program(out.engines.cli_secondary.codexPath)
  for (const profile of out.profiles ?? []) {
    if (profile.engine === 'cli_primary' && profile.configDir) profile.configDir = at(profile.configDir)
    if (profile.engine === 'cli_primary' && profile.executable) profile.executable = program(profile.executable)
    if (profile.engine === 'cli_secondary' && profile.codexHome) profile.codexHome = at(profile.codexHome)
    if (profile.engine === 'cli_secondary' && profile.codexPath) profile.codexPath = program(profile.codexPath)
  }
  return out
}
