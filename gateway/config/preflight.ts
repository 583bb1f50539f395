/**
 * Everything `serve` validates before it listens, as one function both commands run: `serve`
 * refuses to start on any problem, and `gateway check` prints the same lines, so a check that
 * passes predicts a serve that starts. Each problem is one line led by the path in the
 * file it concerns. `connect: false` (`check --no-connect`) skips only the database round trip.
 */
import { constants, statSync } from 'node:fs'
import { access } from 'node:fs/promises'
import { dirname } from 'node:path'
import { resolveOptions } from '../server/options.ts'
import { loadClaudeAgentSdk } from '../engines/cli-primary/sdk.ts'
import { MissingPackageError } from '../optional-package.ts'
import { enginePrograms, programProblems } from './engine-programs.ts'
import { envReferences, missingEnvProblems } from './env.ts'
import { codexLoginWarnings } from './run-time-checks.ts'
import { loadConfigFile, type LoadedConfig } from './load.ts'
import { readPrincipals } from './principals.ts'
import { loadHooks, serverProfiles } from './server-options.ts'
import type { GatewayConfig } from './schema.ts'

export interface PreflightOptions {
  /** Connect to each declared PostgreSQL database (default true). */
  connect?: boolean
  env?: NodeJS.ProcessEnv
  /**
   * `gateway check`: with checkCredentials, probe each codex profile's login and warn about one
   * that is not logged in (serve starts anyway and probes after listening, so serve skips this).
   */
  logins?: boolean
}

export async function preflight(file: string, options: PreflightOptions = {}): Promise<LoadedConfig> {
  const loaded = await loadConfigFile(file)
  if (!loaded.config) return loaded
  const config = loaded.config
  const env = options.env ?? process.env
  const principals = await checkPrincipals(config)
  const problems = [
    ...principals.problems,
    ...await hooksProblems(config),
    ...serverOptionProblems(config),
    ...missingEnvProblems(config, env),
    ...await engineProblems(config, env),
    ...await writableProblems(config),
  ]
  if (!problems.length && options.connect !== false) problems.push(...await databaseProblems(config, env))
  const warnings = [...loaded.warnings, ...principals.warnings]
  if (problems.length) return { problems, warnings, baseDir: loaded.baseDir }
  return { ...loaded, warnings: options.logins ? [...warnings, ...await codexLoginWarnings(config)] : warnings }
}

/**
 * A principals file that does not read is a problem. An entry with neither a scope nor
 * `operator: true` is valid (principal.1: absent scope means unrestricted) but sees every tenant's
 * sessions, which is rarely what was meant: a warning, one per entry, naming the id only.
 */
async function checkPrincipals(config: GatewayConfig): Promise<{ problems: string[]; warnings: string[] }> {
  const file = config.auth?.principalsFile
  if (!file) return { problems: [], warnings: [] }
  try {
    const { principals } = await readPrincipals(file)
    const unrestricted = Object.values(principals).filter((p) => p.operator !== true && Object.keys(p.scope ?? {}).length === 0)
    return {
      problems: [],
      warnings: unrestricted.map((p) => `auth.principalsFile: principal '${p.id}' has neither a scope nor operator: true, so it is unrestricted (it sees every tenant's sessions and jobs)`),
    }
  } catch (err) {
    return { problems: [`auth.principalsFile: ${(err as Error).message}`], warnings: [] }
  }
}

async function hooksProblems(config: GatewayConfig): Promise<string[]> {
  if (!config.hooks) return []
  try {
    await loadHooks(config.hooks)
    return []
  } catch (err) {
    const message = (err as Error).message.split('\n')[0]
    return [message.startsWith('hooks:') ? message : `hooks: ${config.hooks} cannot be loaded: ${message}`]
  }
}

/**
 * The server's own construction checks (createGatewayServer's resolveOptions: profile defaults
 * against the engine's record, CORS origins, requireAvailableProfile without checkCredentials …),
 * run on the file's data with placeholders where `serve` passes functions.
 */
