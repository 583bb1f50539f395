/**
 * What `gateway serve` depends on while it runs, asked by
 * readyz on every request and, for the codex logins, by `gateway check`: the PostgreSQL session
 * store's pool, each CLI engine's programs (an upgrade or a clean-up can remove a binary under a
 * running gateway), and whether each codex profile's CODEX_HOME holds a login.
 */
import type { HealthOptions } from '../server/health.ts'
import type { GatewayServerOptions } from '../server/options.ts'
import type { ResolvedProfile } from '../host/profiles.ts'
import { wireEngines } from './engine-wiring.ts'
import { enginePrograms, programProblems } from './engine-programs.ts'
import { serverProfiles } from './server-options.ts'
import type { GatewayConfig } from './schema.ts'

interface Pingable {
  ping(): Promise<void>
}

function pingable(store: unknown): store is Pingable {
  return typeof (store as Partial<Pingable> | undefined)?.ping === 'function'
}

/**
 * readyz's `database` and `engines` checks: the session store's pool when it is PostgreSQL (a
 * PostgreSQL queue is asked by readyz's own `queue` check), and per CLI engine, every program its
 * profiles run still present and runnable, the test `serve` passed before it listened.
 */
export function readinessDependencies(config: GatewayConfig, options: GatewayServerOptions, env: NodeJS.ProcessEnv = process.env): NonNullable<HealthOptions['dependencies']> {
  const dependencies: NonNullable<HealthOptions['dependencies']> = {}
  const store = options.parking?.store
  if (pingable(store)) dependencies.database = () => store.ping().then(() => true)
  const { programs } = enginePrograms(config)
  const engines: Record<string, () => Promise<boolean>> = {}
  for (const engine of new Set(programs.map((p) => p.engine))) {
    const own = programs.filter((p) => p.engine === engine)
    engines[engine] = async () => (await Promise.all(own.map((p) => programProblems(p.where, p.path, p.interpreter, env)))).every((problems) => !problems.length)
  }
  if (Object.keys(engines).length) dependencies.engines = engines
  return dependencies
}

/**
 * With `checkCredentials`, `gateway check` runs each codex profile's login probe (`codex login
 * status` in its CODEX_HOME, the adapter's own) and warns about a profile that is not logged in:
 * `serve` starts with it (the profile is unavailable, not the gateway), so it is a warning, never
 * a problem. A probe that cannot answer is a warning too, with its reason.
 */
export async function codexLoginWarnings(config: GatewayConfig): Promise<string[]> {
  if (!config.checkCredentials) return []
  const codex = (config.profiles ?? []).flatMap((profile, i) => (profile.engine === 'cli_secondary' ? [{ profile, at: `profiles[${i}]` }] : []))
  if (!codex.length) return []
  const { engines } = await wireEngines(config, codex.map((c) => c.profile), undefined)
  const probe = engines.cli_secondary?.probeCredentials
  if (!probe) return []
  const resolved = serverProfiles(codex.map((c) => c.profile)) as ResolvedProfile[]
  const verdicts = await Promise.all(resolved.map((profile) => probe(profile).then((v) => v, (err: Error) => err)))
  return verdicts.flatMap((verdict, i) => {
    const { at, profile } = codex[i]!
    if (verdict instanceof Error) return [`${at}: could not check the codex login of profile '${profile.name}': ${verdict.message}`]
    return verdict.available ? [] : [`${at}: profile '${profile.name}' is unavailable: ${verdict.reason ?? 'not logged in'}`]
  })
}
