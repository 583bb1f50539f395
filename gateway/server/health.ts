/**
 * Health routes for orchestrators: `healthz` (the process answers) and `readyz` (the stores it
 * writes, the queue, the profiles' credential verdicts). Unauthenticated, so they reveal nothing
 * but a verdict per check: no profile names, paths or reasons. Off unless the options ask for them.
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
}

export interface HealthDeps {
  availability: ProfileAvailability
  profiles: () => readonly ResolvedProfile[]
  queueReachable?: () => Promise<unknown>
  draining: () => boolean
}

type Check = 'ok' | 'failed'

export function createHealthRoutes(options: HealthOptions, deps: HealthDeps) {
  const healthPath = options.healthPath ?? '/healthz'
  const readyPath = options.readyPath ?? '/readyz'

  async function readiness(): Promise<{ ready: boolean; checks: Record<string, Check | { available: number; unavailable: number; unknown: number }> }> {
    const checks: Record<string, Check | { available: number; unavailable: number; unknown: number }> = {}
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
    if (deps.availability.enabled) {
      // Counts only: a logged-out profile degrades sessions on it, not the whole gateway.
      const counts = { available: 0, unavailable: 0, unknown: 0 }
      for (const profile of deps.profiles()) {
        if (profile.engine !== 'cli_primary') continue
        const verdict = deps.availability.verdict(profile)
        if (!verdict) counts.unknown++
        else if (verdict.available) counts.available++
        else counts.unavailable++
      }
      checks.profiles = counts
    }
    return { ready, checks }
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
