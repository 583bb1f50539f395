/**
 * Everything `serve` validates before it listens, as one function both commands run: `serve`
 * refuses to start on any problem, and `gateway check` prints the same lines, so a check that
 * passes predicts a serve that starts (issue 22). Each problem is one line led by the path in the
 * file it concerns. `connect: false` (`check --no-connect`) skips only the database round trip.
 */
import { constants, statSync } from 'node:fs'
import { access } from 'node:fs/promises'
import { delimiter, dirname, join } from 'node:path'
import { resolveOptions } from '../server/options.ts'
import { loadClaudeAgentSdk } from '../engines/cli-primary/sdk.ts'
import { resolveCodexPath } from '../engines/cli-secondary/binary.ts'
import { MissingPackageError } from '../optional-package.ts'
import { sdkOwnBinary } from './engine-wiring.ts'
import { envReferences, missingEnvProblems } from './env.ts'
import { loadConfigFile, type LoadedConfig } from './load.ts'
import { readPrincipals } from './principals.ts'
import { loadHooks, serverProfiles } from './server-options.ts'
import type { GatewayConfig } from './schema.ts'

export interface PreflightOptions {
  /** Connect to each declared PostgreSQL database (default true). */
  connect?: boolean
  env?: NodeJS.ProcessEnv
}

export async function preflight(file: string, options: PreflightOptions = {}): Promise<LoadedConfig> {
  const loaded = await loadConfigFile(file)
  if (!loaded.config) return loaded
  const config = loaded.config
  const env = options.env ?? process.env
  const problems = [
    ...await principalsProblems(config),
    ...await hooksProblems(config),
    ...serverOptionProblems(config),
    ...missingEnvProblems(config, env),
    ...await engineProblems(config, env),
    ...await writableProblems(config),
  ]
  if (!problems.length && options.connect !== false) problems.push(...await databaseProblems(config, env))
  return problems.length ? { problems, warnings: loaded.warnings, baseDir: loaded.baseDir } : loaded
}

async function principalsProblems(config: GatewayConfig): Promise<string[]> {
  const file = config.auth?.principalsFile
  if (!file) return []
  try {
    await readPrincipals(file)
    return []
  } catch (err) {
    return [`auth.principalsFile: ${(err as Error).message}`]
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

/**
 * Engine packages and executables, for each engine a declared profile uses: the engine block's
 * program when it names one or a profile runs it, and each profile's own program (issue 22).
 */
async function engineProblems(config: GatewayConfig, env: NodeJS.ProcessEnv): Promise<string[]> {
  const problems: string[] = []
  const declared = (config.profiles ?? []).map((profile, i) => ({ profile, at: `profiles[${i}]` }))
  const primary = declared.filter(({ profile }) => profile.engine === 'cli_primary')
  if (primary.length) {
    try {
      await loadClaudeAgentSdk()
    } catch (err) {
      if (!(err instanceof MissingPackageError)) throw err
      problems.push(err.message)
    }
    const settings = config.engines?.cli_primary ?? {}
    if (settings.executable) problems.push(...await programProblems('engines.cli_primary.executable', settings.executable, settings.interpreter, env))
    else if (!problems.length && primary.some(({ profile }) => profile.engine === 'cli_primary' && !profile.executable)) {
      try { sdkOwnBinary() } catch (err) { problems.push((err as Error).message) }
    }
    if (settings.interpreter) problems.push(...await programProblems('engines.cli_primary.interpreter', settings.interpreter, undefined, env))
    for (const { profile, at } of primary) {
      if (profile.engine === 'cli_primary' && profile.executable) problems.push(...await ownProgramProblems(at, 'executable', profile.executable, profile.interpreter, env))
    }
  }
  const secondary = declared.filter(({ profile }) => profile.engine === 'cli_secondary')
  if (secondary.length) {
    const settings = config.engines?.cli_secondary ?? {}
    if (settings.codexPath || secondary.some(({ profile }) => profile.engine === 'cli_secondary' && !profile.codexPath)) {
      const codex = resolveCodexPath(settings.codexPath)
      const where = settings.codexPath ? 'engines.cli_secondary.codexPath' : 'engines.cli_secondary.codexPath (unset: @openai/codex, else codex on PATH)'
      problems.push(...await programProblems(where, codex, settings.interpreter, env))
    }
    if (settings.interpreter) problems.push(...await programProblems('engines.cli_secondary.interpreter', settings.interpreter, undefined, env))
    for (const { profile, at } of secondary) {
      if (profile.engine === 'cli_secondary' && profile.codexPath) problems.push(...await ownProgramProblems(at, 'codexPath', profile.codexPath, profile.interpreter, env))
    }
  }
  return problems
}

/** A profile's own program and its interpreter, each led by its path in the file. */
async function ownProgramProblems(at: string, key: string, program: string, interpreter: string | undefined, env: NodeJS.ProcessEnv): Promise<string[]> {
  return [
    ...await programProblems(`${at}.${key}`, program, interpreter, env),
    ...interpreter ? await programProblems(`${at}.interpreter`, interpreter, undefined, env) : [],
  ]
}

/** A program to run: executable itself, or a script readable by the interpreter that runs it. */
async function programProblems(where: string, program: string, interpreter: string | undefined, env: NodeJS.ProcessEnv): Promise<string[]> {
  const path = program.includes('/') ? program : onPath(program, env)
  if (!path) return [`${where}: ${program} is not found on PATH`]
  if (!isFile(path)) return [`${where}: ${path} does not exist or is not a file`]
  try {
    await access(path, interpreter ? constants.R_OK : constants.X_OK)
    return []
  } catch {
    return [`${where}: ${path} is not ${interpreter ? 'readable' : 'executable'} by this user`]
  }
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && isFile(join(dir, name))) return join(dir, name)
  }
  return undefined
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
  const databases = envReferences(config).filter((ref) => ref.required && env[ref.name])
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

function isFile(path: string): boolean {
  try { return statSync(path).isFile() } catch { return false }
}

function isDirectory(path: string): boolean {
  try { return statSync(path).isDirectory() } catch { return false }
}
