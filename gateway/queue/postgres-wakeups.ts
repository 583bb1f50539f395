/**
 * Wake-ups of the queue: the jobs table's trigger notifies WORK_CHANNEL, heard on a dedicated
 * connection that reconnects while the adapter is open and keeps trying while the server is down
 * (the heartbeat's wake-ups keep the queue pumping meanwhile). The same connection hears the other
 * channels given (the fleet's job events): a notification on one goes to its handler only.
 */
import pg from 'pg'
import { WORK_CHANNEL } from '../postgres/migrations.ts'

export class QueueWakeups {
  readonly #url: string
  readonly #onError?: (err: Error) => void
  readonly #listeners = new Set<() => void>()
  readonly #channels: ReadonlyMap<string, (payload: string) => void>
  #client: pg.Client | undefined
  #closed = false

  constructor(url: string, onError?: (err: Error) => void, channels: ReadonlyMap<string, (payload: string) => void> = new Map()) {
    this.#url = url
    this.#onError = onError
    this.#channels = channels
  }

  /** Calls every listener; a listener never breaks the adapter. */
  readonly wake = (): void => {
    for (const l of this.#listeners) { try { l() } catch { /* ignored */ } }
  }

  onWork(listener: () => void): void {
    this.#listeners.add(listener)
  }

  async listen(): Promise<void> {
    if (this.#closed) return
    const client = new pg.Client({ connectionString: this.#url })
    client.on('error', (err) => this.#onError?.(err))
    client.on('notification', (n) => {
      const handler = this.#channels.get(n.channel)
      if (handler) { try { handler(n.payload ?? '') } catch { /* ignored */ } } else this.wake()
    })
    client.on('end', () => {
      if (this.#client === client) this.#client = undefined
      if (!this.#closed) this.#relisten()
    })
    await client.connect()
    await client.query(`LISTEN ${WORK_CHANNEL}`)
    for (const channel of this.#channels.keys()) await client.query(`LISTEN ${channel}`)
    if (this.#closed) await client.end()
    else this.#client = client
  }

  async close(): Promise<void> {
    this.#closed = true
    const client = this.#client
    this.#client = undefined
    await client?.end().catch(() => undefined)
  }

  #relisten(): void {
    setTimeout(() => void this.listen().catch((err) => { this.#onError?.(err); if (!this.#closed && !this.#client) this.#relisten() }), 1000).unref()
  }
}
