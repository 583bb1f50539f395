/**
 * The provider engine's `eval_script` tool: runs agent-written JavaScript in a QuickJS guest
 * (quickjs-emscripten) with no network, no host files and no host objects beyond `input`,
 * `console.log` and an optional scratch `fs`, all of which cross by copy (strings/JSON only).
 *
 * Quirks of the prebuilt wasm that shape this file:
 * - `setMemoryLimit` caps each allocation but accounts 8 bytes per block
 *   (justjake/quickjs-emscripten#255, #271), so the total is enforced separately: heap growth
 *   past the call's budget is refused, and the runtime's measured usage is polled.
 * - The interpreter's shadow stack is 5 MiB and QuickJS's check undercounts wasm frames, so
 *   `maxStackBytes` is capped at 1 MiB, and deep nesting (e.g. 1000 nested parentheses) can still
 *   exhaust the host stack inside the interpreter. That leaves the module inconsistent, so it is
 *   abandoned and later calls load a fresh one.
 */
import { getQuickJS, newQuickJSWASMModule, type QuickJSContext, type QuickJSHandle, type QuickJSWASMModule, type VmCallResult } from 'quickjs-emscripten'
import { ScratchFs, ScratchLimitError, ScratchPathError } from './scratch-fs.ts'

export type EvalResult = { ok: true; value: unknown; logs: string[] } | { ok: false; error: string; logs: string[] }

export interface EvalScriptOptions {
  code: string
  /** Copied into the guest as the global `input` via JSON. */
  input?: unknown
  /** Exposed to the guest as the global `fs` when given. */
  fs?: ScratchFs
  /** Default 32 MiB. */
  memoryLimitBytes?: number
  /** Default 2000; covers evaluation, awaiting a returned promise and serialising the result. */
  timeoutMs?: number
  /** QuickJS stack budget, default 256 KiB. */
  maxStackBytes?: number
}

const KiB = 1024
const MiB = 1024 * KiB
const MAX_LOG_LINES = 100
const MAX_LOG_BYTES = 64 * KiB
const LOG_TRUNCATED = '[console output truncated]'
/** Usage polls walk the heap, so they are spaced out. */
const POLL_INTERVAL_MS = 20
/** Allocations QuickJS does not itemise in its usage report (Map records, Set entries, ...) are costed at this. */
const UNITEMISED_ALLOC_BYTES = 32
/** wasm memory never shrinks, so a module whose heap grew past this is replaced after the call. */
const HEAP_RECYCLE_BYTES = 256 * MiB
const WASM_PAGE_BYTES = 65536

/** Runs inside the guest once per call; host functions arrive as closure arguments so none is reachable as a global. */
const PRELUDE = `(function (hostLog, inputJson, fsRead, fsWrite, fsList, fsDelete) {
  'use strict';
  const stringify = JSON.stringify, parse = JSON.parse, Str = String;
  const show = (v) => {
    if (typeof v === 'string') return v;
    if (v !== null && typeof v === 'object') { try { const j = stringify(v); if (j !== undefined) return j; } catch {} }
    try { return Str(v); } catch { return '[unprintable]'; }
  };
  const define = (name, value) => Object.defineProperty(globalThis, name, { value, writable: true, configurable: true });
  let full = false;
  define('console', { log: (...args) => { if (!full) full = hostLog(args.map(show).join(' ')) === true; } });
  define('input', inputJson === undefined ? undefined : parse(inputJson));
  if (fsRead) define('fs', {
    read: (path) => fsRead(path),
    write: (path, text) => { fsWrite(path, text); },
    list: () => parse(fsList()),
    delete: (path) => fsDelete(path),
  });
  return {
    serialize: (v) => {
      if (v === undefined) return undefined;
      try { const j = stringify(v); if (typeof j === 'string') return 'J' + j; } catch {}
      try { return 'S' + Str(v); } catch { return 'S[unserialisable value]'; }
    },
    describe: (e) => {
      try { if (e !== null && typeof e === 'object' && typeof e.message === 'string') return (typeof e.name === 'string' ? e.name : 'Error') + ': ' + e.message; } catch {}
      return 'Uncaught ' + show(e);
    },
  };
})`

