/** The soak's webhook rules (webhook-stream.ts) catch what they claim to: holes, reordering, wrong order, stale fields. */
import { describe, expect, it } from 'vitest'
import { checkJobStream, type ReceivedEvent } from './webhook-stream.ts'

const ev = (type: string, seq: number, attempt = 1, error?: string): ReceivedEvent => ({ type, seq, attempt, ...(error !== undefined ? { error } : {}) })

describe('checkJobStream', () => {
  it('accepts a whole stream with a late duplicate, and counts the duplicate', () => {
    const check = checkJobStream('j', [ev('job_started', 1), ev('job_parked', 2), ev('job_resumed', 3), ev('job_parked', 2), ev('job_retrying', 4, 2), ev('job_started', 5, 2), ev('job_completed', 6, 2)])
    expect(check).toEqual({ violations: [], duplicates: 1, letters: 'SKRYSC', complete: true })
  })

  it('reports a hole, a reordering, the spec order broken, and a retry that starts with the old error', () => {
    expect(checkJobStream('j', [ev('job_started', 1), ev('job_completed', 3)]).violations).toEqual(['job j: webhook #2 missing (next received #3)'])
    expect(checkJobStream('j', [ev('job_parked', 2), ev('job_started', 1), ev('job_completed', 3)]).violations).toContain('job j: webhook job_started #1 arrived after #2 (job_parked)')
    expect(checkJobStream('j', [ev('job_parked', 1), ev('job_started', 2), ev('job_completed', 3)]).violations).toContain("job j: webhooks out of the spec's order: KSC")
    expect(checkJobStream('j', [ev('job_started', 1), ev('job_retrying', 2, 2), ev('job_started', 3, 2, 'boom'), ev('job_completed', 4, 2)]).violations)
      .toEqual(['job j: job_started #3 carries an error: boom'])
    expect(checkJobStream('j', [ev('job_started', 1), ev('job_completed', 2), ev('job_progress', 3)]).complete).toBe(false)
  })
})
