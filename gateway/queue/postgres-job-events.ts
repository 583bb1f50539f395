/**
 * The fleet's job event feed (job-status.2 on every process's `/queue/ws`): each process relays
 * the job events it emits on JOB_EVENTS_CHANNEL, and hears every other process's on its wake-up
 * connection. Kept off the job write path: a relay is sent after the write that made the event,
 * and the events of a moment go as one statement (a NOTIFY each, sent by one round trip, one at a
 * time per process, so a process's events keep their order). A payload is under PostgreSQL's
 * 8000-byte limit: an event too large to carry its job goes without it, and the hearer reads the
 * job (as it is then) by id.
 */
import type pg from 'pg'
import type { JobEvent, JobInfo } from '../protocol/index.ts'

export const JOB_EVENTS_CHANNEL = 'gateway_job_events'
const PAYLOAD_LIMIT = 7900
/** Notifications per statement: a burst goes in several. */
const BATCH = 500

interface Payload { o: string; n: number; e: JobEvent | Omit<JobEvent, 'job'>; r?: 1 }

export class JobEventPublisher {
  readonly #pool: pg.Pool
  readonly #origin: string
  readonly #onError?: (err: Error) => void
  #pending: string[] = []
  #sending = false
  #n = 0
  #closed = false

  constructor(pool: pg.Pool, origin: string, onError?: (err: Error) => void) {
    this.#pool = pool
    this.#origin = origin
    this.#onError = onError
  }

  publish(event: JobEvent): void {
    if (this.#closed) return
    // `n` keeps two equal events distinct (PostgreSQL folds equal payloads of one transaction).
    let text = JSON.stringify({ o: this.#origin, n: this.#n++, e: event } satisfies Payload)
    if (Buffer.byteLength(text) > PAYLOAD_LIMIT) {
      const { job: _job, ...rest } = event
      text = JSON.stringify({ o: this.#origin, n: this.#n, e: rest, r: 1 } satisfies Payload)
      if (Buffer.byteLength(text) > PAYLOAD_LIMIT) return this.#onError?.(new Error(`job event ${event.type} of ${event.jobId} too large to relay to the fleet`))
    }
    this.#pending.push(text)
    if (!this.#sending) {
      this.#sending = true
      setImmediate(() => void this.#send())
    }
  }

  close(): void {
    this.#closed = true
    this.#pending = []
  }

  async #send(): Promise<void> {
    try {
      while (this.#pending.length > 0 && !this.#closed) {
        const batch = this.#pending.splice(0, BATCH)
        try {
          await this.#pool.query({ name: 'gw_job_events_notify', text: 'SELECT count(pg_notify($1, p)) FROM unnest($2::text[]) AS p', values: [JOB_EVENTS_CHANNEL, batch] })
        } catch (err) {
          // The fleet's sockets miss these (their clients re-list on reconnect); the queue goes on.
          this.#onError?.(err as Error)
        }
      }
    } finally {
      this.#sending = false
    }
  }
}

/**
 * Reads other processes' relays, in the order heard (a payload without its job waits for its read,
 * and the ones after it with it). This process's own are dropped: its sockets had them locally.
 */
export class JobEventHearer {
  readonly #origin: string
  readonly #readJob: (id: string) => Promise<JobInfo | undefined>
  readonly #listeners = new Set<(event: JobEvent) => void>()
  readonly #onError?: (err: Error) => void
  #tail: Promise<void> = Promise.resolve()
  readonly #ownPrefix: string

  constructor(origin: string, readJob: (id: string) => Promise<JobInfo | undefined>, onError?: (err: Error) => void) {
    this.#origin = origin
    this.#ownPrefix = `{"o":${JSON.stringify(origin)},`
    this.#readJob = readJob
    this.#onError = onError
  }

  onEvent(listener: (event: JobEvent) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  readonly hear = (payload: string): void => {
    // Nobody here listens, or the relay is this process's own (its payload begins with its
    // origin, as the publisher writes it): dropped before it is parsed, since every process
    // hears every event of the fleet (job_started and job_completed of each job at least).
    if (this.#listeners.size === 0 || payload.startsWith(this.#ownPrefix)) return
    let parsed: Payload
    try {
      parsed = JSON.parse(payload) as Payload
    } catch {
      return
    }
    if (parsed.o === this.#origin) return
    this.#tail = this.#tail.then(async () => {
      const event = parsed.r ? await this.#withJob(parsed.e) : parsed.e as JobEvent
      if (!event) return
      for (const l of this.#listeners) { try { l(event) } catch { /* a listener never breaks the feed */ } }
    })
  }

  async #withJob(e: Omit<JobEvent, 'job'>): Promise<JobEvent | undefined> {
    try {
      const job = await this.#readJob(e.jobId)
      return job ? { ...e, job } as JobEvent : undefined
    } catch (err) {
      this.#onError?.(err as Error)
      return undefined
    }
  }
}
