/**
 * The fleet's session directory on PostgreSQL (migration 11): this process's lease (one
 * heartbeat per process) and the rows saying which process runs each live session. Leases are
 * judged on the database's clock (`now()`), so processes whose clocks differ agree on who is dead.
 */
import type pg from 'pg'
import type { SessionInfo } from '../protocol/index.ts'
import { openPool } from '../postgres/pool.ts'
import { heldByLivePeer } from '../postgres/directory-holder.ts'
import { query, read } from '../postgres/retry.ts'

export interface SessionDirectoryOptions {
  url: string
  /** This process's id in the fleet: unique per process (a restart may reuse it). */
  processId: string
  /** A process whose heartbeat is older than this is dead and its sessions adoptable (default 30 000). */
  leaseMs?: number
  /** How often the lease is renewed (default a third of leaseMs). */
  heartbeatMs?: number
  poolSize?: number
  onError?: (err: unknown, where: string) => void
}

/** Who runs a session: `alive` is false once the owner's lease lapsed or its row is gone. */
export interface DirectoryEntry {
  processId: string
  address: string | undefined
  alive: boolean
  epoch: number
  info: SessionInfo
}

export interface FleetPeer {
  processId: string
  address: string
}

export interface SessionDirectory {
  readonly processId: string
  /** Starts the heartbeat: `address` is where the other processes reach this one (origin plus basePath). */
  start(address: string): Promise<void>
  /** Stops the heartbeat and drops the lease, so the fleet adopts this process's sessions at once. */
  stop(): Promise<void>
  /** This process runs `info.id` now (a create, or a rebuild after an adoption or a park's wake). */
  claim(info: SessionInfo): Promise<void>
  /** The session closed or parked here: its row goes (only while it is still this process's). */
  release(id: string): Promise<void>
  lookup(id: string): Promise<DirectoryEntry | undefined>
  /** Takes a dead owner's session: true for exactly one caller per epoch. */
  adopt(id: string, epoch: number): Promise<boolean>
  /** Drops a row whose session left nothing to adopt (no stored record). */
  forget(id: string, epoch: number): Promise<void>
  /** The other processes whose lease holds. */
  peers(): Promise<FleetPeer[]>
  /**
   * Told once when a renewal finds this process's lease had lapsed (a stall or a database outage
   * longer than `leaseMs`): the fleet may have adopted its sessions meanwhile.
   */
  onLapsed(listener: () => void): void
  /** Which of `ids` another live process holds now (adopted from this one while its lease lapsed). */
  heldElsewhere(ids: string[]): Promise<string[]>
}

export const DIRECTORY_DEFAULTS = { leaseMs: 30_000 } as const

export async function createSessionDirectory(options: SessionDirectoryOptions): Promise<SessionDirectory> {
  const onError = options.onError ?? (() => {})
  const pool: pg.Pool = await openPool({ url: options.url, poolSize: options.poolSize ?? 3, onError: (err) => onError(err, 'fleet directory') })
  const me = options.processId
  const leaseMs = options.leaseMs ?? DIRECTORY_DEFAULTS.leaseMs
  const heartbeatMs = options.heartbeatMs ?? Math.max(10, Math.floor(leaseMs / 3))
  let timer: ReturnType<typeof setInterval> | undefined
  let address: string | undefined
  let stopped = false
  const lapsedListeners: Array<() => void> = []
  let lapsedTold = false

  // `lapsed`: the lease this renewal replaces had already ended by the database's clock, the one
  // the other processes judge it by, so any of them may have adopted this process's sessions.
  const beat = async () => {
    const { rows } = await query<{ lapsed: boolean | null }>(pool, `WITH prev AS (SELECT lease_until FROM gateway_fleet_members WHERE process_id = $1)
      INSERT INTO gateway_fleet_members (process_id, address, lease_until)
      VALUES ($1, $2, clock_timestamp() + make_interval(secs => $3::double precision / 1000))
      ON CONFLICT (process_id) DO UPDATE SET address = EXCLUDED.address, lease_until = EXCLUDED.lease_until
      RETURNING coalesce((SELECT lease_until < clock_timestamp() FROM prev), true) AS lapsed`, [me, address, leaseMs])
    return rows[0]?.lapsed === true
  }
  const renew = async () => {
    if (!(await beat()) || stopped || lapsedTold) return
    lapsedTold = true
    for (const listener of lapsedListeners) listener()
  }

  return {
    processId: me,
    async start(at) {
      address = at
      await beat()
      // The first beat may find a lapsed lease of a crashed process that had this id: not ours.
      timer = setInterval(() => {
        if (!stopped) renew().catch((err) => onError(err, 'fleet heartbeat'))
      }, heartbeatMs)
      timer.unref?.()
    },
    async stop() {
      if (stopped) return
      stopped = true
      clearInterval(timer)
      try {
        if (address !== undefined) await query(pool, 'DELETE FROM gateway_fleet_members WHERE process_id = $1', [me])
      } catch (err) {
        onError(err, 'fleet stop')
      } finally {
        await pool.end().catch(() => undefined)
      }
    },
    async claim(info) {
      // A row this process holds keeps its epoch; a row another held moves on by one.
      await query(pool, `INSERT INTO gateway_session_directory (session_id, process_id, info) VALUES ($1, $2, $3::jsonb)
        ON CONFLICT (session_id) DO UPDATE SET process_id = EXCLUDED.process_id, info = EXCLUDED.info, claimed_at = now(),
          epoch = gateway_session_directory.epoch + CASE WHEN gateway_session_directory.process_id = EXCLUDED.process_id THEN 0 ELSE 1 END`,
      [info.id, me, JSON.stringify(info)])
    },
    async release(id) {
      if (stopped) return
      await query(pool, 'DELETE FROM gateway_session_directory WHERE session_id = $1 AND process_id = $2', [id, me])
    },
    async lookup(id) {
      const { rows } = await read<{ process_id: string; address: string | null; alive: boolean; epoch: string; info: SessionInfo }>(pool,
        `SELECT d.process_id, m.address, coalesce(m.lease_until > clock_timestamp(), false) AS alive, d.epoch, d.info
         FROM gateway_session_directory d LEFT JOIN gateway_fleet_members m ON m.process_id = d.process_id WHERE d.session_id = $1`, [id])
      const row = rows[0]
      if (!row) return undefined
      return { processId: row.process_id, address: row.address ?? undefined, alive: row.alive, epoch: Number(row.epoch), info: row.info }
    },
    async adopt(id, epoch) {
      const { rowCount } = await query(pool, `UPDATE gateway_session_directory SET process_id = $2, epoch = epoch + 1, claimed_at = now()
        WHERE session_id = $1 AND epoch = $3`, [id, me, epoch])
      return rowCount === 1
    },
    async forget(id, epoch) {
      await query(pool, 'DELETE FROM gateway_session_directory WHERE session_id = $1 AND epoch = $2', [id, epoch])
    },
    async peers() {
      const { rows } = await read<{ process_id: string; address: string }>(pool,
        'SELECT process_id, address FROM gateway_fleet_members WHERE lease_until > clock_timestamp() AND process_id <> $1 ORDER BY process_id', [me])
      return rows.map((r) => ({ processId: r.process_id, address: r.address }))
    },
    onLapsed(listener) {
      lapsedListeners.push(listener)
    },
    async heldElsewhere(ids) {
      if (!ids.length) return []
      const { rows } = await read<{ id: string }>(pool, `SELECT id FROM unnest($1::text[]) AS s(id) WHERE ${heldByLivePeer('s.id', '$2')}`, [ids, me])
      return rows.map((r) => r.id)
    },
  }
}
