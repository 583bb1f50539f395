/**
 * The single chokepoint where runners are built (DESIGN.md §7): request → RunnerConfig, host
 * `buildRunnerConfig`, scope re-stamped over the hook's output, the engine chosen by profile, and
 * the runner checked to echo its id and scope before it is registered and started.
 */
import { randomUUID } from 'node:crypto'
import type { ProfileCatalog, ResolvedProfile } from '../host/profiles.ts'
import type { SessionRegistry } from '../sessions/registry.ts'
import type { CreateEngineRunner, Runner, RunnerConfig, ToolBridge } from '../sessions/runner.ts'
import type { RunnerSnapshot, StoredExecution, StoredSession } from '../sessions/session-store.ts'
import type { PeerPort } from '../sessions/peers.ts'
import type { ValidCreate } from './create-request.ts'
import type { EngineAdapter } from './engine-adapter.ts'
import { refuse, type Refusal } from './refusal.ts'
import { findProject } from '../host/project.ts'

export interface SessionFactoryDeps {
  registry: SessionRegistry
  catalog: ProfileCatalog
  createEngineRunner?: CreateEngineRunner
  buildRunnerConfig?: (config: RunnerConfig) => RunnerConfig | Promise<RunnerConfig>
  engines: Partial<Record<'cli_primary' | 'cli_secondary', EngineAdapter>>
  bridgeFor: (id: string) => ToolBridge
  /** A session's peer messaging; undefined when peers are disabled. */
  peersFor?: (id: string) => PeerPort | undefined
  /** Claims deferred execution ids gateway-wide (parking), so a result's lookup is never ambiguous. */
  claimExecutionId?: (sessionId: string, toolCallId: string) => Promise<string>
  approvalTimeoutMs: number | null | undefined
  requireApiKey: boolean
  onError: (err: unknown, where: string) => void
}

/** Told of every runner built, before it starts: parking watches it from its first event. */
export type BuiltListener = (runner: Runner, config: RunnerConfig, open: readonly StoredExecution[]) => void

export function createSessionFactory(deps: SessionFactoryDeps) {
  const built: BuiltListener[] = []

  async function buildRunner(config: RunnerConfig, profile: ResolvedProfile, restore?: RunnerSnapshot): Promise<Runner> {
    const patched = deps.buildRunnerConfig ? await deps.buildRunnerConfig({ ...config }) : config
    const final: RunnerConfig = { ...patched, id: config.id, scope: config.scope, profile: config.profile, engine: config.engine }
    const peers = deps.peersFor?.(config.id)
    let runner: Runner
    if (profile.engine === 'provider') {
      if (!deps.createEngineRunner) throw new Error('no createEngineRunner hook is configured')
      const claim = deps.claimExecutionId
      runner = await deps.createEngineRunner({
        config: final, profile, bridge: deps.bridgeFor(config.id), ...(restore ? { restore } : {}), ...(peers ? { peers } : {}),
        ...(claim ? { claimExecutionId: (toolCallId: string) => claim(config.id, toolCallId) } : {}),
      })
    } else {
      // A CLI engine keeps its own store: a dormant record names only the conversation to resume.
      if (restore && restore.resumeId === undefined) throw new Error(`engine ${profile.engine} cannot restore a parked session`)
      const adapter = deps.engines[profile.engine]
      if (!adapter) throw new EngineUnavailable(profile.engine)
      runner = await adapter.createRunner(final, profile, {
        ...(peers ? { peers } : {}), ...(restore ? { restore: { events: [], seq: restore.seq, createdAt: restore.createdAt } } : {}),
      })
    }
    const info = runner.info()
    if (runner.id !== config.id || !sameScope(info.scope, config.scope)) {
      try { runner.close('error') } catch { /* already unusable */ }
      throw new Error('the engine runner did not adopt the session id and scope it was given')
    }
    return runner
  }

  function launch(runner: Runner, config: RunnerConfig, open: readonly StoredExecution[] = []): void {
    deps.registry.register(runner)
    for (const listener of built) listener(runner, config, open)
    runner.start().catch((err) => {
      deps.onError(err, 'start')
      try { runner.fail(`session failed to start: ${(err as Error).message}`) } catch { /* already closed */ }
    })
  }

  return {
    onBuilt(listener: BuiltListener): void {
      built.push(listener)
    },

    /** Rebuilds a stored session under its own id, same transcript and seq numbering (session-status-values.3). */
    async rebuild(record: StoredSession): Promise<Runner> {
      // A managed profile of a session adopted from another process of a fleet, as the shared store holds it.
      if (!deps.catalog.isDeclared(record.config.profile)) await deps.catalog.refresh(record.config.profile)
      const profile = deps.catalog.get(record.config.profile)
      if (!profile) throw new Error(`profile ${record.config.profile} of session ${record.id} no longer exists`)
      const config = withStoredMeta(record.snapshot.resumeId === undefined ? record.config : wakeConfig(record), record)
      const runner = await buildRunner(config, profile, record.snapshot)
      if (runner.id !== record.id) {
        // A runner that ignored the restore (a new id) must fail loudly, never wake as a stranger.
        try { runner.close('error') } catch { /* already unusable */ }
        throw new Error(`the rebuilt runner did not adopt the stored session id ${record.id}`)
      }
      launch(runner, record.config, record.snapshot.executions)
      return runner
    },

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
        // Server policy the engine enforces once it knows the login (server-configuration.18).
        requireApiKey: deps.requireApiKey,
        createdAt: Date.now(),
      } as RunnerConfig
      if (!valid.canBypassPermissions) delete config.allowDangerouslySkipPermissions
      if (valid.cwd) {
        const project = await findProject(valid.cwd)
        if (project) config.project = project.info
      }
      let runner: Runner
      try {
        runner = await buildRunner(config, profile)
      } catch (err) {
        if (err instanceof EngineUnavailable) return refuse('not_implemented', err.message)
        deps.onError(err, 'create')
        return refuse('engine_failed', `the session could not be created: ${(err as Error).message}`)
      }
      try {
        launch(runner, config)
      } catch (err) {
        // The registry serialises a row before adding it, so usually nothing was registered; either
        // way a failed create leaves no row and no running engine behind.
        if (deps.registry.get(runner.id) === runner) deps.registry.remove(runner.id)
        else try { runner.close('error') } catch { /* already unusable */ }
        deps.onError(err, 'create')
        return refuse('engine_failed', 'the session could not be created: its SessionInfo cannot be serialised')
      }
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

/**
 * A dormant CLI session wakes as a resume of its own conversation (embedding-rules.14): the
 * opening prompt is cleared (it ran once already; the runner would send it again on top of the
 * resumed thread), a fork is not repeated, and the model and mode are the ones the session had
 * when its record was written. The title comes back with the replayed first message.
 */
/**
 * The meta the session had when stored, not the one it was created with: a title set or cleared
 * by PATCH since creation lives there (updatesessionrequest.1) and a rebuild keeps it.
 */
function withStoredMeta(config: RunnerConfig, record: StoredSession): RunnerConfig {
  return 'meta' in record.info ? { ...config, meta: record.info.meta } : config
}

function wakeConfig(record: StoredSession): RunnerConfig {
  const { prompt: _prompt, forkSession: _fork, ...rest } = record.config
  const { model, permissionMode } = record.info
  return { ...rest, resume: record.snapshot.resumeId, wakeFromDormant: true, ...(model ? { model } : {}), permissionMode } as RunnerConfig
}
