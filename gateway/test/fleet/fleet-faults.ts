/**
 * The faults a fleet run injects, split out of run-fleet.ts: `kills` processes
 * SIGKILLed one after another while they hold running claims (each restarted under a new worker
 * id when asked), and one process holding claims stalled (SIGSTOP) for twice the lease, then
 * continued. `step` is called on every poll of the run with the count of terminal jobs; the run's
 * checks read who was killed and who stalled from here.
 */
import type pg from 'pg'
import type { Member } from './fleet-member.ts'

export interface FaultPlan {
  jobs: number
  leaseMs: number
  /** SIGKILL a process holding a claim once this fraction of jobs is terminal (default 0.4). */
  killAt?: number
  /** How many processes to SIGKILL, evenly from killAt to 0.8 of the jobs (default 1). */
  kills?: number
  /** Start a replacement for each killed process (a new worker id). */
  restart?: boolean
  /** SIGSTOP one process holding claims for twice the lease once this fraction of jobs is terminal, then SIGCONT. */
  stallAt?: number
}

export interface FaultDeps {
  db: pg.Pool
  members: Member[]
  /** Jobs whose parks nobody answers (timers): a kill prefers their parker. */
  unanswered: () => string[]
  restart: (victim: Member) => Promise<void>
  log: (line: string) => void
}

export class FleetFaults {
  readonly killedWorkers: string[] = []
  /** Unanswered parks whose parker was killed while they were parked. */
  readonly timersParkerKilled = new Set<string>()
  stalled: Member | undefined
  readonly #plan: FaultPlan
  readonly #deps: FaultDeps
  readonly #killAts: number[]
  readonly #stallAt: number | undefined
  #missedKill = false

  constructor(plan: FaultPlan, deps: FaultDeps) {
    this.#plan = plan
    this.#deps = deps
    const kills = plan.kills ?? 1
    const first = plan.killAt ?? 0.4
    this.#killAts = Array.from({ length: kills }, (_, k) => Math.floor((first + (kills > 1 ? k * (0.8 - first) / (kills - 1) : 0)) * plan.jobs))
    this.#stallAt = plan.stallAt === undefined ? undefined : Math.floor(plan.stallAt * plan.jobs)
  }

  async step(terminal: number): Promise<void> {
    const due = (this.#plan.kills ?? 1) + (this.#missedKill ? 1 : 0)
    if (this.killedWorkers.length < due && terminal >= this.#killAts[this.killedWorkers.length]) await this.#kill(terminal)
    if (this.#stallAt !== undefined && !this.stalled && terminal >= this.#stallAt) await this.#stall(terminal)
  }

  async #kill(terminal: number): Promise<void> {
    const { db, members, log } = this.#deps
    const unanswered = this.#deps.unanswered()
    // The victim is a process holding at least one claim right now; with timers, preferably
    // one that also parked an unanswered job (its deadline or cap must fire elsewhere).
    const holders = await db.query<{ lease_owner: string; parks: string }>(`SELECT lease_owner, count(*) FILTER (WHERE status = 'parked' AND id = ANY($1)) AS parks
      FROM gateway_jobs WHERE status IN ('running', 'parked') GROUP BY lease_owner HAVING count(*) FILTER (WHERE status = 'running') > 0
      ORDER BY 2 DESC, count(*) FILTER (WHERE status = 'running') DESC`, [unanswered])
    // When no process holds a running claim (all parked or queued), the kill waits for one; only
    // near the end of the run is any live one killed: the run must still see its kills, and a
    // restart must still adopt what it held. (A 5 % window made the lean run kill a process
    // holding nothing, so nothing was reclaimed: fleet.test.ts failed once in CI.)
    const lastChance = Math.min(this.#killAts[this.killedWorkers.length] + Math.ceil(this.#plan.jobs * 0.25), this.#plan.jobs - 3)
    const victim = holders.rows.map((h) => members.find((m) => m.workerId === h.lease_owner && m.alive && m !== this.stalled)).find((m) => m !== undefined)
      ?? (terminal >= lastChance ? members.find((m) => m.alive && m !== this.stalled) : undefined)
    if (!victim) return
    const parkedThere = await db.query<{ id: string }>(`SELECT id FROM gateway_jobs WHERE status = 'parked' AND lease_owner = $1 AND id = ANY($2)`, [victim.workerId, unanswered])
    victim.child.kill('SIGKILL')
    if (process.env.FLEET_DEBUG) console.error(`KILLED ${victim.workerId}`)
    victim.alive = false
    this.killedWorkers.push(victim.workerId)
    for (const r of parkedThere.rows) this.timersParkerKilled.add(r.id)
    log(`SIGKILL ${victim.workerId} at ${terminal} terminal jobs (${parkedThere.rows.length} unanswered parks its own)`)
    // The holder query and the kill are not one step: a job that ends at once may have ended
    // in between, so the victim died holding nothing and nothing can be reclaimed. Without
    // restarts (the lean run, which must see a reclaim) one more holder is killed, once.
    const held = await db.query<{ n: string }>(`SELECT count(*) AS n FROM gateway_jobs WHERE status = 'running' AND lease_owner = $1`, [victim.workerId])
    if (Number(held.rows[0].n) === 0 && !this.#plan.restart && !this.#missedKill && members.filter((m) => m.alive).length > 1) {
      this.#missedKill = true
      this.#killAts.splice(this.killedWorkers.length, 0, terminal)
      log(`${victim.workerId} held no running claim when it died: one more kill`)
    }
    if (this.#plan.restart) await this.#deps.restart(victim)
  }

  async #stall(terminal: number): Promise<void> {
    const { db, members, log } = this.#deps
    const holders = await db.query<{ lease_owner: string }>(`SELECT lease_owner FROM gateway_jobs WHERE status = 'running' GROUP BY lease_owner ORDER BY count(*) DESC`)
    const victim = members.find((m) => holders.rows.some((h) => h.lease_owner === m.workerId) && m.alive)
    if (!victim) return
    const ms = 2 * this.#plan.leaseMs
    this.stalled = victim
    victim.stalled = true
    victim.child.kill('SIGSTOP')
    log(`SIGSTOP ${victim.workerId} at ${terminal} terminal jobs for ${ms} ms`)
    setTimeout(() => {
      victim.child.kill('SIGCONT')
      victim.stalled = false
      log(`SIGCONT ${victim.workerId}`)
    }, ms)
  }
}