function serverOptionProblems(config: GatewayConfig): string[] {
  const problems: string[] = []
  try {
    resolveOptions({
      authenticate: () => null,
      createEngineRunner: () => { throw new Error('not built by a check') },
      profiles: serverProfiles(config.profiles) ?? [],
      basePath: config.basePath,
      cors: config.cors,
      maxBodyBytes: config.maxBodyBytes,
      requireAvailableProfile: config.requireAvailableProfile,
      checkCredentials: config.checkCredentials,
    })
  } catch (err) {
    // The server names the option at the start of its message; a profile's problem names the profile.
    const message = (err as Error).message.replace(/^createGatewayServer: /, '')
    const option = /^(\w+) /.exec(message)?.[1]
    const path = message.startsWith('profile ') ? 'profiles' : option && option in config ? option : '(top level)'
    problems.push(message.startsWith(`${path} `) ? message.replace(`${path} `, `${path}: `) : `${path}: ${message}`)
  }
  config.hostFiles?.roots?.forEach((root, i) => {
    if (!isDirectory(root)) problems.push(`hostFiles.roots[${i}]: ${root} does not exist or is not a directory`)
  })
  return problems
}

/** Engine packages, and the program of each engine a declared profile uses (enginePrograms). */
async function engineProblems(config: GatewayConfig, env: NodeJS.ProcessEnv): Promise<string[]> {
  const problems: string[] = []
  if ((config.profiles ?? []).some((p) => p.engine === 'cli_primary')) {
    try {
      await loadClaudeAgentSdk()
    } catch (err) {
      if (!(err instanceof MissingPackageError)) throw err
      problems.push(err.message)
    }
  }
  const programs = enginePrograms(config)
  // Without the SDK, where its own binary would be is beside the point: the package line says it all.
  if (!problems.length) problems.push(...programs.problems)
  for (const program of programs.programs) problems.push(...await programProblems(program.where, program.path, program.interpreter, env))
  return problems
}

/** Directories the gateway writes: each must be writable, or creatable under a writable parent. */
async function writableProblems(config: GatewayConfig): Promise<string[]> {
  const dirs: Array<[string, string]> = []
  if (config.parking?.store?.kind === 'file') dirs.push(['parking.store.dir', config.parking.store.dir])
  if (config.profileStore?.kind === 'file') dirs.push(['profileStore.file', dirname(config.profileStore.file)])
  const problems: string[] = []
  for (const [where, dir] of dirs) {
    let existing = dir
    while (!exists(existing) && dirname(existing) !== existing) existing = dirname(existing)
    if (!isDirectory(existing)) {
      problems.push(`${where}: ${existing} is not a directory`)
      continue
    }
    try {
      await access(existing, constants.W_OK | constants.X_OK)
    } catch {
      problems.push(`${where}: ${existing === dir ? dir : `${dir} cannot be created: ${existing}`} is not writable by this user`)
    }
  }
  return problems
}

/** One round trip to each declared database; the message names the variable, never the URL. */
async function databaseProblems(config: GatewayConfig, env: NodeJS.ProcessEnv): Promise<string[]> {
  const databases = envReferences(config).filter((ref) => ref.required && ref.holds === undefined && env[ref.name])
  if (!databases.length) return []
  const { default: pg } = await import('pg')
  const problems: string[] = []
  for (const ref of databases) {
    const client = new pg.Client({ connectionString: env[ref.name], connectionTimeoutMillis: 5000 })
    client.on('error', () => {}) // a connection dropped after the query is not this check's concern
    try {
      await client.connect()
      await client.query('SELECT 1')
    } catch (err) {
      const { code, message } = err as NodeJS.ErrnoException
      problems.push(`${ref.path}: cannot reach the PostgreSQL database in ${ref.name} (${code ?? 'error'}: ${scrub(message, env[ref.name]!)}); \`gateway check --no-connect\` skips this`)
    } finally {
      await client.end().catch(() => {})
    }
  }
  return problems
}

function scrub(message: string, url: string): string {
  return message.split(url).join('[the URL]')
}

function exists(path: string): boolean {
  try { statSync(path); return true } catch { return false }
}

function isDirectory(path: string): boolean {
  try { return statSync(path).isDirectory() } catch { return false }
}
