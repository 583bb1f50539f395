/**
 * Health routes for orchestrators: `healthz` (the process answers) and `readyz` (the stores it
 * writes, the queue, what the host says it depends on at run time: a database, each engine; the
 * profiles' credential verdicts). Unauthenticated, so they reveal nothing but a verdict per check:
 * no profile names, paths or reasons. Off unless the options ask for them.
 */
import { access, constants, mkdir } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ResolvedProfile } from '../host/profiles.ts'
import type { ProfileAvailability } from '../host/availability.ts'
import { sendJson } from './http.ts'

export interface HealthOptions {
  healthPath?: string
  readyPath?: string
  /** Directories the gateway writes (a file session store, a file profile store's folder). */
  writableDirs?: string[]
  /**
   * What the gateway depends on at run time, each asked on every readyz: `database`
   * (the PostgreSQL pool), `engines` by engine name (its program is still there). A rejection,
   * `false` or no answer within `dependencyTimeoutMs` is `failed`, and the gateway is not ready.
   */
  dependencies?: { database?: () => Promise<boolean>; engines?: Record<string, () => Promise<boolean>> }
  /** How long one dependency check may take (default 5000 ms). */
  dependencyTimeoutMs?: number
}

export interface HealthDeps {
  /** Login verdicts, one set per probed engine; counted, never named. */
  logins: ProfileAvailability[]
  profiles: () => readonly ResolvedProfile[]
  queueReachable?: () => Promise<unknown>
  draining: () => boolean
}

type Check = 'ok' | 'failed'

export function createHealthRoutes(options: HealthOptions, deps: HealthDeps) {
  const healthPath = options.healthPath ?? '/healthz'
  const readyPath = options.readyPath ?? '/readyz'

  async function readiness(): Promise<{ ready: boolean; checks: Record<string, Check | Record<string, Check> | { available: number; unavailable: number; unknown: number }> }> {
    const checks: Record<string, Check | Record<string, Check> | { available: number; unavailable: number; unknown: number }> = {}
    let ready = !deps.draining()
    checks.accepting = deps.draining() ? 'failed' : 'ok'
    if (options.writableDirs?.length) {
      const writable = await Promise.all(options.writableDirs.map(async (dir) => {
        try {
          await mkdir(dir, { recursive: true })
          await access(dir, constants.W_OK)
          return true
        } catch {
          return false
        }
      }))
      checks.stores = writable.every(Boolean) ? 'ok' : 'failed'
      if (checks.stores === 'failed') ready = false
    }
    if (deps.queueReachable) {
      checks.queue = await deps.queueReachable().then(() => 'ok' as const, () => 'failed' as const)
      if (checks.queue === 'failed') ready = false
    }
    const { database, engines } = options.dependencies ?? {}
    if (database) {
      checks.database = await dependency(database)
      if (checks.database === 'failed') ready = false
    }
    if (engines && Object.keys(engines).length) {
      const names = Object.keys(engines).sort()
      const verdicts = await Promise.all(names.map((name) => dependency(engines[name]!)))
      checks.engines = Object.fromEntries(names.map((name, i) => [name, verdicts[i]!]))
      if (verdicts.includes('failed')) ready = false
    }
    const logins = deps.logins.filter((l) => l.enabled)
    if (logins.length) {
      // Counts only: a logged-out profile degrades sessions on it, not the whole gateway.
      const counts = { available: 0, unavailable: 0, unknown: 0 }
      for (const profile of deps.profiles()) {
        const login = logins.find((l) => l.engines.includes(profile.engine))
        if (!login) continue
        const verdict = login.verdict(profile)
        if (!verdict) counts.unknown++
        else if (verdict.available) counts.available++
        else counts.unavailable++
      }
      checks.profiles = counts
    }
    return { ready, checks }
  }

  /** One dependency's verdict; a check that hangs is a failed one, so readyz always answers. */
  async function dependency(check: () => Promise<boolean>): Promise<Check> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), options.dependencyTimeoutMs ?? 5000) })
    try {
      return (await Promise.race([check().catch(() => false), timeout])) === true ? 'ok' : 'failed'
    } finally {
      clearTimeout(timer)
    }
  }

  /** True when the request was a health route and has been answered. */
  return function handleHealth(req: IncomingMessage, res: ServerResponse, path: string): boolean | Promise<boolean> {
    if (path !== healthPath && path !== readyPath) return false
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 405, { error: 'method not allowed', code: 'method_not_allowed' })
      return true
    }
    if (path === healthPath) {
      sendJson(res, 200, { status: 'ok' })
      return true
    }
    return readiness().then(({ ready, checks }) => {
      sendJson(res, ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', checks })
      return true
    })
  }
}
