/** The live state of one running (or parked) attempt of a job: its runner, clocks and tokens. */
import type { JobEvent, Usage } from '../protocol/index.ts'
import type { Runner } from '../sessions/runner.ts'
import type { JobRecord, StartStep } from './adapter.ts'

export class JobRun {
  runner: Runner
  unsubscribe: () => void = () => {}
  estimatedTokens = 0
  lastSeq = 0
  killReason: string | undefined
  canceled = false
  finalized = false
  parked = false
  /** Parked by another process sharing the adapter, resumed here. */
  adopted = false
  legStartedAt: number
  runningMs = 0
  parkedMs = 0
  parkedAt = 0
  durationTimer: NodeJS.Timeout | undefined
  forceTimer: NodeJS.Timeout | undefined
  parkTimer: NodeJS.Timeout | undefined
  /** The job_resumed its resume recorded, announced once the rebuilt session runs. */
  resumedEvent: JobEvent | undefined
  /**
   * `record.info` is the job as the store holds it: set once this process's start write landed
   * (its answer is the row), cleared by a park (parking writes outside this run's view). While
   * set, the attempt's end needs no read of the job before its final write.
   */
  infoCurrent = false
  /**
   * The attempt's start, not yet written: its session ended before it was, and its end's write
   * records it first (StartStep). Taken by that write; a retried end reads the store instead.
   */
  startWithEnd: StartStep | undefined
  /** Resolves once the attempt's start is recorded and job_started emitted (or left to its end's write); a park waits for it. */
  started: Promise<void> = Promise.resolve()

  readonly record: JobRecord

  constructor(record: JobRecord, runner: Runner, now: number) {
    this.record = record
    this.runner = runner
    this.legStartedAt = now
  }

  get id(): string {
    return this.record.info.id
  }

  clearTimers(): void {
    clearTimeout(this.durationTimer)
    clearTimeout(this.forceTimer)
    clearTimeout(this.parkTimer)
    this.durationTimer = this.forceTimer = this.parkTimer = undefined
  }
}

/** input + output + cache-creation + cache-read, each counted only when it is a number (queue-options.2). */
export function sumUsage(usage: Usage | undefined): number {
  if (!usage) return 0
  let total = 0
  for (const n of [usage.input_tokens, usage.output_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens]) {
    if (typeof n === 'number' && Number.isFinite(n)) total += n
  }
  return total
}

/** The stricter of two optional limits wins (limits.16). */
export function stricter(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b
  if (b === undefined) return a
  return Math.min(a, b)
}
