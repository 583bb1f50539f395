/**
 * What a job's webhook stream must look like from a fleet on PostgreSQL
 * (events.23), checked as a receiver sees it: every event carries its `seq`; a second arrival of a
 * seq is a duplicate (at-least-once delivery) and is dropped, as the documented receiver does; what
 * is left arrives in seq order, numbered 1..n without a hole, and follows the spec's order per
 * attempt: started, progress, parked/resumed, then retrying or (last, once) completed.
 */

/** One webhook as it arrived. */
export interface ReceivedEvent {
  type: string
  seq?: number
  /** `job.attempt` in the event. */
  attempt: number
  /** `job.error` in the event. */
  error?: string
}

const LETTER: Record<string, string> = { job_started: 'S', job_progress: 'P', job_parked: 'K', job_resumed: 'R', job_retrying: 'Y', job_completed: 'C' }
/**
 * Per attempt: started, progress, park/resume pairs with progress between, maybe a park its cap
 * (or a dead parker) ended, then retrying; the last attempt ends completed. A kill right after
 * the claim leaves `S` followed directly by the reclaimer's `Y`.
 */
const GRAMMAR = /^(SP*(KRP*)*K?Y)*SP*(KRP*)*K?C$/

export interface StreamCheck {
  violations: string[]
  /** Arrivals of a seq already received. */
  duplicates: number
  /** The stream after dropping duplicates, as letters (S P K R Y C). */
  letters: string
  complete: boolean
}

export function checkJobStream(jobId: string, received: ReceivedEvent[]): StreamCheck {
  const violations: string[] = []
  const seen = new Map<number, string>()
  const kept: ReceivedEvent[] = []
  let duplicates = 0
  for (const event of received) {
    if (typeof event.seq !== 'number') {
      violations.push(`job ${jobId}: webhook ${event.type} without seq`)
      continue
    }
    const before = seen.get(event.seq)
    if (before !== undefined) {
      duplicates++
      if (before !== event.type) violations.push(`job ${jobId}: seq ${event.seq} arrived as ${before} and as ${event.type}`)
      continue
    }
    const last = kept.at(-1)
    if (last?.seq !== undefined && event.seq < last.seq) violations.push(`job ${jobId}: webhook ${event.type} #${event.seq} arrived after #${last.seq} (${last.type})`)
    seen.set(event.seq, event.type)
    kept.push(event)
  }
  const seqs = kept.map((e) => e.seq!).sort((a, b) => a - b)
  seqs.forEach((seq, i) => { if (seq !== i + 1) violations.push(`job ${jobId}: webhook #${i + 1} missing (next received #${seq})`) })
  const letters = kept.map((e) => LETTER[e.type] ?? '?').join('')
  const complete = letters.endsWith('C')
  if (complete && !GRAMMAR.test(letters)) violations.push(`job ${jobId}: webhooks out of the spec's order: ${letters}`)
  // Each job_started opens the next attempt: 1, 2, ...
  let attempt = 0
  for (const e of kept) {
    if (e.type !== 'job_started') continue
    attempt++
    if (e.attempt !== attempt) violations.push(`job ${jobId}: job_started #${e.seq} for attempt ${e.attempt}, expected ${attempt}`)
    // Each attempt starts clean: no error of the attempt before.
    if (e.error !== undefined) violations.push(`job ${jobId}: job_started #${e.seq} carries an error: ${e.error}`)
  }
  return { violations: [...new Set(violations)], duplicates, letters, complete }
}