interface Settings {
  code: string
  memoryLimitBytes: number
  timeoutMs: number
  maxStackBytes: number
}

/** The slice of WebAssembly.Memory used here; the project's libs do not declare the WebAssembly types. */
interface WasmMemory {
  readonly buffer: ArrayBuffer
  grow(pages: number): number
}

interface Loaded {
  module: QuickJSWASMModule
  memory: WasmMemory
  /** The call running on this module, if any; it decides whether the wasm heap may grow. */
  guard?: Guard
}

let shared: Promise<Loaded> | undefined
/** After the first module is abandoned, getQuickJS's singleton is the broken one, so load private instances. */
let fresh = false
const abandoned = new WeakSet<QuickJSWASMModule>()

async function load(): Promise<Loaded> {
  for (;;) {
    const pending = (shared ??= (fresh ? newQuickJSWASMModule() : getQuickJS()).then(prepare))
    const loaded = await pending.catch((error: unknown) => {
      if (shared === pending) shared = undefined
      throw error
    })
    if (!abandoned.has(loaded.module)) return loaded
    if (shared === pending) {
      shared = undefined
      fresh = true
    }
  }
}

/**
 * Emscripten grows the heap through this memory object's `grow` and treats a throw as malloc
 * failure, which QuickJS reports as out of memory. Shadowing it on this one instance is the only
 * hook that sees every allocation, including native loops that rarely reach the interrupt poll.
 */
function prepare(module: QuickJSWASMModule): Loaded {
  const memory: WasmMemory = module.getWasmMemory()
  const loaded: Loaded = { module, memory }
  const grow = memory.grow.bind(memory)
  memory.grow = (pages: number) => {
    if (loaded.guard && !loaded.guard.allowHeap(memory.buffer.byteLength + pages * WASM_PAGE_BYTES)) throw new RangeError('guest heap limit')
    return grow(pages)
  }
  return loaded
}

export async function evalScript(options: EvalScriptOptions): Promise<EvalResult> {
  const settings = check(options)
  const inputJson = options.input === undefined ? undefined : JSON.stringify(options.input)
  const loaded = await load()
  const logs = new LogSink()
  try {
    return run(loaded, settings, inputJson, options.fs, logs)
  } catch (error) {
    // Guest errors come back as values; a host exception here escaped from inside the interpreter.
    abandoned.add(loaded.module)
    return { ok: false, error: `sandbox fault, interpreter discarded: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`, logs: logs.lines }
  } finally {
    loaded.guard = undefined
    if (loaded.memory.buffer.byteLength > HEAP_RECYCLE_BYTES) abandoned.add(loaded.module)
  }
}

