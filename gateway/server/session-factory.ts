/**
 * The single chokepoint where runners are built (DESIGN.md §7): request → RunnerConfig, host
 * `buildRunnerConfig`, scope re-stamped over the hook's output, the engine chosen by profile, and
 * the runner checked to echo its id and scope before it is registered and started.
 */
import { randomUUID } from 'node:crypto'
import type { ProfileCatalog, ResolvedProfile } from '../host/profiles.ts'
import type { SessionRegistry } from '../sessions/registry.ts'
import type { CreateEngineRunner, Runner, RunnerConfig, ToolBridge } from '../sessions/runner.ts'
import type { ValidCreate } from './create-request.ts'
import type { EngineAdapter } from './engine-adapter.ts'
import { refuse, type Refusal } from './refusal.ts'

export interface SessionFactoryDeps {
  registry: SessionRegistry
  catalog: ProfileCatalog
  createEngineRunner?: CreateEngineRunner
  buildRunnerConfig?: (config: RunnerConfig) => RunnerConfig | Promise<RunnerConfig>
  engines: Partial<Record<'cli_primary' | 'cli_secondary', EngineAdapter>>
  bridgeFor: (id: string) => ToolBridge
  approvalTimeoutMs: number | null | undefined
  onError: (err: unknown, where: string) => void
}

export function createSessionFactory(deps: SessionFactoryDeps) {
  async function buildRunner(config: RunnerConfig, profile: ResolvedProfile): Promise<Runner> {
    const patched = deps.buildRunnerConfig ? await deps.buildRunnerConfig({ ...config }) : config
    const final: RunnerConfig = { ...patched, id: config.id, scope: config.scope, profile: config.profile, engine: config.engine }
    let runner: Runner
    if (profile.engine === 'provider') {
      if (!deps.createEngineRunner) throw new Error('no createEngineRunner hook is configured')
      runner = await deps.createEngineRunner({ config: final, profile, bridge: deps.bridgeFor(config.id) })
    } else {
      const adapter = deps.engines[profile.engine]
      if (!adapter) throw new EngineUnavailable(profile.engine)
      runner = await adapter.createRunner(final, profile)
    }
    const info = runner.info()
    if (runner.id !== config.id || !sameScope(info.scope, config.scope)) {
      try { runner.close('error') } catch { /* already unusable */ }
      throw new Error('the engine runner did not adopt the session id and scope it was given')
    }
    return runner
  }

  return {
    async create(valid: ValidCreate): Promise<Runner | Refusal> {
      const { request, profile } = valid
      const config: RunnerConfig = {
        ...request,
        id: randomUUID(),
        profile: profile.name,
        engine: profile.engine,
        permissionMode: valid.permissionMode,
        canBypassPermissions: valid.canBypassPermissions,
        scope: valid.scope,
        cwd: valid.cwd,
        model: request.model ?? profile.defaults?.model,
        approvalTimeoutMs: request.approvalTimeoutMs === undefined ? deps.approvalTimeoutMs ?? null : request.approvalTimeoutMs,
        createdAt: Date.now(),
      } as RunnerConfig
      if (!valid.canBypassPermissions) delete config.allowDangerouslySkipPermissions
      let runner: Runner
      try {
        runner = await buildRunner(config, profile)
      } catch (err) {
        if (err instanceof EngineUnavailable) return refuse('not_implemented', err.message)
        deps.onError(err, 'create')
        return refuse('engine_failed', `the session could not be created: ${(err as Error).message}`)
      }
      deps.registry.register(runner)
      runner.start().catch((err) => {
        deps.onError(err, 'start')
        try { runner.fail(`session failed to start: ${(err as Error).message}`) } catch { /* already closed */ }
      })
      return runner
    },
  }
}

export type SessionFactory = ReturnType<typeof createSessionFactory>

class EngineUnavailable extends Error {
  constructor(engine: string) {
    super(`engine ${engine} is not available in this build of the gateway`)
  }
}

function sameScope(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ak = Object.keys(a ?? {})
  const bk = Object.keys(b ?? {})
  return ak.length === bk.length && ak.every((k) => a?.[k] === b?.[k])
}
