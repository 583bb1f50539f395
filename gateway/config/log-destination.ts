/**
 * The log's stdout: lines gathered in memory and written in batches off the request's path, so
 * no request waits on stdout (a synchronous write stalls every request while stdout is slow to
 * read). A batch is written when enough bytes have gathered or on a short timer; lines beyond a
 * cap are dropped rather than growing the heap without end while nobody reads stdout.
 *
 * Why not sonic-boom's asynchronous mode, which pino offers: it keeps the pending lines as one
 * string and measures that string's UTF-8 length again on every write, so each line costs a copy
 * and a scan of everything gathered before it (measured at 1.5-2 µs a line against 0.3 here, on
 * an access line of ~230 bytes). Here each line is measured once, and joined once per batch.
 */
import { write as writeAsync, writeSync } from 'node:fs'

export interface LogDestinationOptions {
  /** Bytes gathered before a write is started. */
  batchBytes: number
  /** The longest a line waits when traffic is too light to fill a batch. */
  flushIntervalMs: number
  /** Bytes held (gathered and in flight) beyond which new lines are dropped. */
  maxBufferedBytes: number
  /** The system calls that write (node:fs's, unless given). */
  io?: LogWriteCalls
  /**
   * Told how many lines were dropped, at most once per `flushIntervalMs` × 10 while lines are
   * being dropped: the log itself cannot carry that news when its stdout is what stalled.
   */
  onDropped?: (count: number) => void
}

export interface LogWriteCalls {
  write: (fd: number, buffer: Buffer, done: (error: NodeJS.ErrnoException | null, written: number) => void) => void
  writeSync: (fd: number, buffer: Buffer) => number
}

const FS_CALLS: LogWriteCalls = {
  write: (fd, buffer, done) => writeAsync(fd, buffer, 0, buffer.length, null, done),
  writeSync: (fd, buffer) => writeSync(fd, buffer),
}

/** How long a write that found the pipe full (EAGAIN) waits before it tries again. */
const RETRY_MS = 10
/** The longest a synchronous flush keeps retrying a full pipe before it gives the rest up. */
const SYNC_GIVE_UP_MS = 1000

const live = new Set<LogDestination>()
let exitHooked = false

export class LogDestination {
  readonly fd: number
  readonly options: LogDestinationOptions
  #io: LogWriteCalls
  #lines: string[] = []
  #bytes = 0
  /** The batch a write holds (its unwritten rest after a short write), until the write returns. */
  #inFlight: Buffer | undefined
  #waiters: Array<() => void> = []
  #broken = false
  #dropped = 0
  #reported = 0
  #reportTimer: ReturnType<typeof setTimeout> | undefined

  constructor(fd: number, options: LogDestinationOptions) {
    this.fd = fd
    this.options = options
    this.#io = options.io ?? FS_CALLS
    setInterval(() => this.#startWrite(), options.flushIntervalMs).unref()
    // Whatever is gathered is written before any exit, uncaught errors included (a crash loses
    // at most a batch a write still held).
    live.add(this)
    if (!exitHooked) {
      exitHooked = true
      process.on('exit', () => { for (const d of live) d.flushSync() })
    }
  }

  /** Lines dropped because stdout was not read fast enough (or was closed). */
  get dropped(): number {
    return this.#dropped
  }

  /** pino's destination contract: one serialised line. */
  write(line: string): boolean {
    if (this.#broken) return false
    const size = Buffer.byteLength(line)
    if (this.#bytes + (this.#inFlight?.length ?? 0) + size > this.options.maxBufferedBytes) {
      this.#dropped++
      this.#reportDrops()
      return false
    }
    this.#lines.push(line)
    this.#bytes += size
    if (this.#bytes >= this.options.batchBytes) this.#startWrite()
    return true
  }

  /** Calls `done` once every line given so far is written (or can no longer be). */
  flush(done: () => void = () => {}): void {
    if (!this.#inFlight && !this.#lines.length) return done()
    this.#waiters.push(done)
    this.#startWrite()
  }

  /**
   * Writes every gathered line now, synchronously, for an exit that cannot wait. A batch an
   * asynchronous write holds is left to it: writing it here too could print it twice.
   */
  flushSync(): void {
    if (this.#broken || !this.#lines.length) return
    let buffer: Buffer = Buffer.from(this.#take())
    const giveUpAt = Date.now() + SYNC_GIVE_UP_MS
    while (buffer.length) {
      try {
        buffer = buffer.subarray(this.#io.writeSync(this.fd, buffer))
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() > giveUpAt) return this.#break()
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_MS)
      }
    }
  }

  #reportDrops(): void {
    if (!this.options.onDropped || this.#reportTimer) return
    this.#reportTimer = setTimeout(() => {
      this.#reportTimer = undefined
      const count = this.#dropped - this.#reported
      this.#reported = this.#dropped
      if (count > 0) this.options.onDropped!(count)
    }, this.options.flushIntervalMs * 10)
    this.#reportTimer.unref()
  }

  #take(): string {
    const text = this.#lines.join('')
    this.#lines = []
    this.#bytes = 0
    return text
  }

  #startWrite(): void {
    if (this.#inFlight || this.#broken || !this.#lines.length) return
    this.#inFlight = Buffer.from(this.#take())
    this.#writeInFlight()
  }

  #writeInFlight(): void {
    const buffer = this.#inFlight!
    this.#io.write(this.fd, buffer, (error, written) => {
      if (error) {
        // A full pipe (stdout set non-blocking, its reader slow): the same bytes again, later.
        if (error.code === 'EAGAIN') return void setTimeout(() => this.#writeInFlight(), RETRY_MS).unref()
        return this.#break()
      }
      if (written < buffer.length) {
        this.#inFlight = buffer.subarray(written)
        return this.#writeInFlight()
      }
      this.#inFlight = undefined
      if (this.#lines.length && (this.#waiters.length || this.#bytes >= this.options.batchBytes)) return this.#startWrite()
      if (!this.#lines.length) this.#release()
    })
  }

  /** stdout closed or failing: nothing more can be written, and nobody waits for it. */
  #break(): void {
    this.#broken = true
    this.#dropped += this.#lines.length
    this.#lines = []
    this.#bytes = 0
    this.#inFlight = undefined
    live.delete(this)
    this.#release()
  }

  #release(): void {
    const waiters = this.#waiters
    this.#waiters = []
    for (const done of waiters) done()
  }
}