/** Synchronous from setup to disposal, so no other call can use the module meanwhile. Throws only on a sandbox fault. */
function run(loaded: Loaded, s: Settings, inputJson: string | undefined, fs: ScratchFs | undefined, logs: LogSink): EvalResult {
  // module.newContext makes this context the runtime's system context too, so usage polls create no second one.
  const context = loaded.module.newContext()
  const runtime = context.runtime
  const guard = new Guard(context, loaded.memory, s)
  const owned: QuickJSHandle[] = []
  const own = (handle: QuickJSHandle): QuickJSHandle => (owned.push(handle), handle)

  const outcome = ((): EvalResult => {
    const prelude = own(unwrap(context.evalCode(PRELUDE, 'prelude.js', { type: 'global', strict: true })))
    // Answers true once output is being dropped, so the guest stops formatting lines.
    const log = context.newFunction('log', (line) => guard.host(() => (context.typeof(line) === 'string' && logs.add(context.getString(line)) ? context.true : context.false)))
    const args = [own(log), inputJson === undefined ? context.undefined : own(context.newString(inputJson)), ...fsFunctions(context, fs, guard).map(own)]
    const helpers = own(unwrap(context.callFunction(prelude, context.undefined, args)))
    const serialize = own(context.getProp(helpers, 'serialize'))
    const describe = own(context.getProp(helpers, 'describe'))
    const stopped = (): EvalResult | undefined => (guard.stopped ? { ok: false, error: guard.stopped, logs: logs.lines } : undefined)
    const fail = (error: QuickJSHandle): EvalResult => {
      own(error)
      const stop = stopped()
      if (stop) return stop
      const described = context.callFunction(describe, context.undefined, error)
      const text = described.error ? undefined : context.getString(own(described.value))
      if (described.error) own(described.error)
      // QuickJS's own message for an allocation over the limit, reported like the other memory stops.
      const message = text === 'InternalError: out of memory' ? guard.memoryMessage() : (text ?? 'Error: unprintable exception')
      return stopped() ?? { ok: false, error: message, logs: logs.lines }
    }

    runtime.setMemoryLimit(s.memoryLimitBytes)
    runtime.setMaxStackSize(s.maxStackBytes)
    runtime.setInterruptHandler(guard.interrupt)
    loaded.guard = guard
    guard.start()

    const evaluated = context.evalCode(s.code, 'script.js', { type: 'global' })
    if (evaluated.error) return fail(evaluated.error)
    let value = own(evaluated.value)
    while (runtime.hasPendingJob() && !guard.stopped) {
      const jobs = runtime.executePendingJobs()
      if (jobs.error) return fail(jobs.error)
    }
    const state = stopped() ? undefined : context.getPromiseState(value)
    if (!state) return stopped()!
    if (state.type === 'pending') return { ok: false, error: 'Error: the script returned a promise that never settled', logs: logs.lines }
    if (state.type === 'rejected') return fail(state.error)
    if (!state.notAPromise) value = own(state.value)
    const serialized = context.callFunction(serialize, context.undefined, value)
    if (serialized.error) return fail(serialized.error)
    const text = context.typeof(own(serialized.value)) === 'string' ? context.getString(serialized.value) : undefined
    const result = text === undefined ? undefined : text[0] === 'J' ? JSON.parse(text.slice(1)) : text.slice(1)
    return stopped() ?? { ok: true, value: result, logs: logs.lines }
  })()

  runtime.removeInterruptHandler()
  for (const handle of owned.reverse()) if (handle.alive) handle.dispose()
  context.dispose()
  return outcome
}

function unwrap(result: VmCallResult<QuickJSHandle>): QuickJSHandle {
  if (result.error) {
    result.error.dispose()
    throw new Error('eval-script prelude failed')
  }
  return result.value
}

/** Strings in, strings out; scratch errors become guest exceptions of the same name. */
function fsFunctions(context: QuickJSContext, fs: ScratchFs | undefined, guard: Guard): QuickJSHandle[] {
  if (!fs) return []
  const fn = (name: string, body: (...args: string[]) => QuickJSHandle | undefined): QuickJSHandle =>
    context.newFunction(name, (...handles) =>
      guard.host(() => {
        const args: string[] = []
        for (const handle of handles) {
          if (context.typeof(handle) !== 'string') return { error: context.newError({ name: 'TypeError', message: `fs.${name}: arguments must be strings` }) }
          args.push(context.getString(handle))
        }
        try {
          return body(...args)
        } catch (error) {
          if (error instanceof ScratchPathError || error instanceof ScratchLimitError) return { error: context.newError({ name: error.name, message: error.message }) }
          throw error
        }
      }),
    )
  return [
    fn('read', (path) => {
      const text = fs.readText(path)
      return text === undefined ? undefined : context.newString(text)
    }),
    fn('write', (path, text) => void fs.write(path, text)),
    fn('list', () => context.newString(JSON.stringify(fs.list()))),
    fn('delete', (path) => (fs.delete(path) ? context.true : context.false)),
  ]
}

/**
 * Stops the guest at the deadline or when its memory passes the limit. The deadline and usage
 * polls run when QuickJS calls the interrupt handler (every few thousand operations); heap growth
 * is refused at once.
 */
