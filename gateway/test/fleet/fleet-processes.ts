/**
 * The fleet run's gateway processes: started on the run's database with one set of options, each
 * watched on its /queue/ws, replaced under a new worker id after a kill, and stopped at the end
 * (SIGCONT first, for a stalled one; SIGTERM, then SIGKILL after 5 s). A process may exit only
 * when the run killed it: any other exit is a violation (a database error once ended processes).
 */
import type { FleetGatewayOptions } from './fleet-gateway.ts'
import { startMember, type Member } from './fleet-member.ts'
import { watchQueue, type QueueWatcher } from './fleet-observers.ts'

export type SharedGatewayOptions = Omit<FleetGatewayOptions, 'workerId'>

export class FleetProcesses {
  /** Every process started, killed and replaced ones included (FleetFaults and the result poster read it). */
  readonly members: Member[] = []
  readonly watchers: QueueWatcher[] = []
  readonly #dbUrl: string
  readonly #options: SharedGatewayOptions
  readonly #violations: string[]
  #stopping = false

  constructor(dbUrl: string, options: SharedGatewayOptions, violations: string[]) {
    this.#dbUrl = dbUrl
    this.#options = options
    this.#violations = violations
  }

  /** Processes p1..pN, started together. */
  async start(processes: number): Promise<void> {
    const started = await Promise.all(Array.from({ length: processes }, (_, i) => this.#startOne(`p${i + 1}`)))
    this.members.push(...started)
    started.forEach((m) => this.#watch(m))
    started.forEach((m) => this.#watchExit(m))
  }

  /** A replacement for a killed process, under `<its worker id>-r`. */
  async restart(victim: Member): Promise<Member> {
    const replacement = await this.#startOne(`${victim.workerId}-r`)
    this.#watchExit(replacement)
    this.#watch(replacement)
    this.members.push(replacement)
    return replacement
  }

  /** The processes neither killed nor stalled right now. */
  live(): Member[] {
    return this.members.filter((m) => m.alive && !m.stalled)
  }

  async stop(): Promise<void> {
    this.#stopping = true
    await Promise.all(this.members.filter((m) => m.alive).map((m) => new Promise<void>((resolve) => {
      m.child.kill('SIGCONT')
      const timer = setTimeout(() => m.child.kill('SIGKILL'), 5000)
      m.child.once('exit', () => { clearTimeout(timer); resolve() })
      m.child.kill('SIGTERM')
    })))
    for (const w of this.watchers) w.close()
  }

  #startOne(workerId: string): Promise<Member> {
    return startMember(this.#dbUrl, { workerId, ...this.#options })
  }

  #watch(m: Member): void {
    this.watchers.push(watchQueue(m.workerId, m.url, this.#options.token, this.#options.maxConcurrency))
  }

  #watchExit(m: Member): void {
    m.child.once('exit', (code, signal) => {
      if (m.alive && !this.#stopping) this.#violations.push(`process ${m.workerId} exited on its own (${signal ?? code})`)
      m.alive = false
    })
  }
}
