/**
 * The claims this process holds, kept alive by heartbeat. The heartbeat renews the claims this
 * process holds a run for (renewOnly; all of them when no queue said which), so a job whose run
 * ended or never started here lapses and is reclaimed rather than kept running forever; the same
 * tick wakes the queue so an idle process notices lapsed claims of a dead one even when no
 * notification comes. SKIP LOCKED: a heartbeat never waits for a row (a row locked now is being
 * completed or reclaimed; the next beat renews it if it is still ours).
 */
import type { QueueAdapter } from './adapter.ts'
import { FENCED, type PgQueueContext } from './postgres-context.ts'

type Claims = () => Iterable<{ id: string; attempt: number }>

export class QueueLeases {
  readonly #ctx: PgQueueContext
  readonly #beats = new Set<() => void>()
  readonly #timer: NodeJS.Timeout
  /** Until when (this process's clock) each running job's lease surely holds: when a renewal or claim was sent, plus the lease. */
  #heldUntil = new Map<string, number>()
  /** Set by the queue (renewOnly): the attempts it has a run for; the heartbeat renews only those. */
  #renewable: Claims | undefined
  #closed = false

  constructor(ctx: PgQueueContext, wake: () => void) {
    this.#ctx = ctx
    this.#timer = setInterval(() => this.#beat(wake), Math.max(10, Math.floor(ctx.leaseMs / 3)))
    this.#timer.unref()
  }

  /** A claim or resume sent at `sentAt` (the database set lease_until later than that). */
  claimed(id: string, sentAt: number): void {
    this.#heldUntil.set(id, sentAt + this.#ctx.leaseMs)
  }

  close(): void {
    this.#closed = true
    clearInterval(this.#timer)
  }

  /** The QueueAdapter operations about leases. */
  operations(): Required<Pick<QueueAdapter, 'leaseHeld' | 'onHeartbeat' | 'renewOnly' | 'claimsHeld'>> {
    const { workerId, q } = this.#ctx
    return {
      leaseHeld: (id) => (this.#heldUntil.get(id) ?? 0) > Date.now(),
      onHeartbeat: (l) => { this.#beats.add(l) },
      renewOnly: (claims) => { this.#renewable = claims },
      claimsHeld: async (claims) => {
        const { rows } = await q<{ id: string }>(`SELECT j.id FROM gateway_jobs j JOIN unnest($2::text[], $3::integer[]) AS c(id, attempt) ON j.id = c.id
          WHERE ${FENCED('$1', 'c.attempt')}`, [workerId, claims.map((c) => c.id), claims.map((c) => c.attempt)])
        return new Set(rows.map((r) => r.id))
      },
    }
  }

  #beat(wake: () => void): void {
    if (this.#closed) return
    const sentAt = Date.now()
    this.#renew()
      .then(({ rows }) => {
        // Renewed now, or claimed since this beat was sent; every other lease is left to lapse.
        const next = new Map([...this.#heldUntil].filter(([, until]) => until - this.#ctx.leaseMs > sentAt))
        for (const r of rows) next.set(r.id, sentAt + this.#ctx.leaseMs)
        this.#heldUntil = next
      })
      .catch((err) => this.#ctx.onError?.(err))
      .finally(() => { for (const l of this.#beats) { try { l() } catch { /* never breaks the heartbeat */ } } })
    wake()
  }

  #renew() {
    const { workerId, leaseSql, q } = this.#ctx
    if (!this.#renewable) {
      return q<{ id: string }>({ name: 'gw_heartbeat_held', text: `UPDATE gateway_jobs SET lease_until = ${leaseSql} WHERE id IN (
        SELECT id FROM gateway_jobs WHERE lease_owner = $1 AND status = 'running' FOR UPDATE SKIP LOCKED) RETURNING id`, values: [workerId] })
    }
    const claims = [...this.#renewable()]
    return q<{ id: string }>({ name: 'gw_heartbeat_runs', text: `UPDATE gateway_jobs SET lease_until = ${leaseSql} WHERE id IN (
      SELECT j.id FROM gateway_jobs j JOIN unnest($2::text[], $3::integer[]) AS c(id, attempt) ON j.id = c.id
      WHERE ${FENCED('$1', 'c.attempt')} AND status = 'running' FOR UPDATE OF j SKIP LOCKED) RETURNING id`,
      values: [workerId, claims.map((c) => c.id), claims.map((c) => c.attempt)] })
  }
}
