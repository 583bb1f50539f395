/**
 * Structured logs: pino JSON lines on stdout (pretty only when stdout is a terminal and
 * `pino-pretty` is installed). Credentials are redacted twice: by path (headers, keys the
 * configuration adds) and by value (every credential variable the configuration names), so a
 * secret that reaches an error message still never reaches a line.
 *
 * Lines go to stdout through a buffered, asynchronous destination, so no request waits on
 * stdout (a synchronous write stalls every request while stdout is slow to read): lines are
 * gathered and written off the request's path when enough have gathered or on a short timer
 * (`log-destination.ts`). `flushLog` empties the buffer before an orderly exit; the destination
 * writes it synchronously on any `exit` (uncaught errors included), so a crash loses at most what
 * a SIGKILL would.
 */
import { createRequire } from 'node:module'
import type { Logger } from 'pino'
import { LogDestination } from './log-destination.ts'

// pino is CommonJS: required, not imported, because an ES import of a CommonJS package makes Node
// parse every one of its ~25 files for named exports first (cjs-module-lexer), which cost about
// as much as loading them (15-22 ms of CPU by import, 8 by require).
const { pino } = createRequire(import.meta.url)('pino') as typeof import('pino')

const REDACT_PATHS = [
  'req.headers.authorization', 'req.headers.cookie', 'headers.authorization', 'headers.cookie',
  '*.apiKey', '*.token', '*.password', '*.secret', 'env.*',
]

/** Bytes gathered before a write (a few dozen access lines). */
export const LOG_BUFFER_BYTES = 32768
/** The longest a line waits in the buffer when traffic is too light to fill it. */
export const LOG_FLUSH_INTERVAL_MS = 100
/**
 * When stdout stops being read, lines beyond this many buffered bytes are dropped rather than
 * growing the heap without end (a synchronous write would have stalled every request instead).
 */
export const LOG_MAX_BUFFERED_BYTES = 16 * 1024 * 1024

export interface LoggerOptions {
  level?: string
  redact?: string[]
  /** Values that must never appear in a line (credential variables' values). */
  secrets?: string[]
  /** Where lines go; stdout by default (tests pass a stream). */
  destination?: NodeJS.WritableStream
}

/** Each logger's twin for flat lines (see `flatLinesLogger`). */
const flatLines = new WeakMap<Logger, Logger>()

/**
 * The logger for lines made only of top-level primitives (the access lines): the built-in
 * redaction paths name headers and nested keys, so they can never match such a line, and checking
 * them cost about half of the line (~3 of 7 µs). The operator's `logging.redact` paths still
 * apply, and so does the scrub of credential values. Any other logger is returned as it is.
 */
export function flatLinesLogger(logger: Logger): Logger {
  return flatLines.get(logger) ?? logger
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const logger = createRootLogger(options)
  flatLines.set(logger, logger.child({}, { redact: { paths: options.redact ?? [], censor: '[REDACTED]' } }))
  return logger
}

function createRootLogger(options: LoggerOptions): Logger {
  const secrets = (options.secrets ?? []).filter((s) => s.length >= 4)
  const scrub = (text: string) => secrets.reduce((out, secret) => out.split(secret).join('[REDACTED]'), text)
  const level = options.level ?? process.env.GATEWAY_LOG_LEVEL ?? 'info'
  const settings = {
    level,
    base: { pid: process.pid },
    redact: { paths: [...REDACT_PATHS, ...(options.redact ?? [])], censor: '[REDACTED]' },
    hooks: secrets.length ? {
      // Every argument, message and merged object alike, is scrubbed before pino serialises it.
      logMethod(this: Logger, args: unknown[], method: (...a: unknown[]) => void) {
        method.apply(this, args.map((arg) => scrubValue(arg, scrub)))
      },
    } : {},
  }
  if (options.destination) return pino(settings as never, options.destination as never)
  // On a terminal, pretty lines when the operator installed pino-pretty; JSON lines otherwise.
  if (process.stdout.isTTY && prettyAvailable()) return pino({ ...settings, transport: { target: 'pino-pretty' } } as never)
  return pino(settings as never, stdoutDestination())
}

function stdoutDestination(): LogDestination {
  return new LogDestination(1, {
    batchBytes: LOG_BUFFER_BYTES, flushIntervalMs: LOG_FLUSH_INTERVAL_MS, maxBufferedBytes: LOG_MAX_BUFFERED_BYTES,
    // On stderr: stdout is the stream that stopped being read.
    onDropped: (count) => process.stderr.write(`gateway: ${count} log line(s) dropped: stdout is not being read (over ${LOG_MAX_BUFFERED_BYTES} bytes waiting)\n`),
  })
}

/** How long an orderly exit waits for the log's writes in flight before it writes the rest synchronously. */
export const LOG_EXIT_FLUSH_MS = 1000

/**
 * An orderly exit's last step: waits for the write in flight (a synchronous flush cannot, so its
 * lines would be lost to `process.exit`) and every buffered line, at most `waitMs`
 * (a stdout nobody reads must not hold the exit), then writes whatever is left synchronously.
 */
export async function flushLog(logger: Logger, waitMs = LOG_EXIT_FLUSH_MS): Promise<void> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, waitMs)
    const done = () => {
      clearTimeout(timer)
      resolve()
    }
    try {
      logger.flush(done)
    } catch {
      done()
    }
  })
  flushLogSync(logger)
}

/** Writes every buffered line now, synchronously (before `process.exit`); a no-op for other destinations. */
export function flushLogSync(logger: Logger): void {
  const stream = (logger as unknown as Record<symbol, { flushSync?: () => void } | undefined>)[pino.symbols.streamSym]
  try {
    stream?.flushSync?.()
  } catch {
    // A destination already closed or never opened has nothing left to write.
  }
}

function prettyAvailable(): boolean {
  try {
    import.meta.resolve('pino-pretty')
    return true
  } catch {
    return false
  }
}

function scrubValue(value: unknown, scrub: (text: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return scrub(value)
  if (value instanceof Error) return { type: value.name, message: scrub(value.message), ...(value.stack ? { stack: scrub(value.stack) } : {}) }
  if (!value || typeof value !== 'object' || depth > 8) return value
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, scrub, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value)) out[key] = scrubValue(v, scrub, depth + 1)
  return out
}
