/**
 * The programs a configuration's CLI engines run: the engine block's program when it
 * names one or a profile runs it, each profile's own, and their interpreters, each with the path
 * in the file that names it. `gateway check` and `serve` refuse a program that is missing or not
 * runnable (preflight.ts); readyz asks the same question while the gateway runs (run-time-checks.ts).
 */
import { constants, statSync } from 'node:fs'
import { access } from 'node:fs/promises'
import { delimiter, join } from 'node:path'
import { resolveCodexPath } from '../engines/cli-secondary/binary.ts'
import { sdkOwnBinary } from './engine-wiring.ts'
import type { GatewayConfig } from './schema.ts'

/** A program an engine runs, with the path in the file that names it. */
export interface EngineProgram {
  engine: 'cli_primary' | 'cli_secondary'
  where: string
  path: string
  /** Set when `path` is a script this interpreter runs (then it must be readable, not executable). */
  interpreter?: string
}

/** Every program the declared profiles run; `problems` says when the SDK's own binary is needed but absent. */
export function enginePrograms(config: GatewayConfig): { programs: EngineProgram[]; problems: string[] } {
  const programs: EngineProgram[] = []
  const problems: string[] = []
  const declared = (config.profiles ?? []).map((profile, i) => ({ profile, at: `profiles[${i}]` }))
  const add = (engine: EngineProgram['engine'], where: string, path: string, interpreter: string | undefined, interpreterWhere: string) => {
    programs.push({ engine, where, path, ...(interpreter ? { interpreter } : {}) })
    if (interpreter) programs.push({ engine, where: interpreterWhere, path: interpreter })
  }
  const primary = config.engines?.cli_primary ?? {}
  const primaries = declared.filter(({ profile }) => profile.engine === 'cli_primary')
  if (primaries.length) {
    if (primary.executable) add('cli_primary', 'engines.cli_primary.executable', primary.executable, primary.interpreter, 'engines.cli_primary.interpreter')
    else {
      if (primaries.some(({ profile }) => profile.engine === 'cli_primary' && !profile.executable)) {
        try { programs.push({ engine: 'cli_primary', where: "engines.cli_primary.executable (unset: the SDK's own binary)", path: sdkOwnBinary() }) } catch (err) { problems.push((err as Error).message) }
      }
      if (primary.interpreter) programs.push({ engine: 'cli_primary', where: 'engines.cli_primary.interpreter', path: primary.interpreter })
    }
    for (const { profile, at } of primaries) {
      if (profile.engine === 'cli_primary' && profile.executable) add('cli_primary', `${at}.executable`, profile.executable, profile.interpreter, `${at}.interpreter`)
    }
  }
  const secondary = config.engines?.cli_secondary ?? {}
  const secondaries = declared.filter(({ profile }) => profile.engine === 'cli_secondary')
  if (secondaries.length) {
    if (secondary.codexPath || secondaries.some(({ profile }) => profile.engine === 'cli_secondary' && !profile.codexPath)) {
      const where = secondary.codexPath ? 'engines.cli_secondary.codexPath' : 'engines.cli_secondary.codexPath (unset: @openai/codex, else codex on PATH)'
      add('cli_secondary', where, resolveCodexPath(secondary.codexPath), secondary.interpreter, 'engines.cli_secondary.interpreter')
    } else if (secondary.interpreter) programs.push({ engine: 'cli_secondary', where: 'engines.cli_secondary.interpreter', path: secondary.interpreter })
    for (const { profile, at } of secondaries) {
      if (profile.engine === 'cli_secondary' && profile.codexPath) add('cli_secondary', `${at}.codexPath`, profile.codexPath, profile.interpreter, `${at}.interpreter`)
    }
  }
  return { programs, problems }
}

/** A program to run: executable itself, or a script readable by the interpreter that runs it. */
export async function programProblems(where: string, program: string, interpreter: string | undefined, env: NodeJS.ProcessEnv): Promise<string[]> {
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

function isFile(path: string): boolean {
  try { return statSync(path).isFile() } catch { return false }
}