class Guard {
  stopped: string | undefined
  #context: QuickJSContext
  #memory: WasmMemory
  #s: Settings
  #deadline = Infinity
  #heapCap = Infinity
  #hostCall = false
  #nextPoll = 0

  constructor(context: QuickJSContext, memory: WasmMemory, s: Settings) {
    this.#context = context
    this.#memory = memory
    this.#s = s
  }

  start(): void {
    this.#deadline = performance.now() + this.#s.timeoutMs
    // Slack for fragmentation and for the host's own copy of the source text.
    this.#heapCap = this.#memory.buffer.byteLength + 2 * this.#s.memoryLimitBytes + 2 * Buffer.byteLength(this.#s.code) + MiB
  }

  allowHeap(bytes: number): boolean {
    if (this.#hostCall || bytes <= this.#heapCap) return true
    this.stopped ??= this.memoryMessage()
    return false
  }

  /** Host callbacks copy strings through malloc'd buffers, which must not fail (a null buffer would be written at address 0). */
  host<T>(body: () => T): T | undefined {
    if (this.stopped) return undefined
    this.#hostCall = true
    try {
      return body()
    } finally {
      this.#hostCall = false
    }
  }

  readonly interrupt = (): boolean => {
    if (this.stopped) return true
    const now = performance.now()
    if (now >= this.#deadline) this.stopped = `Error: time limit of ${this.#s.timeoutMs} ms exceeded`
    else if (now >= this.#nextPoll) {
      if ((this.host(() => this.#usedBytes()) ?? 0) > this.#s.memoryLimitBytes) this.stopped = this.memoryMessage()
      this.#nextPoll = performance.now() + Math.max(POLL_INTERVAL_MS, 4 * (performance.now() - now))
    }
    return this.stopped !== undefined
  }

  memoryMessage(): string {
    return `Error: memory limit of ${this.#s.memoryLimitBytes} bytes exceeded`
  }

  #usedBytes(): number {
    const context = this.#context
    const usage = context.runtime.computeMemoryUsage()
    const read = (key: string): number => {
      const handle = context.getProp(usage, key)
      const value = context.getNumber(handle)
      handle.dispose()
      return value
    }
    const bytes = read('memory_used_size') + Math.max(0, read('malloc_count') - read('memory_used_count')) * UNITEMISED_ALLOC_BYTES
    usage.dispose()
    return bytes
  }
}

class LogSink {
  readonly lines: string[] = []
  #bytes = 0
  #full = false

  /** Returns true once further lines are dropped. */
  add(line: string): boolean {
    if (this.#full) return true
    const size = Buffer.byteLength(line)
    if (this.lines.length < MAX_LOG_LINES && this.#bytes + size <= MAX_LOG_BYTES - LOG_TRUNCATED.length) {
      this.lines.push(line)
      this.#bytes += size
      return false
    }
    this.#full = true
    if (this.lines.length === MAX_LOG_LINES) this.lines[MAX_LOG_LINES - 1] = LOG_TRUNCATED
    else this.lines.push(LOG_TRUNCATED)
    return true
  }
}

function check(options: EvalScriptOptions): Settings {
  if (typeof options !== 'object' || options === null) throw new TypeError('evalScript options must be an object')
  if (typeof options.code !== 'string') throw new TypeError('evalScript: code must be a string')
  if (options.fs !== undefined && !(options.fs instanceof ScratchFs)) throw new TypeError('evalScript: fs must be a ScratchFs')
  return {
    code: options.code,
    memoryLimitBytes: bounded('memoryLimitBytes', options.memoryLimitBytes, 32 * MiB, MiB, 1024 * MiB),
    timeoutMs: bounded('timeoutMs', options.timeoutMs, 2000, 1, 600_000),
    maxStackBytes: bounded('maxStackBytes', options.maxStackBytes, 256 * KiB, 16 * KiB, MiB),
  }
}

function bounded(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new RangeError(`evalScript: ${name} must be an integer from ${min} to ${max}`)
  return value
}
