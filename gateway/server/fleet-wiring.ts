/**
 * The fleet option wired into one server: every session this process builds (create, or rebuild
 * after a wake or an adoption) is claimed in the session directory, and released when it leaves the registry
 * or parks here. A create answers only once its claim landed, so no other process can be asked
 * for a session id the directory does not know yet. Shutdown keeps the rows and drops the lease:
 * the fleet adopts this process's sessions on their next request (their records stay stored).
 */
import { createFleet, type Fleet } from '../fleet/fleet.ts'
import { LIVE_ONLY } from '../sessions/runner.ts'
import type { GatewayContext } from './context.ts'
import type { GatewayServerOptions } from './options.ts'
import type { OnError, SessionServices } from './session-wiring.ts'

export interface FleetWiring {
  fleet: Fleet
  /** Resolves once `id`'s directory claim was written (or failed, reported). */
  claimed(id: string): Promise<void>
  /** After listen: the heartbeat starts; `url` is the listening URL (the default address). */
  start(url: string): Promise<void>
  /** Before the sessions close for a shutdown: their rows stay for the fleet to adopt. */
  beginClose(): void
  /** The fleet adopted sessions this process still runs (its lease lapsed): `stop` stops the server. */
  onSuperseded(stop: () => void): void
  stop(): Promise<void>
}

export function wireFleet(options: GatewayServerOptions, sessions: SessionServices, context: GatewayContext, onError: OnError): FleetWiring | undefined {
  if (!options.fleet) return undefined
  const { directory } = options.fleet
  let closing = false
  // One chain per session, so a release never lands before the claim it undoes.
  const tails = new Map<string, Promise<void>>()
  const enqueue = (id: string, op: () => Promise<void>, where: string) => {
    const next = (tails.get(id) ?? Promise.resolve()).then(op).catch((err) => onError(err, where))
    tails.set(id, next)
    void next.then(() => { if (tails.get(id) === next) tails.delete(id) })
    return next
  }
  const release = (id: string) => { if (!closing) void enqueue(id, () => directory.release(id), 'fleet release') }
  // A closed session's record goes at once (no other process may read it back as a stored row),
  // but its directory row stays while this process's registry still answers for it: on one process
  // a closed session (a finished job's, say) is read with its info, meta included, until it is
  // deleted (server-configuration.10), so the fleet forwards to the process that holds it. The row
  // is released when the registry row goes (DELETE, a discarded job session), and only once the
  // record is gone (deleted again here, the store keeps per-id order): a DELETE of a stored row
  // (a dormant session adopted here) must not leave its record readable by the next process.
  const deleteRecord = (id: string) => sessions.parking.store.delete(id)
  const closed = (id: string) => {
    if (!closing) void enqueue(id, () => deleteRecord(id), 'fleet release')
  }
  sessions.registry.onRemoved((id) => {
    if (!closing) void enqueue(id, async () => { await deleteRecord(id); await directory.release(id) }, 'fleet release')
  })
  sessions.factory.onBuilt((runner) => {
    const id = runner.id
    void enqueue(id, () => directory.claim(runner.info()), 'fleet claim')
    runner.subscribe((event) => { if (event.type === 'session_closed') closed(id) }, LIVE_ONLY)
  })
  sessions.parkListeners.push(release)
  // The directory is the truth for who runs a session: a stale row here never rebuilds one a live peer runs.
  sessions.parking.setFleet({
    runsElsewhere: async (id) => {
      const entry = await directory.lookup(id)
      return entry !== undefined && entry.alive && entry.processId !== directory.processId
    },
    claimed: (id) => tails.get(id) ?? Promise.resolve(),
  })
  // A write of a session another live process runs now is refused at the store (the zombie fence).
  sessions.parking.store.fenceTo?.(directory.processId)
  let stopServer: (() => void) | undefined
  directory.onLapsed(() => void superseded().catch((err) => onError(err, 'fleet lease')))
  const superseded = async () => {
    // A job's session is not counted: the queue fences its run (job-status.6), reclaims it after the
    // lease and may rebuild its session elsewhere; that alone is no reason to stop this process.
    const interactive = [...sessions.registry.ids()].filter((id) => typeof sessions.registry.info(id)?.meta?.jobId !== 'string')
    const taken = await directory.heldElsewhere(interactive)
    if (!taken.length || closing) return
    onError(new Error(`fleet: this process's lease lapsed and ${taken.length} of its sessions now run elsewhere; stopping`), 'fleet lease')
    const lost = options.fleet!.onLeaseLost
    if (lost) lost({ processId: directory.processId, sessions: taken })
    else stopServer?.()
  }
  const onAdopted = options.fleet.onAdopted
  const fleet = createFleet(options.fleet, {
    context,
    ...(onAdopted ? { onAdopted: (sessionId: string, from: string, epoch: number) => onAdopted({ sessionId, from, epoch }) } : {}),
  })
  return {
    fleet,
    claimed: (id) => tails.get(id) ?? Promise.resolve(),
    start: (url) => directory.start(options.fleet!.address ?? reachable(url)),
    beginClose: () => { closing = true },
    onSuperseded: (stop) => { stopServer = stop },
    stop: () => directory.stop(),
  }
}

/** A wildcard listen address is not an address to reach: loopback stands in (one host only). */
function reachable(url: string): string {
  const u = new URL(url)
  if (u.hostname === '0.0.0.0' || u.hostname === '[::]') u.hostname = '127.0.0.1'
  return u.toString().replace(/\/$/, '')
}
